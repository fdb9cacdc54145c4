"""Statements on the answer path of every request, run on the driver's cursor on SQLite.

A turn write, a plan's registration and the L0a lookup are each one or two indexed
statements, well under 0.1 ms in SQLite itself; SQLAlchemy's per-execution work (compiled-cache
lookup, parameter processing, the result wrapper, transaction bookkeeping) more than doubled
them. Here a statement is compiled once, its values converted with the same column types'
public bind/result processors (so rows are exactly what a Core execution writes and reads),
and executed on a DBAPI connection kept for it: one per engine for the answer path's
writes, one per statement for reads. Checking a connection out of the pool and back (with its
reset) cost ~0.05 ms a statement, as much as the statement. A kept connection is used under its
lock, outside any transaction between uses (a plain SELECT in WAL mode sees the last commit),
and closed by `close_kept(engine)`.
PostgreSQL, where a network round trip dominates, keeps the Core path: `None` from `for_engine`.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from sqlalchemy import Table
from sqlalchemy.engine import Engine

Processor = Callable[[Any], Any] | None


class FastInsert:
    """One INSERT of the given columns, in its own transaction (`execute`), or one statement of
    a caller's `transaction` (`run`). `statement` (default: a plain INSERT into `table`) may be
    an upsert of those columns with RETURNING: `run` then gives the row, converted with the
    returned columns' result processors, as Core would."""

    def __init__(
        self, engine: Engine, table: Table, columns: Sequence[str], statement: Any = None
    ) -> None:
        dialect = engine.dialect
        stmt = table.insert() if statement is None else statement
        compiled = stmt.compile(dialect=dialect, column_keys=list(columns))
        order = compiled.positiontup
        if order is None:
            raise ValueError("a positional paramstyle is needed")
        self.source: ConnectionSource = kept_writer(engine)
        self._sql = compiled.string
        self._order = tuple(order)
        self._procs: tuple[Processor, ...] = tuple(
            table.c[name].type.dialect_impl(dialect).bind_processor(dialect) for name in self._order
        )
        returning = [c for c in compiled.effective_returning or () if c.table is table]
        self._returned = tuple(c.name for c in returning)
        self._result_procs: tuple[Processor, ...] = tuple(
            c.type.dialect_impl(dialect).result_processor(dialect, None) for c in returning
        )
        self.integrity_error: type[Exception] = dialect.dbapi.IntegrityError  # type: ignore[union-attr]
        self.error: type[Exception] = dialect.dbapi.Error  # type: ignore[union-attr]

    @classmethod
    def for_engine(
        cls, engine: Engine, table: Table, columns: Sequence[str], statement: Any = None
    ) -> FastInsert | None:
        return cls(engine, table, columns, statement) if engine.dialect.name == "sqlite" else None

    def execute(self, values: dict[str, Any]) -> None:
        with transaction(self.source) as cur:
            self.run(cur, values)

    def run(self, cur: Any, values: dict[str, Any]) -> dict[str, Any] | None:
        """Execute on `cur` (inside `transaction`); the RETURNING row by column name, if any."""
        params = [
            v if p is None else p(v)
            for p, v in zip(self._procs, (values[n] for n in self._order), strict=True)
        ]
        cur.execute(self._sql, params)
        if not self._returned:
            return None
        rows = cur.fetchall()  # all of it: SQLite commits no statement still stepping
        if not rows:
            return None
        return {
            name: v if p is None else p(v)
            for name, p, v in zip(self._returned, self._result_procs, rows[0], strict=True)
        }


class KeptConnection:
    """One DBAPI connection taken out of the engine's pool for good (pragmas applied when it
    was opened), lent under a lock. It refers to its engine weakly: the per-engine registries
    below must not keep an engine alive (the connection closes when it is collected)."""

    def __init__(self, engine: Engine) -> None:
        self._engine = weakref.ref(engine)
        self._conn: Any = None
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def lent(self) -> Iterator[Any]:
        with self._lock:
            if self._conn is None:
                engine = self._engine()
                if engine is None:
                    raise RuntimeError("the engine of this connection was disposed of")
                proxy = engine.raw_connection()
                proxy.detach()  # ours now: the pool neither resets nor disposes it
                self._conn = proxy.dbapi_connection
            yield self._conn

    def close(self) -> None:
        with self._lock:
            conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()


