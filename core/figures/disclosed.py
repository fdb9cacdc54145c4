"""A withheld total: what a chat not cleared for restricted data gets instead of a total that
would reveal a restricted member.

Under the "protect" policy (core.knowledge.disclosure) such a total is withheld, with the
reason, in every output: never replaced by another quantity under its name. Where the metric
adds up over members, the answer may add, as its own line, what the visible units add up to,
named by those units ("Orbis China, Orbis Italia and Orbis Hong Kong together: €1,031.4M"),
never keyed as the total (in `ask --json` it sits under `disclosure.visible_members`, listing
the members' codes, never as a value of the total's entity). Anything computed from a withheld
total (a ratio, a sum, a growth) is withheld too.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from core.catalog.lookup import join_list, say
from core.contracts.ports import FactStore
from core.contracts.types import Fact, FactResult, FactStatus, Line, Period, Source
from core.knowledge.disclosure import (
    additive,
    channel_members,
    entity_members,
    hides_member,
    protection,
)

WITHHELD = "withheld"  # `reason` in ask --json: the total would reveal a restricted member


@dataclass(frozen=True)
class WithheldTotal(FactResult):
    """`not_found` with reason "withheld": `members` are the visible members' figures and
    `together` their exact sum, when the metric adds up over members and every visible member
    has a figure in one unit (else None: no sum is shown)."""

    members: tuple[Fact, ...] = ()
    together: Decimal | None = None
    unit: str = ""
    reason: str = WITHHELD
    masked_entity: bool = False  # withheld for a unit (else for a channel)

    @property
    def sources(self) -> list[Source]:
        return list(dict.fromkeys(f.source for f in self.members))

    def to_dict(self) -> dict[str, Any]:
        base = super().to_dict()
        base["reason"] = self.reason
        visible = None
        if self.together is not None:
            visible = {"members": [{"entity": f.entity, "channel": f.channel,
                                    "value_exact": format(f.value, "f"),
                                    "source": f.source.to_dict()} for f in self.members],
                       "sum_exact": format(self.together, "f"), "unit": self.unit}
        base["disclosure"] = {
            "policy": "protect", "withheld": True,
            "reveals": "undisclosed units" if self.masked_entity else "undisclosed channels",
            "visible_members": visible,
        }
        return base


def withheld_total(glossary: Any, facts: FactStore, metric: str, entity: str, period: Period,
                   channel: str) -> WithheldTotal | None:
    """None when the stored total may be shown (core.knowledge.disclosure.protection); else
    the total withheld, with what its visible members add up to when that is a sum."""

    def look(m: str, e: str, p: Period, c: str) -> Decimal | None:
        fact = facts.lookup(m, e, p, c)
        return fact.value if fact is not None else None

    cells = protection(glossary, look, (metric, entity, period, channel), periods=facts.periods)
    if cells is None:
        return None
    found = [facts.lookup(*c) for c in cells]
    members = tuple(f for f in found if f is not None)
    units = {f.unit for f in members}
    together = None
    if (members and len(members) == len(cells) and len(units) == 1
            and additive(glossary, metric)
            and sums_hold(glossary, facts, metric, entity, channel,
                          by_entity=any(c[1] != entity for c in cells),
                          by_channel=any(c[3] != channel for c in cells))):
        together = sum((f.value for f in members), Decimal(0))
    return WithheldTotal(FactStatus.NOT_FOUND, metric=metric, entity=entity, period=period,
                         channel=channel, members=members if together is not None else (),
                         together=together, unit=units.pop() if together is not None else "",
                         masked_entity=hides_member(glossary, "entity", entity))


def sums_hold(glossary: Any, facts: FactStore, metric: str, entity: str, channel: str, *,
              by_entity: bool = True, by_channel: bool = True,
              _seen: frozenset[str] = frozenset()) -> bool:
    """Whether `metric` adds up over this total's members in every period the data can tell:
    False when, in any stored period, the total (or a total between it and its members, a
    region) is stored with every member and is not their sum (EBITDA after central costs,
    headcount with head-office staff). Only the relations asked are judged (`by_entity`: the
    units; `by_channel`: the channels), so a group whose channels are a partial split still
    adds up over its units. The visible units' line is shown only for a sum that is the sum
    it claims, so a metric the glossary does not declare non-additive is judged by its
    figures in every period, not only in the one asked."""
    if entity in _seen:
        return True
    kids = entity_members(glossary, entity) if by_entity else []
    parts = channel_members(glossary, channel) if by_channel else ()
    if not kids and not parts:
        return True
    for period in facts.periods(metric, entity, channel):
        total = facts.lookup(metric, entity, period, channel)
        if total is None:
            continue
        for members in ([(metric, k, period, channel) for k in kids],
                        [(metric, entity, period, c) for c in parts]):
            found = [facts.lookup(*m) for m in members]
            if not members or any(f is None for f in found):
                continue  # a member missing: this period cannot tell
            if {f.unit for f in found if f is not None} != {total.unit}:
                continue  # stored in other units: not comparable exactly
            if sum((f.value for f in found if f is not None), Decimal(0)) != total.value:
                return False
    return all(sums_hold(glossary, facts, metric, k, channel, by_entity=True, by_channel=False,
                         _seen=_seen | {entity})
               for k in kids if entity_members(glossary, k))


def together_label(glossary: Any, r: WithheldTotal, language: str) -> str:
    """"Orbis China, Orbis Italia and Orbis Hong Kong together": the visible units, named."""
    entities = list(dict.fromkeys(f.entity for f in r.members))
    channels = list(dict.fromkeys(f.channel for f in r.members))
    if len(channels) == 1:  # units of one channel: the row says which channel
        names = [str(glossary.label("entity", e, language)) for e in entities]
    elif len(entities) == 1:  # channels of one unit: the table says which unit
        names = [str(glossary.label("channel", c, language)) for c in channels]
    else:
        names = [member_label(glossary, f.entity, f.channel, language) for f in r.members]
    return say("visible_together", language, members=join_list(names, language))


def member_label(glossary: Any, entity: str, channel: str, language: str) -> str:
    name = str(glossary.label("entity", entity, language))
    if channel and channel != "TOTAL":
        name += f" ({glossary.label('channel', channel, language)})"
    return name


def withheld_note(glossary: Any, results: list[FactResult], language: str) -> Line | None:
    """The line under a table or a computed answer that a total in it is withheld, and why."""
    held = [r for r in with_inputs(results) if withheld_input(r) is not None]
    if not held:
        return None
    totals = [w for w in (withheld_input(r) for r in held) if w is not None]
    names = list(dict.fromkeys(glossary.label("entity", w.entity or "", language)
                               for w in totals if w.masked_entity))
    texts = [say("withheld_note", language, name=join_list(names, language))] if names else []
    if any(not w.masked_entity for w in totals):
        texts.append(say("withheld_note_channel", language))
    return Line("disclosure", " ".join(texts))


def withheld_input(r: FactResult) -> WithheldTotal | None:
    """The withheld total `r` is, or rests on (a derived or arithmetic figure's inputs, at
    any depth): a figure computed from one is withheld too."""
    if isinstance(r, WithheldTotal):
        return r
    for inp in getattr(r, "inputs", ()):
        found = withheld_input(inp)
        if found is not None:
            return found
    for inp in getattr(r, "missing_rows", ()):
        found = withheld_input(inp)
        if found is not None:
            return found
    return None


def with_inputs(results: list[FactResult]) -> list[FactResult]:
    out: list[FactResult] = []
    for r in results:
        out.append(r)
        out += list(getattr(r, "inputs", ()))  # a derived figure's inputs
    return out
