"""What the disclosure policy does to this knowledge base, in the lines `ricorda ingest` and
`ricorda check` print: the totals it withholds from uncleared chats, and the restricted
figures an uncleared chat could still compute.

The checker itself is core's (core.knowledge.disclosure.find_disclosures, pure; the withheld
totals: core.knowledge.withheld); this module only turns its findings into the lines an
operator reads, with what to do about them.
"""

from __future__ import annotations

from collections.abc import Iterable

from core.contracts.types import Fact
from core.knowledge.disclosure import DISCLOSE, PROTECT, find_disclosures, policy
from core.knowledge.glossary import Glossary
from core.knowledge.withheld import any_withheld, withheld_figures, withheld_summary


def disclosure_lines(glossary: Glossary, facts: Iterable[Fact]) -> list[str]:
    """What is withheld (under "protect"), then one line per restricted figure computable
    exactly from what an uncleared chat sees, naming the disclosing cells, and the policy's
    consequence; [] when nothing is restricted."""
    facts = list(facts)
    lines = withheld_lines(glossary, facts)
    found = find_disclosures(glossary, facts)
    if not found:
        if lines:
            lines.append("disclosure: no restricted figure can be computed from what uncleared "
                         "chats see")
        return lines
    head = (f"disclosure: {len(found)} restricted figure(s) can be computed exactly by a chat "
            f"not cleared for restricted data (policy \"{policy(glossary)}\")")
    fix = ("  to protect them set [scope] disclosure = \"protect\" in the glossary"
           if policy(glossary) == DISCLOSE else
           "  declare the relation in [relations] or mark the disclosing figures restricted")
    return [*lines, head, *(f"  {d.describe()}" for d in found), fix]


def withheld_lines(glossary: Glossary, facts: list[Fact]) -> list[str]:
    """"disclosure: 4 totals (19 figures) are withheld from uncleared chats ...", one line per
    total and its periods; [] when the policy withholds nothing."""
    if policy(glossary) != PROTECT or not any_withheld(glossary):
        return []
    withheld = withheld_figures(glossary, facts)
    if not withheld:
        return []
    totals = withheld_summary(glossary, withheld)
    return [f"disclosure: {len(totals)} total(s), {len(withheld)} figure(s), are withheld from "
            "uncleared chats (policy \"protect\": each would reveal a restricted member)",
            *(f"  {t}" for t in totals)]
