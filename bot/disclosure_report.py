"""Restricted figures an uncleared chat can compute: reported by `ricorda ingest` and `check`.

The checker itself is core's (core.knowledge.disclosure.find_disclosures, pure); this module
only turns its findings into the lines an operator reads, with what to do about them.
"""

from __future__ import annotations

from collections.abc import Iterable

from core.contracts.types import Fact
from core.knowledge.disclosure import DISCLOSE, find_disclosures, policy
from core.knowledge.glossary import Glossary


def disclosure_lines(glossary: Glossary, facts: Iterable[Fact]) -> list[str]:
    """One line per restricted figure computable exactly from what an uncleared chat sees,
    naming the disclosing cells, and the policy's consequence; [] when there is none."""
    found = find_disclosures(glossary, list(facts))
    if not found:
        return []
    head = (f"disclosure: {len(found)} restricted figure(s) can be computed exactly by a chat "
            f"not cleared for restricted data (policy \"{policy(glossary)}\")")
    fix = ("  to protect them set [scope] disclosure = \"protect\" in the glossary"
           if policy(glossary) == DISCLOSE else
           "  declare the relation in [relations] or mark the disclosing figures restricted")
    return [head, *(f"  {d.describe()}" for d in found), fix]
