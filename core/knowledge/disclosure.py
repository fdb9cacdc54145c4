"""Disclosure control: which totals would reveal a restricted member, and the checker.

The glossary says how totals relate to members (an entity is the sum of the entities whose
`parent` it is; a channel total is the sum of its member channels, [relations]), and, for flows
(core.knowledge.metric_kind), how periods relate: a fiscal year is the sum of its halves,
quarters and months (core.knowledge.period_relations). A total whose members include a
restricted one reveals that member to anyone who sees the total and the other members: total -
sum(public members) = the restricted figure. This is statistical disclosure control's secondary
suppression (as in tau-ARGUS), kept to exact additive relations.

The policy is the glossary's `[scope] disclosure`:
- "protect" (the default): in a chat not cleared for restricted data such a total is withheld,
  with the reason, and so is every period of its fiscal year that would give it back by sums
  and differences (core.figures.disclosed); never replaced by another figure under its name;
- "disclose": the totals are published anyway; answers say a member is not shown.

`find_disclosures` is the checker: pure, over the glossary and the facts, it lists every
restricted figure an uncleared chat can compute exactly, with the cells that disclose it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from typing import TYPE_CHECKING, TypeAlias

from core.contracts.types import Fact, Period
from core.knowledge.metric_kind import RATE, adds_over_time, metric_kind
from core.knowledge.period_relations import fiscal_year, related_periods, time_relations

if TYPE_CHECKING:
    from core.knowledge.glossary import Glossary

PROTECT = "protect"
DISCLOSE = "disclose"

Cell = tuple[str, str, Period, str]  # metric, entity, period, channel


def policy(glossary: Glossary) -> str:
    """The knowledge base's declared policy ("protect" when the glossary says nothing)."""
    return getattr(glossary, "disclosure", PROTECT) or PROTECT


def additive(glossary: Glossary, metric: str) -> bool:
    """A stored metric whose totals are sums of members (revenue, not a margin)."""
    return (metric in glossary.metrics and metric not in getattr(glossary, "non_additive", ())
            and metric_kind(glossary, metric) != RATE)


def entity_members(glossary: Glossary, entity: str) -> list[str]:
    """The entities that add up to `entity` (its children), in glossary order."""
    return list(_children(glossary).get(entity, ()))


_CHILDREN: dict[int, tuple[object, dict[str, tuple[str, ...]]]] = {}


def _children(glossary: Glossary) -> dict[str, tuple[str, ...]]:
    """Each entity's children, worked out once per glossary: asked for every fact a report
    checks, a scan of all entities each time made a million facts of 500 units take hours."""
    entities = glossary.entities
    held = _CHILDREN.get(id(entities))
    if held is not None and held[0] is entities:
        return held[1]
    kids: dict[str, list[str]] = {}
    for code, term in entities.items():
        if term.parent:
            kids.setdefault(term.parent, []).append(code)
    out = {parent: tuple(codes) for parent, codes in kids.items()}
    if len(_CHILDREN) > 8:  # a reloaded glossary replaces the old ones
        _CHILDREN.clear()
    _CHILDREN[id(entities)] = (entities, out)
    return out


def channel_members(glossary: Glossary, channel: str) -> tuple[str, ...]:
    return tuple(getattr(glossary, "channel_totals", {}).get(channel, ()))


def _restricted(glossary: Glossary, dim: str, code: str) -> bool:
    table = glossary.entities if dim == "entity" else glossary.channels
    term = table.get(code)
    return bool(term is not None and term.restricted)


def hides_member(glossary: Glossary, dim: str, code: str, _seen: frozenset[str] = frozenset()
                 ) -> bool:
    """Whether this total has a restricted member at any depth (Group > Region > Labs)."""
    if code in _seen:
        return False
    members = entity_members(glossary, code) if dim == "entity" else channel_members(glossary, code)
    return any(_restricted(glossary, dim, m) or hides_member(glossary, dim, m, _seen | {code})
               for m in members)


