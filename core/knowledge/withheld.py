"""The stored totals the disclosure policy withholds from a chat not cleared for restricted data.

core.knowledge.disclosure decides, cell by cell, whether a total would reveal a restricted
member (`protection`); this module asks it of every stored figure at once, for what an
operator reads ("3 group totals are withheld from uncleared chats") and for what a public
document must not state (core.documents.stated_figures). It decides nothing of its own.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from core.contracts.types import Fact, Period, PeriodType
from core.knowledge.disclosure import (
    PROTECT,
    hides_member,
    policy,
    protection,
    protects,
    restricted_cell,
    series_periods,
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

    periods = series_periods(stored)
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
        if protection(glossary, look, cell, periods=periods) is not None:
            out.append(f)
    return out


def withheld_summary(glossary: Glossary, withheld: list[Fact]) -> list[str]:
    """One line per total withheld: "REVENUE ORBIS_GROUP FY2023–FY2025, 2024H2–2025H2 (8)",
    by metric, entity and channel, years before halves, quarters and months (the same lines
    whatever order the store reads the figures in)."""
    tally = WithheldTally()
    tally.add(withheld)
    return tally.lines()


class WithheldTally:
    """The withheld figures counted per total and kind of period as they are found, for the
    summary lines, without holding them (the ingest report over a large table)."""

    def __init__(self) -> None:
        self.count = 0
        # (metric, entity, channel) -> kind of period -> [first, last, how many]
        self._spans: dict[tuple[str, str, str], dict[PeriodType, list[Any]]] = {}

    def add(self, withheld: Iterable[Fact]) -> None:
        for f in withheld:
            self.count += 1
            kinds = self._spans.setdefault((f.metric, f.entity, f.channel), {})
            span = kinds.get(f.period.type)
            if span is None:
                kinds[f.period.type] = [f.period, f.period, 1]
                continue
            if f.period.value < span[0].value:
                span[0] = f.period
            if f.period.value > span[1].value:
                span[1] = f.period
            span[2] += 1

    def lines(self) -> list[str]:
        out = []
        for (metric, entity, channel), kinds in sorted(self._spans.items()):
            spans = []
            for kind in sorted(kinds, key=list(PeriodType).index):
                first, last = kinds[kind][0].code, kinds[kind][1].code
                spans.append(first if first == last else f"{first}–{last}")
            where = f"{entity}" + ("" if channel == "TOTAL" else f" {channel}")
            n = sum(span[2] for span in kinds.values())
            out.append(f"{metric} {where} {', '.join(spans)} ({n})")
        return out
