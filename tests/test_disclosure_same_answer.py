"""The disclosure check's short cuts give the answer of the plain cell walk: asked once per
series (given its stored periods) and over the product of members and the fiscal year's
periods, `protection` withholds exactly what walking every related cell one by one withholds,
on random knowledge bases with nested units, nested channels (restricted ones included),
a flow and a stock, two fiscal years and missing cells."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.contracts.types import Period, PeriodType
from core.knowledge import disclosure
from core.knowledge.disclosure import Cell
from core.knowledge.glossary import Glossary, parse_glossary
from core.knowledge.period_relations import year_periods


@st.composite
def knowledge(draw: Any) -> tuple[Glossary, dict[Cell, Decimal], list[Cell]]:
    """A glossary (units two deep, channels two deep, some restricted) and stored figures."""
    parents: dict[str, str | None] = {"G": None}
    for i in range(draw(st.integers(1, 3))):
        parents[f"U{i}"] = "G"
        for j in range(draw(st.integers(0, 2))):
            parents[f"U{i}_{j}"] = f"U{i}"
    leaves = [c for c in parents if c not in parents.values()]
    restricted = set(draw(st.lists(st.sampled_from(leaves), max_size=2, unique=True)))
    nested = draw(st.booleans())
    channels = ["ONLINE", "RETAIL", *(["APP", "WEB"] if nested else [])]
    hidden = draw(st.sampled_from([None, "RETAIL", *(["WEB"] if nested else [])]))
    fye = draw(st.sampled_from(["12-31", "03-31", "06-30"]))
    lines = ["[scope]", 'default_entity = "G"', f'fiscal_year_end = "{fye}"',
             "[metrics.REVENUE]", 'names = ["Revenue"]', 'unit = "EUR_M"',
             "[metrics.STAFF]", 'names = ["Staff"]', 'unit = "FTE"', 'kind = "stock"']
    for code, parent in parents.items():
        lines += [f"[entities.{code}]", f'names = ["Unit {code}"]']
        lines += [f'parent = "{parent}"'] if parent else []
        lines += ["restricted = true"] if code in restricted else []
    for code in channels:
        lines += [f"[channels.{code}]", f'names = ["{code.lower()}"]']
        lines += ["restricted = true"] if code == hidden else []
    relations = '{ TOTAL = ["ONLINE", "RETAIL"]' + (
        ', ONLINE = ["APP", "WEB"] }' if nested else " }")
    lines += ["[relations]", f"channels = {relations}"]
    glossary = parse_glossary("\n".join(lines) + "\n")
    periods = [p for y in (2024, 2025) for p in year_periods(y, fye)]
    cells = [(m, e, p, c) for m in ("REVENUE", "STAFF") for e in parents
             for c in ("TOTAL", *channels) for p in periods]
    kinds = draw(st.sets(st.sampled_from(["FY", "HY", "Q", "M"]), min_size=1))
    # of every ten cells of those kinds, this many stored (a fuller table makes the plain
    # tree walk this test compares with take minutes: see the test below)
    keep = draw(st.integers(2, 6))
    pick = draw(st.randoms(use_true_random=False))
    stored = {cell: Decimal(pick.randint(1, 99)) for cell in cells
              if cell[2].type.value in kinds and pick.randrange(10) < keep}
    checked = set(year_periods(2025, fye))  # the later year is checked; both are stored
    return glossary, stored, [cell for cell in cells if cell[2] in checked]


def _walk(glossary: Any, lookup: Any, cells: list[Cell]) -> bool:
    return disclosure._unstored(glossary, lookup, cells)


class _Forgets(dict):  # type: ignore[type-arg]
    """A memo that remembers nothing: the check walked as a tree, every path on its own."""

    def __contains__(self, key: object) -> bool:
        return False

    def __setitem__(self, key: object, value: object) -> None:
        pass

    def __getitem__(self, key: object) -> Any:
        raise KeyError(key)


class _TreeWalk(disclosure._Memo):
    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.withheld, self.by_members, self.free = _Forgets(), _Forgets(), _Forgets()


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(knowledge())
def test_the_short_cuts_withhold_what_the_cell_walk_withholds(
        world: tuple[Glossary, dict[Cell, Decimal], list[Cell]]) -> None:
    glossary, stored, cells = world

    def look(m: str, e: str, p: Period, c: str) -> Decimal | None:
        return stored.get((m, e, p, c))

    periods = disclosure.series_periods(stored)
    fast = [disclosure.protection(glossary, look, cell, periods=periods) for cell in cells]
    per_cell = [disclosure.protection(glossary, look, cell) for cell in cells]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(disclosure, "_free", _walk)
        patch.setattr(disclosure, "_Memo", _TreeWalk)
        walked = [disclosure.protection(glossary, look, cell) for cell in cells]
    assert fast == per_cell == walked


def test_a_total_over_a_full_table_is_checked_once_per_cell() -> None:
    """A group's year total over units and channels two deep, every cell of two years stored:
    walked as a tree the check took four minutes (19 periods a level, four levels) and held
    the bot; each cell's check is now made once per question."""
    lines = ["[scope]", 'default_entity = "G"', "[metrics.REVENUE]", 'names = ["Revenue"]',
             'unit = "EUR_M"', "[entities.G]", 'names = ["Group"]']
    units = [f"U{i}" for i in range(3)]
    kids = [f"{u}_{j}" for u in units for j in range(2)]
    for code in units:
        lines += [f"[entities.{code}]", f'names = ["Unit {code}"]', 'parent = "G"']
    for code in kids:
        lines += [f"[entities.{code}]", f'names = ["Unit {code}"]', f'parent = "{code[:2]}"']
        lines += ["restricted = true"] if code == "U0_1" else []
    for code in ("ONLINE", "RETAIL", "APP", "WEB"):
        lines += [f"[channels.{code}]", f'names = ["{code.lower()}"]']
        lines += ["restricted = true"] if code == "WEB" else []
    lines += ["[relations]",
              'channels = { TOTAL = ["ONLINE", "RETAIL"], ONLINE = ["APP", "WEB"] }']
    glossary = parse_glossary("\n".join(lines) + "\n")
    entities = ["G", *units, *kids]
    channels = ["TOTAL", "ONLINE", "RETAIL", "APP", "WEB"]
    periods = [p for y in (2024, 2025) for p in year_periods(y, "12-31")]
    # no sums hold: every unit's figure stands on its own, so no total is withheld by members
    stored = {("REVENUE", e, p, c): Decimal(7 * i + 1)
              for i, (e, p, c) in enumerate((e, p, c) for e in entities for p in periods
                                            for c in channels)}
    asked: list[Cell] = []
    checked = disclosure._members_withheld

    def counted(glossary: Any, lookup: Any, cell: Cell, seen: Any) -> Any:
        asked.append(cell)
        return checked(glossary, lookup, cell, seen)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(disclosure, "_members_withheld", counted)
        found = disclosure.protection(glossary, lambda *cell: stored.get(cell),
                                      ("REVENUE", "G", Period(PeriodType.FY, "2025"), "TOTAL"),
                                      periods=disclosure.series_periods(stored))
    assert found is None  # shown as stored: the group's figure is not the units' sum
    assert len(asked) == len(set(asked)) <= len(entities) * len(channels) * 19
