"""What the disclosure policy does to this knowledge base, in the lines `ricorda ingest` and
`ricorda check` print: the totals it withholds from uncleared chats, and the restricted
figures an uncleared chat could still compute.

The checker itself is core's (core.knowledge.disclosure.find_disclosures, pure; the withheld
totals: core.knowledge.withheld); this module only turns its findings into the lines an
operator reads, with what to do about them. It asks them one (metric, fiscal year) slice at a
time (core.knowledge.fiscal_slices), which gives the same findings as the whole table, so a
fact table of millions of rows is reported in the memory of one slice; a glossary with nothing
restricted reads no fact at all.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from core.contracts.types import Fact
from core.knowledge.disclosure import (
    DISCLOSE,
    PROTECT,
    Disclosure,
    disclosure_order,
    find_disclosures,
    policy,
)
from core.knowledge.fiscal_slices import fiscal_slices, slice_order
from core.knowledge.glossary import Glossary
from core.knowledge.withheld import WithheldTally, any_withheld, withheld_figures


@dataclass(frozen=True)
class DisclosureReport:
    """The lines to print, and the withheld figures (for the public passages that state
    one, bot.kb.public_passages)."""

    lines: list[str] = field(default_factory=list)
    withheld: list[Fact] = field(default_factory=list)


def anything_restricted(glossary: Glossary) -> bool:
    """Whether any unit or channel is restricted: else no figure can be withheld or
    disclosed, and the report needs no fact."""
    return any(t.restricted for t in glossary.entities.values()) or any(
        getattr(t, "restricted", False) for t in glossary.channels.values())


def disclosure_report(glossary: Glossary, ordered: Iterable[Fact], *,
                      findings: bool = True, keep: bool = True) -> DisclosureReport:
    """The report over `ordered` (facts in core.knowledge.fiscal_slices.slice_order, e.g.
    storage.fact_store.SqlFactStore.ordered_facts), read slice by slice. `findings=False`
    leaves out the checker (only the withheld figures and their lines); `keep=False` only
    counts the withheld figures (`withheld` stays empty: no public passage to check them
    against, so they need not be held)."""
    if not anything_restricted(glossary):
        return DisclosureReport()
    fye = getattr(glossary, "fiscal_year_end", "12-31")
    protect = policy(glossary) == PROTECT and any_withheld(glossary)
    withheld: list[Fact] = []
    tally = WithheldTally()
    found: list[Disclosure] = []
    for part in fiscal_slices(ordered, fye):
        if protect:
            held = withheld_figures(glossary, part)
            tally.add(held)
            if keep:
                withheld += held
        if findings:
            found += find_disclosures(glossary, part)
    lines = _withheld_lines(tally)
    if findings:
        lines += finding_lines(glossary, sorted(found, key=disclosure_order), bool(lines))
    return DisclosureReport(lines, withheld)


def disclosure_lines(glossary: Glossary, facts: Iterable[Fact]) -> list[str]:
    """What is withheld (under "protect"), then one line per restricted figure computable
    exactly from what an uncleared chat sees, naming the disclosing cells, and the policy's
    consequence; [] when nothing is restricted. `facts` in any order (held, then sorted)."""
    if not anything_restricted(glossary):
        return []
    return disclosure_report(glossary, sorted(facts, key=slice_order)).lines


def finding_lines(glossary: Glossary, found: list[Disclosure], withheld: bool) -> list[str]:
    if not found:
        return (["disclosure: no restricted figure can be computed from what uncleared chats "
                 "see"] if withheld else [])
    head = (f"disclosure: {len(found)} restricted figure(s) can be computed exactly by a chat "
            f"not cleared for restricted data (policy \"{policy(glossary)}\")")
    fix = ("  to protect them set [scope] disclosure = \"protect\" in the glossary"
           if policy(glossary) == DISCLOSE else
           "  declare the relation in [relations] or mark the disclosing figures restricted")
    return [head, *(f"  {d.describe()}" for d in found), fix]


def withheld_lines(glossary: Glossary, facts: Iterable[Fact]) -> list[str]:
    """"disclosure: 4 totals (19 figures) are withheld from uncleared chats ...", one line per
    total and its periods; [] when the policy withholds nothing. `facts` in any order."""
    if not anything_restricted(glossary):
        return []
    ordered = sorted(facts, key=slice_order)
    return disclosure_report(glossary, ordered, findings=False).lines


def _withheld_lines(tally: WithheldTally) -> list[str]:
    if not tally.count:
        return []
    totals = tally.lines()
    return [f"disclosure: {len(totals)} total(s), {tally.count} figure(s), are withheld from "
            "uncleared chats (policy \"protect\": each would reveal a restricted member)",
            *(f"  {t}" for t in totals)]
