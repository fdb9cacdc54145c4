"""The glossary a process answers with, and its replacement when the stored one changes.

Everything built from a glossary (names, gates, clearance, the narrative channel) is rebuilt
when it is replaced; `generation` tells a holder of such a thing whether it is stale.
"""

from __future__ import annotations

import logging
from typing import Protocol

from core.contracts.errors import ConfigError
from core.knowledge.glossary import Glossary, parse_glossary

log = logging.getLogger("ricorda")

NO_KNOWLEDGE_BASE = (
    "no knowledge base yet: run `ricorda ingest glossary.toml facts.csv docs/` "
    "or `ricorda demo` first"
)


class StoredGlossaryText(Protocol):
    text: str
    source_path: str


class GlossaryTexts(Protocol):
    """Where the ingested glossary's text lives (storage.glossary_store)."""

    def load(self) -> StoredGlossaryText | None: ...


class CurrentGlossary:
    """The ingested glossary, read on first use; a clear error before the first ingest."""

    def __init__(self, store: GlossaryTexts) -> None:
        self._store = store
        self._glossary: Glossary | None = None
        self.generation = 0  # moves on every replacement

    @property
    def loaded(self) -> bool:
        return self._glossary is not None

    def get(self) -> Glossary:
        if self._glossary is None:
            stored = self._store.load()
            if stored is None:
                raise ConfigError(NO_KNOWLEDGE_BASE)
            self._glossary = parse_glossary(stored.text, source=stored.source_path or "glossary")
        return self._glossary

    def replace(self, glossary: Glossary | None = None) -> None:
        """Swap in `glossary` (None: the stored one, read on next use)."""
        self._glossary = glossary
        self.generation += 1

    def reload_if_valid(self) -> bool:
        """Swap in the stored glossary; True when it was replaced. One that does not parse
        (written by another version) is logged and the one in use kept, rather than failing
        every question; one never loaded is left for its first use to read."""
        if self._glossary is None:
            return False
        stored = self._store.load()
        if stored is None:
            return False
        try:
            fresh = parse_glossary(stored.text, source=stored.source_path or "glossary")
        except ConfigError as exc:
            log.error("the stored glossary does not load, keeping the one in use: %s", exc)
            return False
        self.replace(fresh)
        return True
