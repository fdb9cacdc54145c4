"""One place that opens the database: SQLite (WAL) by default, PostgreSQL by URL.

Every table module registers its SQLModel classes on the shared metadata when imported (the
answer path imports only those it reads; `storage.migrations.target_metadata` lists them
all); `open_database` brings the schema to the newest migration (storage.migrations), so a
fresh data dir is ready on first use and an older database is upgraded in place.
"""

from __future__ import annotations

from sqlalchemy.engine import Engine

from storage.engine import answer_path_writes, describe_error, make_engine, sqlite_url

__all__ = ["answer_path_writes", "describe_error", "make_engine", "open_database", "sqlite_url"]


def open_database(url: str) -> Engine:
    """Engine on a schema at the newest migration; a StorageError with the cause and the fix
    when the server is unreachable."""
    from storage.migrations import ensure_schema  # the migrations import every table they need

    engine = make_engine(url)
    ensure_schema(engine)
    return engine
