"""WAL checkpoints off the answer path, for a long-running process on SQLite.

SQLite copies the write-ahead log back into the database file ("checkpoint") on the commit that
makes the log pass `wal_autocheckpoint` pages (1,000 by default), and with `synchronous=NORMAL`
that checkpoint syncs the file. A serving process commits a turn (and, on a first ask, a plan)
before every answer, so about one answer in fifty paid 8-37 ms for a checkpoint on a loaded
machine (measured: 111 of 6,000 commits over 1 ms, 81 % of all commit time): the serve-mode
p99. Here a daemon thread checkpoints every `interval_s` instead (PASSIVE: it never blocks a
reader or writer, and SQLite releases the GIL while it copies and syncs), and the process's
connections checkpoint only past `SAFETY_PAGES`, a safety net should this thread fall behind.

Durability is unchanged: a committed transaction is in the log either way; the checkpoint only
moves it into the main file.
"""

from __future__ import annotations

import logging
import threading
import weakref

from sqlalchemy import event
from sqlalchemy.engine import Engine

log = logging.getLogger(__name__)

SAFETY_PAGES = 20_000  # ~80 MB of log before a commit checkpoints by itself


class WalCheckpointer:
    """Checkpoints `engine`'s SQLite database every `interval_s` on its own thread. Call
    `close()` before the engine is disposed."""

    def __init__(self, engine: Engine, *, interval_s: float = 0.5) -> None:
        # weakly: an application nobody closed must not live on in this thread
        self._engine = weakref.ref(engine)
        self._interval_s = interval_s
        self._stop = threading.Event()
        event.listen(engine, "connect", _raise_autocheckpoint)
        engine.dispose()  # pooled connections reopen with the higher threshold
        self._thread = threading.Thread(
            target=self._run, name="ricorda-wal-checkpoint", daemon=True
        )
        self._thread.start()

    @classmethod
    def for_engine(cls, engine: Engine, **kwargs: float) -> WalCheckpointer | None:
        """One for SQLite; None elsewhere (PostgreSQL checkpoints in its own processes)."""
        return cls(engine, **kwargs) if engine.dialect.name == "sqlite" else None

    def checkpoint(self) -> bool:
        """One PASSIVE checkpoint now, on a pooled connection; False once the engine is gone."""
        engine = self._engine()
        if engine is None:
            return False
        conn = engine.raw_connection()
        del engine
        try:
            cur = conn.cursor()
            try:
                cur.execute("PRAGMA wal_checkpoint(PASSIVE)")
                cur.fetchall()
            finally:
                cur.close()
        finally:
            conn.close()
        return True

    def close(self) -> None:
        """Stop the thread, after one last checkpoint."""
        if self._stop.is_set():
            return
        self._stop.set()
        self._thread.join(timeout=10.0)
        try:
            self.checkpoint()
        except Exception:  # the database may be gone already; the log stays valid
            log.debug("last WAL checkpoint failed", exc_info=True)

    def _run(self) -> None:
        while not self._stop.wait(self._interval_s):
            try:
                if not self.checkpoint():
                    return  # the engine was collected: nothing left to checkpoint
            except Exception:  # a busy or vanished database: the next turn tries again
                log.debug("WAL checkpoint failed", exc_info=True)


def _raise_autocheckpoint(dbapi_conn, _record) -> None:  # type: ignore[no-untyped-def]
    cur = dbapi_conn.cursor()
    cur.execute(f"PRAGMA wal_autocheckpoint={SAFETY_PAGES}")
    cur.close()
