"""Example questions built from the loaded knowledge base, for the empty-question hint.

A company's own users must see questions about their own metrics and entities, with a period
that has figures, never the demo company's.
"""

from __future__ import annotations

from collections.abc import Callable

from core.catalog.lookup import say
from core.contracts.types import Period, PeriodType
from core.knowledge.glossary import Glossary


def usage_hint(
    glossary: Glossary, periods: Callable[[str, str, str], list[Period]], language: str
) -> str:
    """"Ask me a question, for example: ..." naming the first metric, an entity the chat may
    see and the latest year with a figure (`periods(metric, entity, channel)`, newest first)."""
    metric = next(iter(glossary.metrics))
    visible = [t.code for t in glossary.visible_entities(cleared=False)]
    entity = next((c for c in visible if c != glossary.default_entity), glossary.default_entity)
    found = periods(metric, entity, "TOTAL")
    year = next((p for p in found if p.type is PeriodType.FY), None)
    shown = f"FY{year.value}" if year else (found[0].code if found else "FY")
    if language == "zh" and year:
        shown = f"{year.value}财年"
    name = glossary.label("metric", metric, language)
    if language == "en" and name[1:2].islower():  # "Orbis China revenue"; EBITDA stays
        name = name[:1].lower() + name[1:]
    return say("usage_example", language, entity=glossary.label("entity", entity, language),
               metric=name, Metric=name[:1].upper() + name[1:], period=shown)
