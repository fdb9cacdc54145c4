"""The stored totals the disclosure policy withholds from a chat not cleared for restricted data.

core.knowledge.disclosure decides, cell by cell, whether a total would reveal a restricted
member (`protection`); this module asks it of every stored figure at once, for what an
operator reads ("3 group totals are withheld from uncleared chats") and for what a public
document must not state (core.documents.stated_figures). It decides nothing of its own.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import TYPE_CHECKING

from core.contracts.types import Fact, Period, PeriodType
from core.knowledge.disclosure import (
    PROTECT,
    hides_member,
    policy,
    protection,
    protects,
    restricted_cell,
)

if TYPE_CHECKING:
    from core.knowledge.glossary import Glossary


def any_withheld(glossary: Glossary) -> bool:
    """Whether the policy can withhold anything at all (a total with a restricted member under
    "protect"): False spares reading the fact table."""
    if policy(glossary) != PROTECT:
        return False
    return any(hides_member(glossary, "entity", e) for e in glossary.entities) or any(
        hides_member(glossary, "channel", c) for c in glossary.channels)


def withheld_figures(glossary: Glossary, facts: Iterable[Fact]) -> list[Fact]:
    """The stored public totals an uncleared chat is not shown as stored, in table order."""
    if not any_withheld(glossary):
        return []
    facts = list(facts)
    stored = {(f.metric, f.entity, f.period, f.channel): f.value for f in facts}

    def look(metric: str, entity: str, period: Period, channel: str) -> Decimal | None:
        return stored.get((metric, entity, period, channel))

    out = []
    may: dict[tuple[str, str, str], bool] = {}  # asked once per total, not once per figure
    for f in facts:
        cell = (f.metric, f.entity, f.period, f.channel)
        if restricted_cell(glossary, cell):
            continue  # restricted itself: never shown, whatever the totals
        total = (f.metric, f.entity, f.channel)
        if total not in may:
            may[total] = protects(glossary, f.metric, f.entity, f.channel, cleared=False)
        if not may[total]:
            continue
        if protection(glossary, look, cell) is not None:
            out.append(f)
    return out


def withheld_summary(glossary: Glossary, withheld: list[Fact]) -> list[str]:
    """One line per total withheld: "REVENUE ORBIS_GROUP FY2023–FY2025, 2024H2–2025H2 (8)",
    by metric, entity and channel, years before halves, quarters and months (the same lines
    whatever order the store reads the figures in)."""
    groups: dict[tuple[str, str, str], list[Period]] = {}
    for f in withheld:
        groups.setdefault((f.metric, f.entity, f.channel), []).append(f.period)
    out = []
    for (metric, entity, channel), periods in sorted(groups.items()):
        spans = []
        for kind in sorted({p.type for p in periods}, key=list(PeriodType).index):
            codes = sorted((p for p in periods if p.type is kind), key=lambda p: p.value)
            first, last = codes[0].code, codes[-1].code
            spans.append(first if first == last else f"{first}–{last}")
        where = f"{entity}" + ("" if channel == "TOTAL" else f" {channel}")
        out.append(f"{metric} {where} {', '.join(spans)} ({len(periods)})")
    return out