def protects(glossary: Glossary, metric: str, entity: str, channel: str, *, cleared: bool
             ) -> bool:
    """Whether this cell, asked from a chat with this clearance, may have to be withheld (the
    policy and the relations say so; `protection` decides from the figures)."""
    if cleared or policy(glossary) != PROTECT or not additive(glossary, metric):
        return False
    return hides_member(glossary, "entity", entity) or hides_member(glossary, "channel", channel)


Lookup = Callable[[str, str, Period, str], "Decimal | None"]  # a stored value, or None
Periods = Callable[[str, str, str], Iterable[Period]]  # the stored periods of a series
Finding: TypeAlias = "tuple[Cell, ...] | None"  # what `protection` says of one cell


def protection(glossary: Glossary, lookup: Lookup, cell: Cell,
               _seen: frozenset[Cell] = frozenset(), *, periods: Periods | None = None
               ) -> tuple[Cell, ...] | None:
    """None when this total may be shown as stored; else it is withheld, and the tuple holds
    the public member cells whose figures the visible units' own line may add up (empty when
    it is withheld through a related period).

    A total is withheld through a relation (entity children, or channel members) with a member
    that is restricted or itself withheld, unless the figures rule an exact inference out: every
    member is stored and the total is not their sum (EBITDA after group costs: the total minus
    the public members is not the restricted figure). A restricted member with no figure, or a
    public one with none, still protects it: the missing figure may be worked out from other
    periods (a year from its quarters). For a flow, a total shown as stored is withheld all the
    same when a stored period of its fiscal year is withheld: the year minus the other
    quarters would give that quarter back.

    `periods` (the fact store's stored periods of a metric, entity and channel) lets the check
    ask once per series instead of once per cell; the answer is the same without it."""
    if cell in _seen:
        return None
    # one question asks each cell once (a store may query)
    memo = lookup if isinstance(lookup, _Memo) else _Memo(lookup, periods)
    return memo.once(memo.withheld, cell, lambda: _withheld(glossary, memo, cell, _seen))


def _withheld(glossary: Glossary, lookup: _Memo, cell: Cell, _seen: frozenset[Cell]
              ) -> tuple[Cell, ...] | None:
    found = _by_members(glossary, lookup, cell, _seen)
    if found is not None:
        return found
    metric, entity, period, channel = cell
    if adds_over_time(glossary, metric):
        fye = getattr(glossary, "fiscal_year_end", "12-31")
        for other in lookup.among_stored(metric, entity, channel,
                                         related_periods(period, fye)):
            near = (metric, entity, other, channel)
            if _by_members(glossary, lookup, near, _seen | {cell}) is not None:
                return ()  # a stored period of its year is withheld: so is this one
    return None


class _Memo:
    """A lookup that asks the store once per cell (or once per series, given its stored
    periods), and remembers which spaces of cells hold no figure and what each cell's check
    found.

    A cell's answer does not depend on the path that asked for it: every step goes down a
    relation (to members: a smaller entity or channel) or, once per level, sideways in time,
    so no path meets a cell twice (parent cycles are glossary errors). Remembering it per cell
    makes one question's check polynomial: walked as a tree, a group's year total over units
    and channels two deep, every cell stored, took four minutes (19 periods per level,
    four levels)."""

    def __init__(self, lookup: Lookup, periods: Periods | None = None) -> None:
        self._lookup = lookup
        self._periods = periods
        self._values: dict[Cell, Decimal | None] = {}
        self._series: dict[tuple[str, str, str], frozenset[Period]] = {}
        self.free: dict[object, bool] = {}
        self.withheld: dict[Cell, Finding] = {}
        self.by_members: dict[Cell, Finding] = {}

    def __call__(self, metric: str, entity: str, period: Period, channel: str
                 ) -> Decimal | None:
        key = (metric, entity, period, channel)
        if key not in self._values:
            if self._periods is not None and period not in self.stored(metric, entity, channel):
                self._values[key] = None  # not among the series' periods: not stored
            else:
                self._values[key] = self._lookup(*key)
        return self._values[key]

    @staticmethod
    def once(table: dict[Cell, Finding], cell: Cell, find: Callable[[], Finding]) -> Finding:
        """The cell's finding in `table`, found the first time it is asked."""
        if cell in table:
            return table[cell]
        found = table[cell] = find()
        return found

    def stored(self, metric: str, entity: str, channel: str) -> frozenset[Period]:
        """The series' stored periods (only with `periods`)."""
        key = (metric, entity, channel)
        if key not in self._series:
            assert self._periods is not None
            self._series[key] = frozenset(self._periods(metric, entity, channel))
        return self._series[key]

    def among_stored(self, metric: str, entity: str, channel: str,
                     periods: Iterable[Period]) -> list[Period]:
        """Those of `periods` that have a figure in this series, in the order given."""
        if self._periods is not None:
            have = self.stored(metric, entity, channel)
            return [p for p in periods if p in have]
        return [p for p in periods if self(metric, entity, p, channel) is not None]

    def any_stored(self, metric: str, entity: str, channel: str,
                   periods: frozenset[Period]) -> bool:
        if self._periods is not None:
            return not self.stored(metric, entity, channel).isdisjoint(periods)
        return any(self(metric, entity, p, channel) is not None for p in periods)


