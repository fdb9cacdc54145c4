"""The passages an uncleared chat is not quoted (core.documents.withheld_passages), kept in step
with the glossary and the fact table: rebuilt when either moves, so an ingest that changes a
figure or the policy changes what is held back at the next question."""

from __future__ import annotations

import threading

from sqlalchemy.engine import Engine

from core.contracts.errors import StorageError
from core.documents.withheld_passages import WithheldPassages
from core.knowledge.current_glossary import CurrentGlossary
from core.knowledge.withheld import any_withheld
from storage.fact_store import SqlFactStore


class WithheldGuard:
    """Called for each uncleared search: the current WithheldPassages, or None (nothing
    withheld: no fact is read)."""

    def __init__(self, glossary: CurrentGlossary, facts: SqlFactStore, engine: Engine) -> None:
        self._glossary, self._facts, self._engine = glossary, facts, engine
        self._lock = threading.Lock()
        self._built: tuple[tuple[int, int], WithheldPassages] | None = None

    def __call__(self) -> WithheldPassages | None:
        glossary = self._glossary.get()
        if not any_withheld(glossary):
            return None
        key = (self._glossary.generation, self._facts_version())
        with self._lock:
            if self._built is not None and self._built[0] == key:
                return self._built[1]
        # streamed one (metric, fiscal year) at a time: a large table is never held for it
        from bot.wiring.disclosure_report import disclosure_report

        withheld = disclosure_report(glossary, self._facts.ordered_facts(), findings=False)
        guard = WithheldPassages(glossary, withheld=withheld.withheld)
        with self._lock:
            self._built = (key, guard)
        return guard

    def _facts_version(self) -> int:
        from sqlalchemy.exc import SQLAlchemyError

        from storage.kb_version import FACTS, read_part

        try:
            with self._engine.connect() as conn:
                return read_part(conn, FACTS)[0]
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot read the facts version: {exc.__class__.__name__}") from exc
