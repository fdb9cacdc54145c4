"""INSERT .. ON CONFLICT DO UPDATE for the two databases ricorda runs on.

SQLAlchemy spells the upsert per dialect; this is the one place that knows both, so the
repositories stay free of dialect branches.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Table

from core.contracts.errors import StorageError


def upsert_statement(
    dialect: str,
    table: Table,
    key: Sequence[str],
    update: Sequence[str],
    *,
    newer: str | None = None,
) -> Any:
    """An executable upsert on `table`: rows whose `key` exists get their `update` columns set
    (with `newer`, a column: only when the new row's value there is not earlier than the
    stored one, so a write that arrives late never replaces a later one)."""
    # each dialect imported only when used: a SQLite process need not load PostgreSQL's
    if dialect == "sqlite":
        from sqlalchemy.dialects import sqlite

        stmt: Any = sqlite.insert(table)
    elif dialect == "postgresql":
        from sqlalchemy.dialects import postgresql

        stmt = postgresql.insert(table)
    else:
        raise StorageError(f"unsupported database dialect {dialect!r}: use SQLite or PostgreSQL")
    return stmt.on_conflict_do_update(
        index_elements=list(key),
        set_={c: stmt.excluded[c] for c in update},
        where=None if newer is None else table.c[newer] <= stmt.excluded[newer],
    )