def _by_members(glossary: Glossary, lookup: _Memo, cell: Cell, _seen: frozenset[Cell]
                ) -> tuple[Cell, ...] | None:
    if cell in _seen:
        return None
    return lookup.once(lookup.by_members, cell,
                       lambda: _members_withheld(glossary, lookup, cell, _seen))


def _members_withheld(glossary: Glossary, lookup: _Memo, cell: Cell, _seen: frozenset[Cell]
                      ) -> tuple[Cell, ...] | None:
    metric, entity, period, channel = cell
    seen = _seen | {cell}
    options = (
        [(metric, kid, period, channel) for kid in entity_members(glossary, entity)],
        [(metric, entity, period, m) for m in channel_members(glossary, channel)],
    )
    for dim, members in zip(("entity", "channel"), options, strict=True):
        if not members:
            continue
        hidden = [m for m in members if _restricted(glossary, dim, _code(dim, m))]
        if dim == "channel" and not hidden and _free(glossary, lookup, members):
            continue  # no channel figure at all: these relations only restate the entities'
        masked = {m: protection(glossary, lookup, m, seen) for m in members if m not in hidden}
        if not hidden and all(v is None for v in masked.values()):
            continue
        values = [lookup(*m) for m in members]
        total = lookup(*cell)
        if total is not None and all(v is not None for v in values) and total != sum(
            (v for v in values if v is not None), Decimal(0)
        ):
            continue  # stored, and not a sum: the difference is not the restricted figure
        shown: list[Cell] = []
        for m in members:
            if m in hidden:
                continue
            inner = masked.get(m)
            shown += list(inner) if inner is not None else [m]
        return tuple(shown)
    return None


_BOUND = 2000  # cells a "nothing stored here" check may span; beyond it, not free


def _free(glossary: Glossary, lookup: _Memo, cells: list[Cell]) -> bool:
    """Whether none of these cells, nothing under them (entities, channels) and, for a flow,
    nothing in the other periods of their fiscal year is stored (bounded: a space of more
    than 2000 cells is not free, when in doubt). Channel cells that free are unknowns of the
    channel relations alone, and those relations, summed over the channels, only say the
    group is the sum of its units: the entity relation, already judged from the figures
    (EBITDA after central costs is not a sum, so it is shown as stored).

    The space is a product (entities under × channels under × the periods of the fiscal
    year), the same for every period of one year: it is asked once per year and series, not
    once per period and cell (a total's check asked it for each of its year's 19 periods)."""
    fye = getattr(glossary, "fiscal_year_end", "12-31")
    spaces: dict[frozenset[Period], set[tuple[str, str]]] = {}
    metric = cells[0][0] if cells else ""
    for m, entity, period, channel in cells:
        if m != metric:
            return _unstored(glossary, lookup, cells)  # not met: members share the metric
        pairs = spaces.setdefault(_period_space(glossary, metric, period, fye), set())
        pairs.update((e, c) for e in _under(glossary, "entity", entity)
                     for c in _under(glossary, "channel", channel))
    if len(spaces) != 1:
        return _unstored(glossary, lookup, cells)  # not met: members share the period
    [(periods, pairs)] = spaces.items()
    key = (metric, periods, frozenset(pairs))
    if key not in lookup.free:
        lookup.free[key] = len(periods) * len(pairs) <= _BOUND and not any(
            lookup.any_stored(metric, e, c, periods) for e, c in pairs)
    return lookup.free[key]


