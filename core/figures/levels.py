"""Which entities a ranking, breakdown or count runs over when a question names none.

In a group > region > unit hierarchy, "which unit had the highest margin?" is about the units,
not the regions right under the group. So:

- a question that names a level of the glossary's `[levels]` (an entity's `level`, else the
  level at its depth, levels listed from the top down) ("which region …", "quale
  stabilimento …", "哪个工厂 …") runs over the entities of that level;
- otherwise, in a hierarchy deeper than one level under the default entity, it runs over the
  leaves (entities with no child the chat may see), and the answer says so;
- a flat hierarchy keeps its reading: the entities right under the default entity.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.catalog.lookup import say
from core.contracts.types import Assumption
from core.knowledge.glossary import Glossary

_CJK = re.compile(r"[\u3400-\u9fff]")


def asked_level(glossary: Glossary, text: str) -> str:
    """The level the question names ("" for none); entity names that hold a level's word
    ("North region") do not count."""
    if not glossary.levels:
        return ""
    folded = text.casefold()
    for term in glossary.entities.values():
        for name in term.names:
            folded = folded.replace(name.casefold(), " ")
    for code, names in glossary.levels.items():
        for name in sorted(names, key=len, reverse=True):
            word = re.escape(name.casefold())
            pattern = word if _CJK.search(name) else rf"(?<!\w){word}(?!\w)"
            if re.search(pattern, folded):
                return code
    return ""


def level_of(glossary: Glossary, code: str) -> str:
    """An entity's level: its `level`, or, when no entity names one, the level at its depth
    under the default entity ([levels] listed from the top down: region, then unit), so a
    glossary need not tag every entity."""
    term = glossary.entities[code]
    if term.level or any(t.level for t in glossary.entities.values()):
        return term.level
    depth, parent, seen = 0, term.parent, {code}
    while parent is not None and parent not in seen:
        depth += 1
        if parent == glossary.default_entity:
            break
        seen.add(parent)
        parent = glossary.entities[parent].parent if parent in glossary.entities else None
    else:
        return ""  # not under the default entity
    order = list(glossary.levels)
    return order[depth - 1] if 1 <= depth <= len(order) else ""


def level_members(
    glossary: Glossary, visible: Sequence[str], text: str, language: str
) -> tuple[list[str], Assumption | None] | None:
    """The members for `text` among the `visible` entity codes (the default entity left out)
    and the reading to state, or None when the hierarchy is flat and no level is named."""
    table = glossary.entities
    level = asked_level(glossary, text)
    if level:
        members = [c for c in visible if level_of(glossary, c) == level]
        if members:
            return members, None
    parents = {table[c].parent for c in visible}
    if all(table[c].parent == glossary.default_entity for c in visible):
        return None
    leaves = [c for c in visible if c not in parents]
    labels = ", ".join(glossary.label("entity", c, language) for c in leaves)
    note = say("assumed_members", language, value=labels)
    return leaves, Assumption("members", labels, "lowest_level", note)