class PooledConnection:
    """A connection checked out of the pool for each use (what a kept one saves; benchmarks
    compare the two)."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    @contextlib.contextmanager
    def lent(self) -> Iterator[Any]:
        proxy = self._engine.raw_connection()
        try:
            yield proxy
        finally:  # the pool's reset on return ends any transaction the driver opened
            proxy.close()


ConnectionSource = KeptConnection | PooledConnection

_WRITERS: weakref.WeakKeyDictionary[Engine, KeptConnection] = weakref.WeakKeyDictionary()
_READERS: weakref.WeakKeyDictionary[Engine, list[KeptConnection]] = weakref.WeakKeyDictionary()
_GUARD = threading.Lock()


def _kept_reader(engine: Engine) -> KeptConnection:
    kept = KeptConnection(engine)
    with _GUARD:
        _READERS.setdefault(engine, []).append(kept)
    return kept


def close_kept(engine: Engine) -> None:
    """Close the connections kept for `engine` (before it is disposed); the next use opens
    new ones."""
    with _GUARD:
        kept = [*_READERS.get(engine, []), *([_WRITERS[engine]] if engine in _WRITERS else [])]
    for k in kept:
        k.close()


def kept_writer(engine: Engine) -> KeptConnection:
    """The one connection kept for `engine`'s answer-path writes."""
    with _GUARD:
        kept = _WRITERS.get(engine)
        if kept is None:
            kept = _WRITERS[engine] = KeptConnection(engine)
    return kept


@contextlib.contextmanager
def transaction(source: ConnectionSource) -> Iterator[Any]:
    """A DBAPI cursor on a connection from `source` (the kept writer); its statements commit
    together when the block ends, or roll back if it raises (the driver opens the transaction at the
    first write). Callers also hold `storage.engine.answer_path_writes` (one writer at a time
    in this process, whichever connection it uses)."""
    with source.lent() as conn:
        try:
            cur = conn.cursor()
            try:
                yield cur
            finally:
                cur.close()
            conn.commit()
        except BaseException:
            conn.rollback()
            raise


class FastSelect:
    """`SELECT <columns> FROM table WHERE key = ?`: the first row, values as Core returns them."""

    def __init__(self, engine: Engine, table: Table, columns: Sequence[str], key: str) -> None:
        dialect = engine.dialect
        self._engine = engine
        self._sql = f"SELECT {', '.join(columns)} FROM {table.name} WHERE {key} = ?"
        self._key_proc: Processor = table.c[key].type.dialect_impl(dialect).bind_processor(dialect)
        self._procs: tuple[Processor, ...] = tuple(
            table.c[name].type.dialect_impl(dialect).result_processor(dialect, None)
            for name in columns
        )
        self.error: type[Exception] = dialect.dbapi.Error  # type: ignore[union-attr]
        self.source: ConnectionSource = _kept_reader(engine)

    @classmethod
    def for_engine(
        cls, engine: Engine, table: Table, columns: Sequence[str], key: str
    ) -> FastSelect | None:
        return cls(engine, table, columns, key) if engine.dialect.name == "sqlite" else None

    def first(self, key: Any) -> tuple[Any, ...] | None:
        value = key if self._key_proc is None else self._key_proc(key)
        with self.source.lent() as conn:
            cur = conn.cursor()
            try:
                cur.execute(self._sql, (value,))
                row = cur.fetchone()
            finally:
                cur.close()  # resets the statement: no read snapshot stays open
        if row is None:
            return None
        return tuple(v if p is None else p(v) for p, v in zip(self._procs, row, strict=True))
