"""One place that opens the database: SQLite (WAL) by default, PostgreSQL by URL.

Every table module registers its SQLModel classes on the shared metadata; `open_database`
brings the schema to the newest migration (storage.migrations), so a fresh data dir is ready on
first use and an older database is upgraded in place.
"""

from __future__ import annotations

from sqlalchemy.engine import Engine

from storage.engine import answer_path_writes, describe_error, make_engine, sqlite_url

__all__ = ["answer_path_writes", "describe_error", "make_engine", "open_database", "sqlite_url"]


def open_database(url: str) -> Engine:
    """Engine on a schema at the newest migration; a StorageError with the cause and the fix
    when the server is unreachable."""
    import storage.tables  # noqa: F401  (registers all tables on SQLModel.metadata)
    from storage.migrations import ensure_schema

    engine = make_engine(url)
    ensure_schema(engine)
    return engine
