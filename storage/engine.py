"""Engines for SQLite (WAL) and PostgreSQL, and what their connection errors mean.

Kept apart from `storage.db.open_database`, which migrates the schema: the migrations use these
engines too, so neither imports the other.
"""

from __future__ import annotations

import contextlib
import json
import threading
import weakref
from pathlib import Path

import orjson
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlmodel import create_engine

SQLITE_BUSY_TIMEOUT_MS = 15_000


def sqlite_url(data_dir: Path) -> str:
    return f"sqlite:///{(data_dir / 'ricorda.db').resolve()}"


def make_engine(url: str) -> Engine:
    """An engine tuned for the backend: WAL + busy timeout on SQLite, pre-ping on PostgreSQL."""
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    if url.startswith("sqlite"):
        engine = create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": SQLITE_BUSY_TIMEOUT_MS / 1000},
            json_serializer=dumps_json,
        )
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(
        url, pool_pre_ping=True, pool_size=5, max_overflow=10, json_serializer=dumps_json
    )


def dumps_json(value: object) -> str:
    """The text of a JSON column, by orjson: every answer writes a turn with four JSON columns,
    and the standard library took several times as long to write them. A value orjson refuses
    (a non-string key, an integer beyond 64 bits, a Decimal) goes to the standard library,
    which writes it as it always did or fails as it always did. One difference: orjson writes
    NaN and infinities as null (the fact reader and the formulas never let one through)."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return json.dumps(value)


_WRITE_LOCKS: weakref.WeakKeyDictionary[Engine, threading.Lock] = weakref.WeakKeyDictionary()
_WRITE_LOCKS_GUARD = threading.Lock()


def answer_path_writes(engine: Engine) -> contextlib.AbstractContextManager[object]:
    """Held around the writes one process makes on every answer (the turn) and in its
    learning writer (plans, observations, use counts). SQLite takes one writer at a time and
    makes the others poll, sleeping 1, 2, 5 ms...: a turn write that met the writer thread's
    transaction waited milliseconds for a sub-millisecond write. Queued on a lock in the
    process instead, it waits only as long as that write takes. PostgreSQL locks rows: no-op."""
    if engine.dialect.name != "sqlite":
        return contextlib.nullcontext()
    with _WRITE_LOCKS_GUARD:
        lock = _WRITE_LOCKS.get(engine)
        if lock is None:
            lock = _WRITE_LOCKS[engine] = threading.Lock()
    return lock


def _sqlite_pragmas(dbapi_conn, _record) -> None:  # type: ignore[no-untyped-def]
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


# (what the driver says, what it means, what to do): psycopg and sqlite3 messages
_CAUSES = (
    ("connection refused", "connection refused",
     "start PostgreSQL there, or fix the host and port in RICORDA_DATABASE_URL"),
    ("password authentication failed", "password rejected",
     "fix the user and password in RICORDA_DATABASE_URL"),
    ("no password supplied", "a password is required",
     "add the password to RICORDA_DATABASE_URL (postgresql://user:password@host/db)"),
    ("does not exist", "the database or role does not exist",
     "create it (createdb) or fix its name in RICORDA_DATABASE_URL"),
    ("could not translate host name", "unknown host",
     "fix the host name in RICORDA_DATABASE_URL"),
    ("name or service not known", "unknown host", "fix the host name in RICORDA_DATABASE_URL"),
    ("timeout", "timed out", "check the network and the host in RICORDA_DATABASE_URL"),
    ("unable to open database file", "the file cannot be opened",
     "make the data dir writable (RICORDA_DATA_DIR)"),
    ("readonly database", "the file is read-only",
     "make the data dir and ricorda.db writable (RICORDA_DATA_DIR)"),
    ("permission denied", "permission denied",
     "grant the user CREATE on the schema, or fix the user in RICORDA_DATABASE_URL"),
)  # fmt: skip


def describe_error(exc: Exception, shown_url: str) -> str:
    """One sentence: which database, the cause in plain words, and the fix."""
    detail = str(getattr(exc, "orig", None) or exc).lower()
    for needle, cause, fix in _CAUSES:
        if needle in detail:
            return f"cannot open the database {_redact(shown_url)} ({cause}): {fix}"
    first = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0][:200]
    return (f"cannot open the database {_redact(shown_url)} ({exc.__class__.__name__}: "
            f"{_redact(first)}): check RICORDA_DATABASE_URL and the server's log")


def _redact(url: str) -> str:
    """Never print a password that may be in the URL."""
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        creds, host = rest.rsplit("@", 1)
        user = creds.split(":", 1)[0]
        return f"{scheme}://{user}:***@{host}" if ":" in creds else f"{scheme}://{user}@{host}"
    return url
