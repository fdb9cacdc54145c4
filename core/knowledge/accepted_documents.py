"""`[disclosure] accept`: public documents allowed to state a figure the policy withholds.

A shareholder letter that states the group's revenue, published on purpose, is not a leak to
fix: the operator accepts it, and `ricorda check` stops listing it (core.documents
.stated_figures finds such passages). An entry is a path relative to the glossary file
("letters/ceo_2025.md", like a [[documents]] path) or a document key ("orbis/ceo_2025.md").
An accepted document's passages are quoted to every chat, as any public passage is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.contracts.errors import ConfigError


@dataclass(frozen=True)
class AcceptedDocuments:
    entries: tuple[str, ...] = ()
    paths: frozenset[Path] = frozenset()  # the entries resolved against the glossary's folder

    def accepts(self, *, key: str | None = None, path: Path | None = None) -> bool:
        """Whether the document with this key (source/rel) or file path is accepted."""
        if key is not None and key in self.entries:
            return True
        return path is not None and path.resolve() in self.paths


def parse_accepted(raw: Any, base_dir: Path,
                   fail: Callable[[str, str], ConfigError]) -> AcceptedDocuments:
    """The glossary's `[disclosure]` table (only `accept` for now)."""
    if raw is None:
        return AcceptedDocuments()
    if not isinstance(raw, dict):
        raise fail("disclosure", 'must be a table like accept = ["letters/ceo_2025.md"]')
    unknown = sorted(set(raw) - {"accept"})
    if unknown:
        raise fail(f"disclosure.{unknown[0]}", "unknown key (expected accept)")
    entries = raw.get("accept", [])
    if not isinstance(entries, list) or not all(isinstance(e, str) and e.strip()
                                                for e in entries):
        raise fail("disclosure.accept",
                   'must be a list of document paths, like ["letters/ceo_2025.md"]')
    clean = tuple(e.strip().removeprefix("./") for e in entries)
    return AcceptedDocuments(clean, frozenset((base_dir / e).resolve() for e in clean))
