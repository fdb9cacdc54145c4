"""The glossary text kept in the database, so every replica sharing it reads the same glossary.

The store holds text, not a parsed Glossary: parsing and validation belong to
core.knowledge.glossary,
and keeping the exact TOML lets anyone see (and diff) what was loaded.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

from core.contracts.errors import StorageError
from storage.kb_version import GLOSSARY, bump_kb_version
from storage.tables import GlossaryRow, utcnow
from storage.upsert import upsert_statement

_TABLE = GlossaryRow.__table__  # type: ignore[attr-defined]
_ROW_ID = 1


@dataclass(frozen=True)
class StoredGlossary:
    text: str
    source_path: str
    sha256: str
    loaded_at: dt.datetime


def glossary_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class SqlGlossaryStore:
    def __init__(self, engine: Engine, *, clock: Callable[[], dt.datetime] = utcnow) -> None:
        self._engine = engine
        self._clock = clock
        self._upsert = upsert_statement(
            engine.dialect.name, _TABLE, ("id",), ("text", "source_path", "sha256", "loaded_at")
        )

    def save(self, text: str, source_path: str = "") -> bool:
        """Store the glossary text; returns False (and writes nothing) when it is unchanged."""
        digest = glossary_sha256(text)
        current = self.load()
        if current is not None and current.sha256 == digest and current.source_path == source_path:
            return False
        params = {
            "id": _ROW_ID,
            "text": text,
            "source_path": source_path,
            "sha256": digest,
            "loaded_at": self._clock(),
        }
        try:
            with self._engine.begin() as conn:
                conn.execute(self._upsert, params)
                bump_kb_version(conn, GLOSSARY)  # commits with the text: replicas reload it
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot save the glossary: {exc.__class__.__name__}") from exc
        return True

    def load(self) -> StoredGlossary | None:
        """The stored glossary, or None before the first `ricorda ingest glossary.toml`."""
        try:
            with self._engine.connect() as conn:
                row = conn.execute(select(_TABLE).where(_TABLE.c.id == _ROW_ID)).mappings().first()
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot read the glossary: {exc.__class__.__name__}") from exc
        if row is None:
            return None
        return StoredGlossary(row["text"], row["source_path"], row["sha256"], row["loaded_at"])
