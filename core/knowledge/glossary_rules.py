"""Rules a glossary must satisfy as a whole, checked before it is stored.

Each rule guards a failure a user would otherwise meet only at question time: a fiscal year
end that is not a date crashes every question about periods; a restricted default entity is
shown to every chat in "Assumed: ..."; a name claimed by two codes silently answers about
whichever comes first; an entity whose name contains a competitor's is refused by the security
gate; a parent cycle has no top. Every problem is returned with the dotted key that holds it,
so the parser reports file, line and reason for each.

The rules read the glossary through the shapes below rather than importing
`core.knowledge.glossary`, which runs them: the parser depends on its rules, never the reverse
(no import circle, not even one for type checking).
"""

from __future__ import annotations

import calendar
from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from core.knowledge.formulas import Formula
    from core.knowledge.unit_kinds import UnitKind


class Term(Protocol):
    """What the rules read of a glossary term (core.knowledge.glossary.Term)."""

    @property
    def code(self) -> str: ...
    @property
    def names(self) -> tuple[str, ...]: ...
    @property
    def forms(self) -> tuple[str, ...]: ...
    @property
    def unit(self) -> str: ...
    @property
    def parent(self) -> str | None: ...
    @property
    def restricted(self) -> bool: ...


class Derived(Protocol):
    @property
    def term(self) -> Term: ...
    @property
    def formula(self) -> Formula: ...


class Glossary(Protocol):
    """What the rules read of a whole glossary (core.knowledge.glossary.Glossary)."""

    @property
    def default_entity(self) -> str: ...
    @property
    def fiscal_year_end(self) -> str: ...
    @property
    def metrics(self) -> Mapping[str, Term]: ...
    @property
    def entities(self) -> Mapping[str, Term]: ...
    @property
    def channels(self) -> Mapping[str, Term]: ...
    @property
    def competitors(self) -> tuple[str, ...]: ...
    @property
    def derived(self) -> Mapping[str, Derived]: ...
    @property
    def unit_kinds(self) -> Mapping[str, UnitKind]: ...

Problem = tuple[str, str]  # (dotted key, reason)

_TABLES = ("metrics", "entities", "channels")


def glossary_problems(glossary: Glossary) -> list[Problem]:
    """Every whole-glossary problem, in a stable order (empty: the glossary is sound)."""
    return [
        *fiscal_year_end_problems(glossary),
        *default_entity_problems(glossary),
        *name_clash_problems(glossary),
        *competitor_name_problems(glossary),
        *parent_cycle_problems(glossary),
        *derived_unit_problems(glossary),
    ]


def fiscal_year_end_problems(glossary: Glossary) -> list[Problem]:
    """The month-day must exist (02-29 does in leap years and means "end of February")."""
    month, day = (int(x) for x in glossary.fiscal_year_end.split("-"))
    longest = calendar.monthrange(2000, month)[1]  # 2000 is a leap year
    if day > longest:
        return [
            (
                "scope.fiscal_year_end",
                f"'{glossary.fiscal_year_end}' is not a day of the year "
                f"({calendar.month_name[month]} has {longest} days at most)",
            )
        ]
    return []


def default_entity_problems(glossary: Glossary) -> list[Problem]:
    term = glossary.entities.get(glossary.default_entity)
    if term is not None and term.restricted:
        return [
            (
                "scope.default_entity",
                f"'{term.code}' is restricted: a question naming no entity would show its "
                "data to every chat; choose an entity that is not restricted",
            )
        ]
    return []


