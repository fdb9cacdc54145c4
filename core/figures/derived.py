"""Derived metrics answered: both inputs looked up exactly, the formula applied in code.

A derived figure is only ever shown with both inputs and their sources beside it, so a reader
can recompute it. Each input goes through `StructuredChannel.query_metric`, so the clearance,
normalisation and not-found rules of stored metrics hold unchanged: an entity this chat may not
see is answered exactly as for a stored metric, and a missing input is named with no number.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from core.catalog.lookup import join_list, say
from core.contracts.types import FactResult, FactStatus, Period, Source, decimal_to_json
from core.documents.source_titles import source_title
from core.figures.disclosed import WITHHELD, withheld_input
from core.figures.structured import StructuredChannel
from core.knowledge.glossary import Glossary

# why a derived figure could not be computed (`reason` in ask --json)
MISSING_INPUT = "missing_input"
ZERO_DENOMINATOR = "zero_denominator"
UNIT_MISMATCH = "unit_mismatch"


@dataclass(frozen=True)
class DerivedFact(FactResult):
    """A computed fact: `found` with the exact value, or `not_found` with the reason.

    A FactResult so it sits among the stored facts of an answer in the order asked; `fact`
    stays None (there is no row), the inputs carry theirs."""

    value: Decimal | None = None  # exact (ratio: 34 significant digits)
    shown: Decimal | None = None  # rounded to the glossary's decimals
    unit: str = ""
    inputs: tuple[FactResult, ...] = ()
    missing: tuple[str, ...] = ()  # input metric codes the fact table has no row for
    reason: str = ""
    formula: dict[str, str] | None = None
    decimals: int = 0

    @property
    def sources(self) -> list[Source]:
        out: list[Source] = []
        for r in self.inputs:
            out += getattr(r, "sources", None) or ([r.fact.source] if r.fact is not None else [])
        return out

    def to_dict(self) -> dict[str, Any]:
        """A stored fact's fields (`source` is null: the inputs carry the sources), plus the
        formula, the inputs as facts, and the rounded value the answer shows."""
        extra: dict[str, Any] = {
            "derived": True,
            "formula": self.formula,
            "decimals": self.decimals,
            "inputs": [r.to_dict() for r in self.inputs],
        }
        if self.reason == WITHHELD:  # an input is a withheld total (core.figures.disclosed)
            extra["disclosure"] = {"policy": "protect", "withheld": True}
        if self.status is FactStatus.FOUND and self.value is not None:
            assert self.period is not None
            return {
                "status": "found",
                "value": decimal_to_json(self.value),
                "value_exact": format(self.value, "f"),
                "unit": self.unit,
                "metric_code": self.metric,
                "entity": self.entity,
                "period_type": self.period.type.value,
                "period": self.period.value,
                "channel": self.channel,
                "source": None,
                "value_shown": format(self.shown, "f") if self.shown is not None else None,
                **extra,
            }
        return {**super().to_dict(), "reason": self.reason, "missing": list(self.missing),
                **extra}


def query_derived(
    structured: StructuredChannel,
    metric: str,
    entity: str,
    period: str | Period,
    channel: str | None = None,
    *,
    cleared: bool,
    reference_date: dt.date,
) -> FactResult:
    """Compute derived `metric` (a code of glossary.derived) from its two inputs.

    An input the structured channel does not recognise (an unknown or restricted entity, a bad
    period or channel) is returned as is: the same answer a stored metric gets."""
    definition = structured.glossary.derived[metric]
    formula = definition.formula
    results = [
        structured.query_metric(
            code, entity, period, channel, cleared=cleared, reference_date=reference_date
        )
        for code in formula.inputs
    ]
    for r in results:
        if r.status is FactStatus.UNRECOGNIZED:
            return r
    first = results[0]
    common: dict[str, Any] = {
        "metric": metric,
        "entity": first.entity,
        "period": first.period,
        "channel": first.channel,
        "unit": definition.term.unit,
        "inputs": tuple(results),
        "formula": formula.to_dict(),
        "decimals": definition.decimals,
    }
    if any(withheld_input(r) is not None for r in results):
        # an input is a total withheld from this chat: so is anything computed from it
        return DerivedFact(FactStatus.NOT_FOUND, reason=WITHHELD, **common)
    missing = tuple(r.metric or "" for r in results if r.fact is None)
    if missing:
        return DerivedFact(FactStatus.NOT_FOUND, missing=missing, reason=MISSING_INPUT, **common)
    facts = [r.fact for r in results if r.fact is not None]
    expected = [structured.glossary.metrics[code].unit for code in formula.inputs]
    if any(f.unit != unit for f, unit in zip(facts, expected, strict=True)):
        # a row in another unit than the glossary's (USD_M for EUR_M): the formula's scale
        # would be wrong, so no number
        return DerivedFact(FactStatus.NOT_FOUND, reason=UNIT_MISMATCH, **common)
    value = formula.apply(facts[0].value, facts[1].value)
    if value is None:
        return DerivedFact(FactStatus.NOT_FOUND, reason=ZERO_DENOMINATOR, **common)
    return DerivedFact(
        FactStatus.FOUND, value=value, shown=definition.rounded(value), **common
    )


def derived_sentence(glossary: Glossary, r: DerivedFact, language: str, subject: str) -> str:
    """ "Orbis Italia EBITDA margin, FY2024: 15.6% (EBITDA €49.8M ÷ revenue €318.9M; sources:
    …)", or why it cannot be computed, naming the missing input and showing no number."""
    definition = glossary.derived[r.metric or ""]
    if r.status is FactStatus.FOUND and r.shown is not None:
        parts = []
        for inp in r.inputs:
            assert inp.fact is not None
            label = running_name(glossary.label("metric", inp.fact.metric, language), language)
            shown = glossary.show_value(inp.fact.value, inp.fact.unit, language)
            parts.append(f"{label}{'' if language == 'zh' else ' '}{shown}")
        titles = list(dict.fromkeys(source_title(s, language, glossary.titles) for s in r.sources))
        return say(
            "derived_found",
            language,
            subject=subject,
            value=glossary.show_value(r.shown, r.unit, language),
            inputs=f" {definition.formula.symbol} ".join(parts),
            sources=say("derived_sources" if len(titles) > 1 else "derived_source", language,
                         titles="; ".join(titles) if language != "zh" else "；".join(titles)),
        )
    labels = [running_name(glossary.label("metric", code, language), language)
              for code in (r.missing or definition.formula.inputs)]
    return say(
        f"derived_{r.reason or MISSING_INPUT}",
        language,
        subject=subject,
        missing=join_list(labels, language),
        denominator=labels[-1],
    )


def running_name(label: str, language: str) -> str:
    """A metric name inside a sentence: "revenue", "EBITDA", "ricavi" (acronyms kept)."""
    if language == "zh":
        return label
    return " ".join(w if w.isupper() else w.lower() for w in label.split())