def _period_space(glossary: Glossary, metric: str, period: Period, fye: str
                  ) -> frozenset[Period]:
    """The periods a cell's figure relates to: itself, and for a flow its fiscal year's."""
    if not adds_over_time(glossary, metric):
        return frozenset((period,))
    return _year_space(period, fye)


@lru_cache(maxsize=4096)
def _year_space(period: Period, fye: str) -> frozenset[Period]:
    return frozenset((period, *related_periods(period, fye)))


def _under(glossary: Glossary, dim: str, code: str) -> list[str]:
    """`code` and everything under it in its dimension (members of members), each once."""
    out = [code]
    for code_ in out:
        kids = entity_members(glossary, code_) if dim == "entity" else channel_members(
            glossary, code_)
        out += [k for k in kids if k not in out]
    return out


def _unstored(glossary: Glossary, lookup: Lookup, cells: list[Cell]) -> bool:
    """`_free` cell by cell, for cells of more than one metric or period (no caller asks)."""
    seen: set[Cell] = set()
    todo = list(cells)
    fye = getattr(glossary, "fiscal_year_end", "12-31")
    while todo:
        cell = todo.pop()
        if cell in seen:
            continue
        seen.add(cell)
        if lookup(*cell) is not None or len(seen) > _BOUND:  # bounded: in doubt, not free
            return False
        metric, entity, period, channel = cell
        todo += [(metric, kid, period, channel) for kid in entity_members(glossary, entity)]
        todo += [(metric, entity, period, m) for m in channel_members(glossary, channel)]
        if adds_over_time(glossary, metric):
            todo += [(metric, entity, p, channel) for p in related_periods(period, fye)]
    return True


def series_periods(cells: Iterable[Cell]) -> Periods:
    """`periods` for `protection` over figures held in memory (a report, the checker)."""
    series: dict[tuple[str, str, str], set[Period]] = {}
    for metric, entity, period, channel in cells:
        series.setdefault((metric, entity, channel), set()).add(period)

    def periods(metric: str, entity: str, channel: str) -> Iterable[Period]:
        return series.get((metric, entity, channel), ())

    return periods


def _code(dim: str, cell: Cell) -> str:
    return cell[1] if dim == "entity" else cell[3]


def hidden_members(glossary: Glossary, dim: str, total: str, *, cleared: bool) -> list[str]:
    """The members of `total` this chat does not see (direct ones; for the 'not shown' line)."""
    if cleared:
        return []
    members = entity_members(glossary, total) if dim == "entity" else channel_members(glossary,
                                                                                       total)
    return [m for m in members if _restricted(glossary, dim, m)]


# --------------------------------------------------------------------------- the checker


@dataclass(frozen=True)
class Relation:
    """total = sum(members), for one metric, period and (entity or channel) slice."""

    total: Cell
    members: tuple[Cell, ...]


@dataclass(frozen=True)
class Disclosure:
    """A restricted figure an uncleared chat can compute exactly, and from which cells."""

    cell: Cell
    value: Decimal
    disclosing: tuple[Cell, ...]

    def describe(self) -> str:
        cells = ", ".join(cell_text(c) for c in self.disclosing)
        return (f"{cell_text(self.cell)} = {format(self.value, 'f')} can be computed by an "
                f"uncleared chat from {cells}")


def cell_text(cell: Cell) -> str:
    metric, entity, period, channel = cell
    return f"{metric} {entity} {period.code}" + ("" if channel == "TOTAL" else f" {channel}")