def name_clash_problems(glossary: Glossary) -> list[Problem]:
    """A name (or code) used by two codes, compared as questions are matched: folded and
    squashed (core.knowledge.comparable: case, look-alikes, spacing and punctuation ignored). The
    first
    claimant keeps it; the second is reported. The built-in channel TOTAL ("total") counts as
    declared first."""
    from core.knowledge.comparable import squash as fold  # the key names are matched on

    owner: dict[str, str] = {}
    problems: list[Problem] = []
    for table, code, term in _members(glossary):
        mine = f"{table}.{code}"
        named = [*((n, f"{mine}.names") for n in term.names), (code, mine)]
        for name, key in [*named, *((n, f"{mine}.forms") for n in term.forms)]:
            folded = fold(name)
            first = owner.setdefault(folded, mine)
            if first != mine:
                problems.append(
                    (key, f"'{name}' is also a name of {first}: a question naming it would "
                          "be ambiguous (names are compared ignoring case and spacing)")
                )
    return problems


def competitor_name_problems(glossary: Glossary) -> list[Problem]:
    """A member's name containing a competitor's name (spaces ignored, as the security gate
    matches them) would make every question naming it a refusal."""
    competitors = [(c, _squash(c)) for c in glossary.competitors]
    problems: list[Problem] = []
    for table, code, term in _members(glossary):
        named = [*((n, f"{table}.{code}.names") for n in term.names), (code, "")]
        for name, key in [*named, *((n, f"{table}.{code}.forms") for n in term.forms)]:
            for competitor, squashed in competitors:
                if squashed and squashed in _squash(name):
                    problems.append(
                        (key or f"{table}.{code}",
                         f"'{name}' contains the competitor name '{competitor}': every "
                         "question naming it would be refused")
                    )
    return problems


def parent_cycle_problems(glossary: Glossary) -> list[Problem]:
    """Following `parent` from any entity must end at an entity without one."""
    problems: list[Problem] = []
    reported: set[str] = set()
    for start in sorted(glossary.entities):
        chain: list[str] = []
        code: str | None = start
        while code is not None and code in glossary.entities and code not in chain:
            chain.append(code)
            code = glossary.entities[code].parent
        if code is None or code not in chain:
            continue  # reaches a top (an unknown parent is reported by the parser)
        cycle = chain[chain.index(code):]
        if reported.intersection(cycle):
            continue
        reported.update(cycle)
        first = min(cycle)
        turn = cycle.index(first)
        ordered = [*cycle[turn:], *cycle[:turn], first]
        reason = (
            "an entity cannot be its own parent"
            if len(cycle) == 1
            else "parents form a cycle: " + " -> ".join(ordered)
        )
        problems.append((f"entities.{first}.parent", reason))
    return problems


def derived_unit_problems(glossary: Glossary) -> list[Problem]:
    """A derived metric's declared unit must be what its inputs' units and scale give
    (core.knowledge.unit_kinds): EBITDA / revenue without `scale = 100` is not a PCT."""
    from core.knowledge.unit_kinds import formula_unit_problem

    problems: list[Problem] = []
    for code, derived in glossary.derived.items():
        formula = derived.formula
        left, right = (glossary.metrics[c].unit for c in formula.inputs)
        problem = formula_unit_problem(
            formula.op, formula.inputs, (left, right), formula.scale, derived.term.unit,
            glossary.unit_kinds,
        )
        if problem:
            where = "scale" if "set scale" in problem else "unit"
            problems.append((f"derived.{code}.{where}", problem))
    return problems


def _members(glossary: Glossary) -> list[tuple[str, str, Term]]:
    """(table, code, term) in matching order, the built-in TOTAL channel first, derived
    metrics last."""
    out: list[tuple[str, str, Term]] = []
    total = glossary.channels.get("TOTAL")
    if total is not None:
        out.append(("channels", "TOTAL", total))
    for table in _TABLES:
        terms: Mapping[str, Term] = getattr(glossary, table)
        out += [(table, c, t) for c, t in terms.items() if (table, c) != ("channels", "TOTAL")]
    # derived metrics are asked for by name like stored ones: "EBITDA margin" must be theirs alone
    out += [("derived", c, d.term) for c, d in glossary.derived.items()]
    return out


def _squash(name: str) -> str:
    """The security gate's form of a name: folded (look-alikes, format characters), letters and
    digits only."""
    from core.knowledge.comparable import squash

    return squash(name)
