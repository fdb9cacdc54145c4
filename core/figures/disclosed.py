"""A protected total: the sum of a total's public members, answered in place of the total.

Under the "protect" policy (core.knowledge.disclosure) a chat not cleared for restricted data
never sees a total whose members include a restricted one: it would reveal that member as total
minus the members it sees. It gets the sum of the public members instead, exactly (Decimal),
labelled "excluding undisclosed units" and citing every member's row; when a public member has
no figure the sum would be partial, so the total is withheld with the reason, never shown short.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from core.catalog.lookup import join_list, say
from core.contracts.ports import FactStore
from core.contracts.types import Fact, FactResult, FactStatus, Line, Period, Source
from core.knowledge.disclosure import hides_member, protection

WITHHELD = "withheld"  # `reason` in ask --json: a public member's figure is missing


@dataclass(frozen=True)
class MaskedTotal(FactResult):
    """`found`: `fact` holds the sum of the public members (its source is the first member's;
    `sources` lists them all); `not_found` with reason "withheld": `missing` names the members
    (entity, channel) without a figure."""

    members: tuple[Fact, ...] = ()
    missing: tuple[tuple[str, str], ...] = ()
    reason: str = ""
    masked_entity: bool = False  # the entity total is masked (else only the channel total)

    @property
    def sources(self) -> list[Source]:
        return list(dict.fromkeys(f.source for f in self.members))

    def to_dict(self) -> dict[str, Any]:
        base = super().to_dict()
        if self.status is FactStatus.NOT_FOUND:
            base["reason"] = self.reason
        base["disclosure"] = {
            "policy": "protect",
            "excludes": "undisclosed units" if self.masked_entity else "undisclosed channels",
            "sum_of": [{"entity": f.entity, "channel": f.channel,
                        "value_exact": format(f.value, "f"), "source": f.source.to_dict()}
                       for f in self.members],
            "missing": [{"entity": e, "channel": c} for e, c in self.missing],
        }
        return base


def masked_total(glossary: Any, facts: FactStore, metric: str, entity: str, period: Period,
                 channel: str) -> MaskedTotal | None:
    """None when the stored total may be shown (core.knowledge.disclosure.protection); else
    the exact sum of the public members' figures, or `withheld` if they cannot be added."""

    def look(m: str, e: str, p: Period, c: str) -> Decimal | None:
        fact = facts.lookup(m, e, p, c)
        return fact.value if fact is not None else None

    cells = protection(glossary, look, (metric, entity, period, channel))
    if cells is None:
        return None
    members = [f for f in (facts.lookup(*c) for c in cells) if f is not None]
    missing = tuple((c[1], c[3]) for c, f in zip(cells, members, strict=False) if f is None)
    by_entity = hides_member(glossary, "entity", entity)
    units = {f.unit for f in members}
    if len(members) != len(cells) or not members or len(units) != 1:
        return MaskedTotal(FactStatus.NOT_FOUND, metric=metric, entity=entity, period=period,
                           channel=channel, members=tuple(members), missing=missing,
                           reason=WITHHELD, masked_entity=by_entity)
    value = sum((f.value for f in members), Decimal(0))
    fact = Fact(metric, entity, period, channel, value, units.pop(), members[0].source)
    return MaskedTotal(FactStatus.FOUND, fact=fact, metric=metric, entity=entity, period=period,
                       channel=channel, members=tuple(members), masked_entity=by_entity)


def masked_like(facts: FactStore, metric: str, template: MaskedTotal) -> MaskedTotal:
    """`metric` over the same public members as `template`: a ratio's two inputs cover the same
    units (EBITDA and revenue of the disclosed units), never a protected sum over a total."""
    assert template.period is not None
    cells = [(f.entity, f.channel) for f in template.members]
    found = [facts.lookup(metric, e, template.period, c) for e, c in cells]
    members = tuple(f for f in found if f is not None)
    missing = tuple(cell for cell, f in zip(cells, found, strict=True) if f is None)
    common: dict[str, Any] = {"metric": metric, "entity": template.entity,
                              "period": template.period, "channel": template.channel,
                              "members": members, "masked_entity": template.masked_entity}
    if missing or len({f.unit for f in members}) != 1:
        return MaskedTotal(FactStatus.NOT_FOUND, missing=missing, reason=WITHHELD, **common)
    value = sum((f.value for f in members), Decimal(0))
    fact = Fact(metric, template.entity or "", template.period, template.channel or "", value,
                members[0].unit, members[0].source)
    return MaskedTotal(FactStatus.FOUND, fact=fact, **common)


def masked_note(glossary: Any, results: list[FactResult], language: str) -> Line | None:
    """The line under an answer that used a protected total, naming what it is."""
    masked = [r for r in with_inputs(results)
              if isinstance(r, MaskedTotal) and r.status is FactStatus.FOUND]
    if not masked:
        return None
    names = list(dict.fromkeys(glossary.label("entity", r.entity or "", language)
                               for r in masked if r.masked_entity))
    texts = [say("masked_note", language, name=join_list(names, language))] if names else []
    if any(not r.masked_entity for r in masked):
        texts.append(say("masked_note_channel", language))
    return Line("disclosure", " ".join(texts))


def protected_input(r: FactResult) -> MaskedTotal | None:
    """The first protected total `r` is, or rests on (a derived or arithmetic figure's inputs,
    at any depth): a figure computed from one must say so, in its headline and its JSON."""
    if isinstance(r, MaskedTotal):
        return r if r.status is FactStatus.FOUND else None
    for inp in getattr(r, "inputs", ()):
        found = protected_input(inp)
        if found is not None:
            return found
    return None


def derived_disclosure(r: FactResult) -> dict[str, Any] | None:
    """The `disclosure` note of a figure computed from protected totals (ask --json), like a
    MaskedTotal's: which inputs are sums of the disclosed members only."""
    masked = [m for m in _masked_inputs(r)]
    if not masked:
        return None
    entity = any(m.masked_entity for m in masked)
    return {"policy": "protect",
            "excludes": "undisclosed units" if entity else "undisclosed channels",
            "protected_inputs": [{"metric_code": m.metric, "entity": m.entity,
                                  "period": m.period.value if m.period else None,
                                  "channel": m.channel} for m in masked]}


def _masked_inputs(r: FactResult) -> list[MaskedTotal]:
    out: list[MaskedTotal] = []
    for inp in getattr(r, "inputs", ()):
        if isinstance(inp, MaskedTotal):
            if inp.status is FactStatus.FOUND and inp not in out:
                out.append(inp)
        else:
            out += [m for m in _masked_inputs(inp) if m not in out]
    return out


def with_inputs(results: list[FactResult]) -> list[FactResult]:
    out: list[FactResult] = []
    for r in results:
        out.append(r)
        out += list(getattr(r, "inputs", ()))  # a derived figure's inputs
    return out
