"""Statements on the answer path of every request, run on the driver's cursor on SQLite.

A turn write and the L0a lookup are each one indexed statement, well under 0.1 ms in SQLite
itself; SQLAlchemy's per-execution work (compiled-cache lookup, parameter processing, the
result wrapper, transaction bookkeeping) more than doubled them. Here a statement is compiled
once, its values converted with the same column types' public bind/result processors (so rows
are exactly what a Core execution writes and reads), and executed on a pooled DBAPI connection.
PostgreSQL, where a network round trip dominates, keeps the Core path: `None` from `for_engine`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import Table
from sqlalchemy.engine import Engine

Processor = Callable[[Any], Any] | None


class FastInsert:
    """One INSERT of the given columns, in its own transaction."""

    def __init__(self, engine: Engine, table: Table, columns: Sequence[str]) -> None:
        dialect = engine.dialect
        compiled = table.insert().compile(dialect=dialect, column_keys=list(columns))
        order = compiled.positiontup
        if order is None:
            raise ValueError("a positional paramstyle is needed")
        self._engine = engine
        self._sql = compiled.string
        self._order = tuple(order)
        self._procs: tuple[Processor, ...] = tuple(
            table.c[name].type.dialect_impl(dialect).bind_processor(dialect) for name in self._order
        )
        self.integrity_error: type[Exception] = dialect.dbapi.IntegrityError  # type: ignore[union-attr]
        self.error: type[Exception] = dialect.dbapi.Error  # type: ignore[union-attr]

    @classmethod
    def for_engine(cls, engine: Engine, table: Table, columns: Sequence[str]) -> FastInsert | None:
        return cls(engine, table, columns) if engine.dialect.name == "sqlite" else None

    def execute(self, values: dict[str, Any]) -> None:
        params = [
            v if p is None else p(v)
            for p, v in zip(self._procs, (values[n] for n in self._order), strict=True)
        ]
        conn = self._engine.raw_connection()
        try:
            cur = conn.cursor()
            try:
                cur.execute(self._sql, params)
            finally:
                cur.close()
            conn.commit()
        except BaseException:
            conn.rollback()
            raise
        finally:
            conn.close()  # back to the pool


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

    @classmethod
    def for_engine(
        cls, engine: Engine, table: Table, columns: Sequence[str], key: str
    ) -> FastSelect | None:
        return cls(engine, table, columns, key) if engine.dialect.name == "sqlite" else None

    def first(self, key: Any) -> tuple[Any, ...] | None:
        value = key if self._key_proc is None else self._key_proc(key)
        conn = self._engine.raw_connection()
        try:
            cur = conn.cursor()
            try:
                cur.execute(self._sql, (value,))
                row = cur.fetchone()
            finally:
                cur.close()
        finally:  # the pool's reset on return ends any transaction the driver opened
            conn.close()
        if row is None:
            return None
        return tuple(v if p is None else p(v) for p, v in zip(self._procs, row, strict=True))
