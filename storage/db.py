"""One place that opens the database: SQLite (WAL) by default, PostgreSQL by URL.

Every table module registers its SQLModel classes on the shared metadata; `open_database`
imports them all and creates what is missing, so a fresh data dir is ready on first use.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import SQLModel, create_engine

from core.errors import StorageError

SQLITE_BUSY_TIMEOUT_MS = 15_000


def sqlite_url(data_dir: Path) -> str:
    return f"sqlite:///{(data_dir / 'ricorda.db').resolve()}"


def make_engine(url: str) -> Engine:
    """An engine tuned for the backend: WAL + busy timeout on SQLite, pre-ping on PostgreSQL."""
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    if url.startswith("sqlite"):
        engine = create_engine(
            url, connect_args={"check_same_thread": False, "timeout": SQLITE_BUSY_TIMEOUT_MS / 1000}
        )
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=10)


def _sqlite_pragmas(dbapi_conn, _record) -> None:  # type: ignore[no-untyped-def]
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


def open_database(url: str) -> Engine:
    """Engine with every table created; a clear StorageError when the server is unreachable."""
    import storage.tables  # noqa: F401  (registers all tables on SQLModel.metadata)

    engine = make_engine(url)
    try:
        SQLModel.metadata.create_all(engine)
    except SQLAlchemyError as exc:
        raise StorageError(
            f"cannot open the database {_redact(url)}: {exc.__class__.__name__}"
        ) from exc
    return engine


def _redact(url: str) -> str:
    """Never print a password that may be in the URL."""
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        creds, host = rest.rsplit("@", 1)
        user = creds.split(":", 1)[0]
        return f"{scheme}://{user}:***@{host}" if ":" in creds else f"{scheme}://{user}@{host}"
    return url