def relations(glossary: Glossary, facts: Iterable[Fact]) -> list[Relation]:
    """Every declared relation over the slices the fact table has (additive metrics only):
    members to totals, and, for flows, periods to their fiscal year."""
    slices = {(f.metric, f.period, f.entity, f.channel) for f in facts
              if additive(glossary, f.metric)}
    keys = {(m, p) for m, p, _, _ in slices}
    entities = {e for _, _, e, _ in slices} | set(glossary.entities)
    channels = {c for _, _, _, c in slices} | set(glossary.channels)
    out: list[Relation] = []
    for metric, period in sorted(keys, key=lambda k: (k[0], k[1].type.value, k[1].value)):
        for parent in glossary.entities:
            kids = entity_members(glossary, parent)
            if kids:
                for channel in channels:
                    out.append(Relation((metric, parent, period, channel),
                                        tuple((metric, k, period, channel) for k in kids)))
        for total, members in getattr(glossary, "channel_totals", {}).items():
            if members:
                for entity in entities:
                    out.append(Relation((metric, entity, period, total),
                                        tuple((metric, entity, period, m) for m in members)))
    return out + _over_time(glossary, slices)


def _over_time(glossary: Glossary, slices: set[tuple[str, Period, str, str]]) -> list[Relation]:
    """A flow's fiscal year = its halves = its quarters = its months, per entity and channel,
    for every fiscal year the fact table has a period of."""
    fye = getattr(glossary, "fiscal_year_end", "12-31")
    years = {(m, e, c, fiscal_year(p, fye)) for m, p, e, c in slices
             if adds_over_time(glossary, m)}
    out: list[Relation] = []
    for metric, entity, channel, year in sorted(years):
        for total, parts in time_relations(year, fye):
            out.append(Relation((metric, entity, total, channel),
                                tuple((metric, entity, p, channel) for p in parts)))
    return out


def _cell(f: Fact) -> Cell:
    return (f.metric, f.entity, f.period, f.channel)


def restricted_cell(glossary: Glossary, cell: Cell) -> bool:
    _, entity, _, channel = cell
    return _restricted(glossary, "entity", entity) or _restricted(glossary, "channel", channel)


def find_disclosures(glossary: Glossary, facts: Iterable[Fact],
                     policy_name: str | None = None) -> list[Disclosure]:
    """Every stored restricted figure that a chat not cleared for restricted data can compute
    exactly from the figures it sees, through the declared relations, under the policy
    (default: the glossary's). A relation discloses only where the stored figures satisfy it
    exactly; a figure found this way can disclose another in turn (solved to a fixed point)."""
    facts = list(facts)
    chosen = policy_name or policy(glossary)
    stored = {_cell(f): f.value for f in facts}

    def look(metric: str, entity: str, period: Period, channel: str) -> Decimal | None:
        return stored.get((metric, entity, period, channel))

    periods = series_periods(stored)
    known: dict[Cell, Decimal] = {}
    for cell, value in stored.items():
        if restricted_cell(glossary, cell):
            continue
        metric = cell[0]
        if (chosen == PROTECT and additive(glossary, metric)
                and protection(glossary, look, cell, periods=periods) is not None):
            continue  # withheld from an uncleared chat: no information of its own
        known[cell] = value
    why: dict[Cell, tuple[Cell, ...]] = {}
    rels = relations(glossary, facts)
    changed = True
    while changed:
        changed = False
        for rel in rels:
            cells = (rel.total, *rel.members)
            unknown = [c for c in cells if c not in known]
            if len(unknown) != 1 or unknown[0] not in stored:
                continue
            if any(c not in stored for c in cells):
                continue  # the relation needs every figure stored to hold exactly
            target = unknown[0]
            total, members = stored[rel.total], [stored[m] for m in rel.members]
            if total != sum(members, Decimal(0)):
                continue  # this slice does not add up: no exact inference
            known[target] = stored[target]
            why[target] = tuple(c for c in cells if c != target)
            changed = True
    found = [Disclosure(c, stored[c], why[c]) for c in why if restricted_cell(glossary, c)]
    return sorted(found, key=disclosure_order)


def disclosure_order(d: Disclosure) -> tuple[str, str, str, str, str]:
    """The order findings are listed in (metric, entity, period, channel)."""
    return (d.cell[0], d.cell[1], d.cell[2].type.value, d.cell[2].value, d.cell[3])
