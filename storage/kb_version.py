"""The knowledge-base version: what tells every process that facts, glossary or documents
changed.

Writers call `bump_kb_version(conn, part)` inside the transaction that changes the part, so the
version and the change commit together (PostgreSQL holds the row lock to commit, so concurrent
writers of one part are ordered). Readers call `SqlKbVersions.read()`: one primary-key scan of
a three-row table. A reader that reads the version *before* reloading a part never records a
version newer than what it loaded, so it can miss nothing.
"""

from __future__ import annotations

from collections.abc import Mapping

from sqlalchemy import select
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import SQLAlchemyError

from core.errors import StorageError
from storage.tables import KbVersionRow, utcnow

FACTS, GLOSSARY, DOCUMENTS = "facts", "glossary", "documents"
PARTS = (FACTS, GLOSSARY, DOCUMENTS)

_TABLE = KbVersionRow.__table__  # type: ignore[attr-defined]


def bump_kb_version(conn: Connection, part: str) -> None:
    """Move `part`'s version by one inside the caller's transaction (creating its row)."""
    if part not in PARTS:
        raise ValueError(f"unknown knowledge-base part {part!r}")
    dialect = conn.dialect.name
    if dialect == "sqlite":
        from sqlalchemy.dialects.sqlite import insert
    else:
        from sqlalchemy.dialects.postgresql import insert  # type: ignore[assignment]
    now = utcnow()
    stmt = insert(_TABLE).values(part=part, version=1, changed_at=now)
    stmt = stmt.on_conflict_do_update(
        index_elements=["part"], set_={"version": _TABLE.c.version + 1, "changed_at": now}
    )
    conn.execute(stmt)


class SqlKbVersions:
    """Reads the current version of every part (the per-answer freshness check)."""

    _READ = select(_TABLE.c.part, _TABLE.c.version)

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def read(self) -> Mapping[str, int]:
        """{part: version}; a part never changed is absent (reads as 0)."""
        try:
            with self._engine.connect() as conn:
                return {part: int(version) for part, version in conn.execute(self._READ)}
        except SQLAlchemyError as exc:
            raise StorageError(
                f"cannot read the knowledge-base version: {exc.__class__.__name__}"
            ) from exc
