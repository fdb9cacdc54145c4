"""One replica at a time runs maintenance (`core.nightly.maintenance.RunLock`).

PostgreSQL: a session advisory lock (`pg_try_advisory_lock`) on a connection held for the run;
the server drops it if the process dies, so a crash never leaves the job locked. The key is
derived from the schema and the lock name, so two ricorda databases in one server never block
each other.

SQLite: a row in `maintenance_locks` with an expiry. Taking it is one conditional UPDATE (SQLite
serialises writers, so exactly one taker wins); a holder that died frees it when it expires.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from sqlalchemy import text, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import SQLAlchemyError

from core.contracts.errors import StorageError
from storage.maintenance_tables import MaintenanceLockRow
from storage.tables import utcnow
from storage.upsert import upsert_statement

log = logging.getLogger("ricorda.maintenance")

_LOCKS = MaintenanceLockRow.__table__  # type: ignore[attr-defined]
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


class MaintenanceLock:
    def __init__(
        self,
        engine: Engine,
        *,
        name: str = "maintenance",
        ttl: dt.timedelta = dt.timedelta(hours=1),
        clock: Callable[[], dt.datetime] = utcnow,
        holder: str | None = None,
    ) -> None:
        self._engine = engine
        self._name = name
        self._ttl = ttl
        self._clock = clock
        self.holder = holder or uuid.uuid4().hex

    @contextmanager
    def hold(self) -> Iterator[bool]:
        if self._engine.dialect.name == "postgresql":
            with self._advisory() as held:
                yield held
            return
        held = self._take_row()
        try:
            yield held
        finally:
            if held:
                self._free_row()

    # -- PostgreSQL -----------------------------------------------------------------------------

    @contextmanager
    def _advisory(self) -> Iterator[bool]:
        try:
            conn = self._engine.connect()
        except SQLAlchemyError as exc:
            raise _error(exc) from exc
        try:
            schema = conn.execute(text("SELECT current_schema()")).scalar_one()
            key = _key(f"{schema}:{self._name}")
            held = bool(conn.execute(text("SELECT pg_try_advisory_lock(:k)"), {"k": key}).scalar())
            conn.commit()  # no transaction stays open while maintenance runs
            try:
                yield held
            finally:
                if held:
                    _unlock(conn, key)
        finally:
            conn.close()

    # -- SQLite ---------------------------------------------------------------------------------

    def _take_row(self) -> bool:
        now = self._clock()
        create = upsert_statement(self._engine.dialect.name, _LOCKS, ("name",), ("name",))
        take = (
            update(_LOCKS)
            .where(_LOCKS.c.name == self._name, _LOCKS.c.expires_at <= now)
            .values(holder=self.holder, expires_at=now + self._ttl)
        )
        try:
            with self._engine.begin() as conn:
                conn.execute(create, {"name": self._name, "holder": "", "expires_at": _EPOCH})
                return conn.execute(take).rowcount == 1
        except SQLAlchemyError as exc:
            raise _error(exc) from exc

    def _free_row(self) -> None:
        free = (
            update(_LOCKS)
            .where(_LOCKS.c.name == self._name, _LOCKS.c.holder == self.holder)
            .values(holder="", expires_at=_EPOCH)
        )
        try:
            with self._engine.begin() as conn:
                conn.execute(free)
        except SQLAlchemyError as exc:  # it expires anyway
            log.warning("cannot free the maintenance lock: %s", exc.__class__.__name__)


def _unlock(conn: Connection, key: int) -> None:
    """Release the advisory lock; if that fails, drop the connection itself (the server then
    releases the lock) rather than return a connection holding it to the pool."""
    try:
        conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": key})
        conn.commit()
    except SQLAlchemyError:
        log.warning("cannot release the maintenance lock; dropping its connection")
        conn.invalidate()


def _key(name: str) -> int:
    """A signed 64-bit advisory lock key."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)


def _error(exc: SQLAlchemyError) -> StorageError:
    return StorageError(f"cannot take the maintenance lock: {exc.__class__.__name__}")
