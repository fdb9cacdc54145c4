"""Random knowledge bases for the disclosure property (tests/test_disclosure_property.py and
bench/bench_disclosure_property.py): a hierarchy of units with restricted ones, a fiscal year
with its halves, quarters and months, missing cells, and sometimes a group total that is not the
sum of its units (central costs). `reachable` is everything an uncleared chat can be shown, and
`undetermined` checks, by exact linear algebra (tests.linear_disclosure), that no restricted
cell, stored or not, can be worked out from it.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from hypothesis import strategies as st

from core.contracts.types import Fact, Period, Source
from core.figures.disclosed import WithheldTotal
from core.figures.structured import StructuredChannel
from core.knowledge.glossary import Glossary, parse_glossary
from core.knowledge.names import NameIndex
from core.knowledge.period_relations import time_relations, year_periods
from tests.acme import MemoryFacts
from tests.linear_disclosure import Knowledge

YEAR = 2025
REF = dt.date(2027, 1, 1)
GROUP = "G"
COSTS = "central costs"  # the unknown that makes a group total not the sum of its units


@dataclass(frozen=True)
class World:
    """A generated knowledge base: entities (code -> parent), restricted codes, the stored
    facts, and whether the group total includes central costs (not the sum of its units)."""

    parents: dict[str, str | None]
    restricted: frozenset[str]
    fiscal_year_end: str
    facts: tuple[Fact, ...]
    costs: bool

    def glossary(self) -> Glossary:
        lines = ['[scope]', f'default_entity = "{GROUP}"',
                 f'fiscal_year_end = "{self.fiscal_year_end}"', 'disclosure = "protect"',
                 '[metrics.REVENUE]', 'names = ["Revenue"]', 'unit = "EUR_M"']
        for code, parent in self.parents.items():
            lines += [f"[entities.{code}]", f'names = ["Unit {code}"]']
            if parent:
                lines.append(f'parent = "{parent}"')
            if code in self.restricted:
                lines.append("restricted = true")
        return parse_glossary("\n".join(lines) + "\n")

    def children(self, code: str) -> list[str]:
        return [c for c, p in self.parents.items() if p == code]


@st.composite
def worlds(draw: Any) -> World:
    """A group with 2–4 units, one of which may be a region with 2–3 units of its own; at least
    one leaf restricted; each unit stores some kinds of period, some cells dropped."""
    parents: dict[str, str | None] = {GROUP: None}
    n = draw(st.integers(2, 4))
    units = [f"U{i}" for i in range(n)]
    for u in units:
        parents[u] = GROUP
    if draw(st.booleans()):
        region = units[0]
        for j in range(draw(st.integers(2, 3))):
            parents[f"{region}_{j}"] = region
    leaves = [c for c in parents if not any(p == c for p in parents.values())]
    restricted = frozenset(draw(st.lists(st.sampled_from(leaves), min_size=1, max_size=2,
                                         unique=True)))
    fye = draw(st.sampled_from(["12-31", "03-31", "06-30"]))
    costs = draw(st.booleans())
    periods = year_periods(YEAR, fye)
    months = [p for p in periods if p.type.value == "M"]
    value: dict[tuple[str, Period], int] = {}
    for leaf in leaves:
        for m in months:
            value[(leaf, m)] = draw(st.integers(1, 50))
    cost = {m: draw(st.integers(1, 9)) for m in months} if costs else {}

    def of(code: str, month: Period) -> int:
        if code in leaves:
            return value[(code, month)]
        total = sum(of(c, month) for c in parents if parents[c] == code)
        return total - cost.get(month, 0) if code == GROUP else total

    def over(code: str, period: Period) -> int:
        return sum(of(code, m) for m in months if _within(m, period, fye))

    kinds = ["FY", "HY", "Q", "M"]
    facts = []
    src = Source("report.pdf")
    for code in parents:
        stored = draw(st.sets(st.sampled_from(kinds), min_size=1))
        for p in periods:
            if p.type.value in stored and draw(st.integers(0, 9)) > 0:  # 1 in 10 dropped
                facts.append(Fact("REVENUE", code, p, "TOTAL", Decimal(over(code, p)),
                                  "EUR_M", src))
    return World(parents, restricted, fye, tuple(facts), costs)


def _within(month: Period, period: Period, fye: str) -> bool:
    if period.type.value == "FY":
        return True
    return any(month in parts for total, parts in time_relations(YEAR, fye)
               if total == period and len(parts) in (3, 6, 12) and parts[0].type.value == "M")


def reachable(world: World, glossary: Glossary) -> tuple[dict[tuple[str, Period], Decimal],
                                                          list[tuple[tuple[str, ...], Period]]]:
    """Every figure an uncleared chat can be shown: each cell of each visible unit and period
    as `query_metric` answers it, and each named sum of visible units a withheld total adds."""
    channel = StructuredChannel(names=NameIndex(glossary), facts=MemoryFacts(list(world.facts)))
    shown: dict[tuple[str, Period], Decimal] = {}
    sums: list[tuple[tuple[str, ...], Period]] = []
    for code in world.parents:
        if code in world.restricted:
            continue
        for p in year_periods(YEAR, world.fiscal_year_end):
            r = channel.query_metric("REVENUE", code, p, "TOTAL", cleared=False,
                                     reference_date=REF)
            if r.fact is not None:
                assert r.fact.entity == code and r.fact.value == _stored(world, code, p)
                shown[(code, p)] = r.fact.value
            elif isinstance(r, WithheldTotal) and r.together is not None:
                assert not {f.entity for f in r.members} & world.restricted
                sums.append((tuple(f.entity for f in r.members), p))
    return shown, sums


def _stored(world: World, code: str, p: Period) -> Decimal | None:
    return next((f.value for f in world.facts if f.entity == code and f.period == p), None)


def disclosed(world: World) -> list[tuple[str, Period]]:
    """The restricted cells (stored or not) an uncleared chat can work out exactly."""
    glossary = world.glossary()
    shown, sums = reachable(world, glossary)
    k = Knowledge()
    periods = year_periods(YEAR, world.fiscal_year_end)
    cost_cells = {p: (COSTS, p) for p in periods}
    for code in [*world.parents, COSTS]:
        for total, parts in time_relations(YEAR, world.fiscal_year_end):  # a flow
            k.add_sum((code, total), [(code, q) for q in parts])
    for code in world.parents:
        kids = world.children(code)
        if not kids:
            continue
        for p in periods:
            extra = [cost_cells[p]] if code == GROUP and world.costs else []
            # total = units - costs: written as units = total + costs
            coefficients: dict[Any, int] = {(code, p): 1}
            for kid in kids:
                coefficients[(kid, p)] = -1
            for c in extra:
                coefficients[c] = 1
            k.add(coefficients)
    for cell in shown:
        k.shown(cell)
    for members, p in sums:
        k.add({**{(m, p): 1 for m in members}})  # a named sum: one more equation
    return [(code, p) for code in world.restricted for p in periods if k.determined((code, p))]
