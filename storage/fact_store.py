"""The fact table behind `core.contracts.ports.FactStore`: the database is the source of truth,
lookups are answered from an in-memory index so a structured answer costs microseconds, not a query.

The index is loaded once (lazily), replaced after every upsert and on `refresh()`. A serving
process calls `catch_up()` when the knowledge-base version of the facts moved
(core.knowledge.freshness):
when exactly one change happened since the index was loaded, only that change's rows are read
(every row a load writes carries the same `updated_at`, recorded with the version), else the
whole table. `stale_after` seconds (older mechanism, kept for callers that use it): at most that
often a lookup checks a fingerprint of the table (row count, newest update).

A table larger than `preload_limit` rows is never loaded: ten million facts held as Python
objects would be several GB per replica and minutes to load (bench/bench_scale.py). Lookups are
then one query on the key's unique index each, remembered (bounded LRU) until `catch_up` sees
the facts version move, and a load classifies its rows batch by batch against the table instead
of against a loaded copy.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlalchemy import func, select, tuple_
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

from core.contracts.errors import StorageError
from core.contracts.types import Fact, Period, PeriodType, Source
from storage.kb_version import FACTS, bump_kb_version, read_part
from storage.tables import FACT_KEY, FactRow, utcnow
from storage.upsert import upsert_statement

_TABLE = FactRow.__table__  # type: ignore[attr-defined]
_BATCH = 1000
_UPDATED = ("value", "unit", "source_doc", "source_locator", "updated_at")
# Above this many rows the table is queried per lookup instead of held in memory: about 0.5 GB
# and a few seconds of loading at this size, a structured answer's lookups cost ~0.1 ms more.
PRELOAD_LIMIT = 500_000
_CACHE_SIZE = 100_000  # lookups and period lists remembered from a large table
# Facts of a load classified at once (~1 KB each as Python objects): a million-row file is
# written 50,000 rows at a time, in one transaction
WINDOW = 50_000

FactKey = tuple[str, str, str, str, str]  # metric, entity, period_type, period, channel


@dataclass(frozen=True)
class UpsertCounts:
    inserted: int = 0
    updated: int = 0
    unchanged: int = 0

    @property
    def total(self) -> int:
        return self.inserted + self.updated + self.unchanged


def fact_key(fact: Fact) -> FactKey:
    return (fact.metric, fact.entity, fact.period.type.value, fact.period.value, fact.channel)


def period_sort_key(period: Period) -> tuple[int, int, int]:
    """Order periods by when they end, then longer first (FY2025 before 2025H2 before 2025Q4).

    Values are fiscal labels, so "end" is the month within the fiscal year, whatever the
    calendar month of the fiscal year end.
    """
    value = period.value
    year = int(value[:4])
    kind = period.type
    if kind is PeriodType.FY:
        end, length = 12, 12
    elif kind is PeriodType.HY:
        end, length = 6 * int(value[-1]), 6
    elif kind is PeriodType.Q:
        end, length = 3 * int(value[-1]), 3
    else:
        end, length = int(value[5:7]), 1
    return (year, end, length)


def value_text(value: Decimal) -> str:
    """The stored form of a value: plain notation, every digit kept (0.10 stays 0.10)."""
    return format(value, "f")


class SqlFactStore:
    """`FactStore` over the `facts` table (SQLite or PostgreSQL)."""

    def __init__(
        self,
        engine: Engine,
        *,
        stale_after: float | None = None,
        preload: bool = True,
        preload_limit: int = PRELOAD_LIMIT,
    ) -> None:
        """`preload=False` answers each lookup with one indexed query instead of loading the
        whole table: right for a one-shot process (`ricorda ask`), where loading 10,000 facts
        would cost more than the question. A table of more than `preload_limit` rows is never
        preloaded (see the module docstring)."""
        self._engine = engine
        self._preload = preload
        self._preload_limit = preload_limit
        self._large: bool | None = None  # more rows than preload_limit (None: not probed yet)
        self._stale_after = stale_after
        self._lock = threading.Lock()
        self._index: dict[FactKey, Fact] | None = None
        self._periods: dict[tuple[str, str, str], list[Period]] = {}
        self._fingerprint: tuple[int, Any] | None = None
        self._checked_at = 0.0
        self._version = 0  # the facts version (storage.kb_version) the index holds
        # a large table's recent answers (serving only), forgotten when the facts version moves
        self._cache: OrderedDict[tuple[Any, ...], Any] = OrderedDict()

    # --- FactStore ------------------------------------------------------------------------

    def lookup(self, metric: str, entity: str, period: Period, channel: str) -> Fact | None:
        """Exact match on all five key parts; codes are compared as stored (upper-case)."""
        if self._direct():

            def load() -> Fact | None:
                rows = self._select(
                    _TABLE.c.metric == metric, _TABLE.c.entity == entity,
                    _TABLE.c.period_type == period.type.value, _TABLE.c.period == period.value,
                    _TABLE.c.channel == channel,
                )
                return _fact(rows[0]) if rows else None

            return self._cached(("f", metric, entity, period, channel), load)
        return self._current().get((metric, entity, period.type.value, period.value, channel))

    def periods(self, metric: str, entity: str, channel: str) -> list[Period]:
        """Periods with a fact for this metric/entity/channel, newest first (period_sort_key)."""
        if self._direct():

            def load() -> list[Period]:
                stmt = select(_TABLE.c.period_type, _TABLE.c.period).where(
                    _TABLE.c.metric == metric, _TABLE.c.entity == entity,
                    _TABLE.c.channel == channel,
                )
                rows = self._rows(stmt)
                found = [Period(PeriodType(kind), value) for kind, value in rows]
                return sorted(found, key=period_sort_key, reverse=True)

            return list(self._cached(("p", metric, entity, channel), load))
        self._current()
        return list(self._periods.get((metric, entity, channel), ()))

    # --- loading --------------------------------------------------------------------------

    def upsert_facts(self, facts: Iterable[Fact]) -> UpsertCounts:
        """Insert new facts, update changed ones, leave identical ones alone (idempotent).

        Changes are classified against a fresh read of the table (or, for a large table, its
        rows with the same keys, batch by batch), then only the new and changed rows are
        written, in batches and one transaction, with INSERT .. ON CONFLICT DO UPDATE so a
        concurrent writer cannot make the load fail. The index is rebuilt afterwards. `facts`
        is read `WINDOW` rows at a time (fewer for a small `preload_limit`), so a file of ten
        million rows is never held whole; a key repeated within such a window keeps its last
        row, as in the fact file (repeated further apart, the last row still wins, counted
        once more).
        """
        counts = {"inserted": 0, "updated": 0, "unchanged": 0}
        now = utcnow()
        with self._lock:
            self._index = None  # the old index goes first: a big table is never held twice
        if not self._is_large():
            self.refresh()
        index = self._index
        pending = iter(facts)

        def changed() -> Iterator[dict[str, Any]]:  # made batch by batch: a big file's rows
            while window := list(itertools.islice(pending, self._window)):  # are never all
                incoming: dict[FactKey, Fact] = {}  # in memory at once
                for fact in window:
                    incoming[fact_key(fact)] = fact  # later duplicates win
                window = []
                items = iter(incoming.items())
                while batch := list(itertools.islice(items, _BATCH)):
                    old_rows = index if index is not None else self._existing(
                        [k for k, _ in batch]
                    )
                    for key, fact in batch:
                        old = old_rows.get(key)
                        if old is not None and _same(old, fact):
                            counts["unchanged"] += 1
                            continue
                        counts["inserted" if old is None else "updated"] += 1
                        yield _row(fact, now)

        self._write(changed(), now)
        index = None
        with self._lock:
            self._index = None  # a reader meanwhile reloads it itself
        if self._preload:
            self.refresh()
        return UpsertCounts(**counts)

    def count(self) -> int:
        try:
            with self._engine.connect() as conn:
                return int(conn.execute(select(func.count()).select_from(_TABLE)).scalar_one())
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot count facts: {exc.__class__.__name__}") from exc

    @property
    def _window(self) -> int:
        return min(WINDOW, self._preload_limit)

    @property
    def loaded(self) -> bool:
        """Whether the in-memory index is held (a reload is only needed then)."""
        return self._index is not None

    def catch_up(self) -> None:
        """Bring a loaded index to the current facts version (see the module docstring)."""
        if not self.loaded:
            if self._large:  # answers remembered from the large table
                try:
                    with self._engine.connect() as conn:
                        moved = read_part(conn, FACTS)[0] != self._version
                except SQLAlchemyError as exc:
                    raise StorageError(
                        f"cannot read the fact table: {exc.__class__.__name__}"
                    ) from exc
                if moved:
                    self.refresh()  # forgets them
            return  # nothing held: the first lookup loads the current table
        try:
            with self._engine.connect() as conn:
                version, stamp = read_part(conn, FACTS)
                if version == self._version:
                    return
                if version != self._version + 1 or stamp is None:
                    changed = None
                else:
                    # never more than could be held: a huge load means the table outgrew it
                    stmt = select(_TABLE).where(_TABLE.c.updated_at == stamp).limit(
                        self._preload_limit + 1
                    )
                    changed = [_fact(r) for r in conn.execute(stmt).mappings()]
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot read the fact table: {exc.__class__.__name__}") from exc
        if changed is None or len(changed) + len(self._index or {}) > self._preload_limit:
            self.refresh()  # which lets go of the index when the table outgrew the limit
            return
        with self._lock:
            index, periods = dict(self._index or {}), dict(self._periods)
            for fact in changed:
                key = fact_key(fact)
                if key not in index:
                    group = (fact.metric, fact.entity, fact.channel)
                    periods[group] = sorted(
                        [*periods.get(group, ()), fact.period], key=period_sort_key, reverse=True
                    )
                index[key] = fact
            self._index, self._periods, self._version = index, periods, version

    def refresh(self) -> None:
        """Reload the in-memory index from the database (nothing when the table is too large
        to hold: lookups then query it)."""
        if self._is_large():
            try:
                with self._engine.connect() as conn:
                    version = read_part(conn, FACTS)[0]
            except SQLAlchemyError as exc:
                raise StorageError(f"cannot read the fact table: {exc.__class__.__name__}") from exc
            with self._lock:
                self._index, self._periods = None, {}
                self._cache.clear()
                self._version = version
            return
        try:
            with self._engine.connect() as conn:
                version = read_part(conn, FACTS)[0]  # before the rows: never newer than them
                fingerprint = self._read_fingerprint(conn)
                result = conn.execute(select(_TABLE))
                index = {fact_key(f): f for f in (_fact(r) for r in result.mappings())}
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot read the fact table: {exc.__class__.__name__}") from exc
        periods: dict[tuple[str, str, str], list[Period]] = {}
        for fact in index.values():
            periods.setdefault((fact.metric, fact.entity, fact.channel), []).append(fact.period)
        for plist in periods.values():
            plist.sort(key=period_sort_key, reverse=True)
        with self._lock:
            self._index, self._periods = index, periods
            self._fingerprint = fingerprint
            self._version = version
            self._checked_at = time.monotonic()

    def all_facts(self) -> list[Fact]:
        """Every fact (for reports and for offering what the table can answer): the index, or
        the table itself when it is too large to hold."""
        if self._direct():
            return [_fact(r) for r in self._select()]
        return list(self._current().values())

    def ordered_facts(self, batch: int = 5000) -> Iterator[Fact]:
        """Every fact, streamed from the table `batch` rows at a time (a server-side cursor on
        PostgreSQL), each metric's facts together and in the order of the period's written
        year: what core.knowledge.fiscal_slices cuts into (metric, fiscal year) slices, so a
        report over every fact holds one slice, never the table (bot.wiring.disclosure_report)."""
        year = func.substr(_TABLE.c.period, 1, 4)
        stmt = select(_TABLE).order_by(_TABLE.c.metric, year)
        try:
            with self._engine.connect() as conn:
                result = conn.execution_options(yield_per=batch).execute(stmt)
                for row in result.mappings():
                    yield _fact(row)
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot read the fact table: {exc.__class__.__name__}") from exc

    def unit_counts(self) -> dict[tuple[str, str], int]:
        """How many facts each (metric, unit) has: counted by the database."""
        stmt = select(_TABLE.c.metric, _TABLE.c.unit, func.count()).group_by(
            _TABLE.c.metric, _TABLE.c.unit)
        return {(metric, unit): int(n) for metric, unit, n in self._rows(stmt)}

    # --- internals ------------------------------------------------------------------------

    def _direct(self) -> bool:
        """Whether a lookup queries the table rather than the in-memory index."""
        if self._index is not None:
            return False
        if not self._preload:
            return True
        if self._large is None:
            self._is_large()
        return bool(self._large)

    def _is_large(self) -> bool:
        """More rows than `preload_limit` (remembered until the next load or catch-up).

        The largest id bounds the row count (rows are never renumbered), so a small table costs
        one index read; above it, one probe of the primary key at that offset."""
        bound = select(func.max(_TABLE.c.id))
        probe = select(_TABLE.c.id).order_by(_TABLE.c.id).offset(self._preload_limit).limit(1)
        try:
            with self._engine.connect() as conn:
                top = conn.execute(bound).scalar()
                large = top is not None and top > self._preload_limit
                if large:
                    large = conn.execute(probe).first() is not None
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot read the fact table: {exc.__class__.__name__}") from exc
        self._large = large
        return large

    def _cached(self, key: tuple[Any, ...], load: Callable[[], Any]) -> Any:
        """`load()`, remembered for a serving store until the facts version moves (catch_up):
        a large table answers its frequent questions at dictionary speed, in bounded memory."""
        if not self._preload:
            return load()
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
            version = self._version
        value = load()
        with self._lock:
            if self._version == version:  # not forgotten meanwhile
                self._cache[key] = value
                while len(self._cache) > _CACHE_SIZE:
                    self._cache.popitem(last=False)
        return value

    def _rows(self, stmt: Any) -> list[Any]:
        try:
            with self._engine.connect() as conn:
                return list(conn.execute(stmt))
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot read the fact table: {exc.__class__.__name__}") from exc

    def _existing(self, keys: list[FactKey]) -> dict[FactKey, Fact]:
        """The stored facts with these keys (one query on the unique key index)."""
        if not keys:
            return {}
        columns = [getattr(_TABLE.c, name) for name in FACT_KEY]
        rows = self._select(tuple_(*columns).in_(keys))
        return {fact_key(f): f for f in (_fact(r) for r in rows)}

    def _select(self, *where: Any) -> list[Any]:
        try:
            with self._engine.connect() as conn:
                return list(conn.execute(select(_TABLE).where(*where)).mappings())
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot read the fact table: {exc.__class__.__name__}") from exc

    def _current(self) -> dict[FactKey, Fact]:
        index = self._index
        if index is None:
            self.refresh()
            return self._index or {}
        if (
            self._stale_after is not None
            and time.monotonic() - self._checked_at > self._stale_after
        ):
            self._reload_if_changed()
            return self._index or {}
        return index

    def _reload_if_changed(self) -> None:
        try:
            with self._engine.connect() as conn:
                fingerprint = self._read_fingerprint(conn)
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot read the fact table: {exc.__class__.__name__}") from exc
        if fingerprint != self._fingerprint:
            self.refresh()
        else:
            self._checked_at = time.monotonic()

    @staticmethod
    def _read_fingerprint(conn: Any) -> tuple[int, Any]:
        row = conn.execute(select(func.count(), func.max(_TABLE.c.updated_at))).one()
        return (int(row[0]), row[1])

    def _write(self, rows: Iterable[dict[str, Any]], stamp: Any) -> None:
        stmt = upsert_statement(self._engine.dialect.name, _TABLE, FACT_KEY, _UPDATED)
        pending = iter(rows)
        try:
            with self._engine.begin() as conn:
                wrote = False
                while batch := list(itertools.islice(pending, _BATCH)):
                    conn.execute(stmt, batch)
                    wrote = True
                if wrote:  # committed with the rows: every process learns of them at once
                    bump_kb_version(conn, FACTS, stamp=stamp)
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot write facts: {exc.__class__.__name__}") from exc


def _same(a: Fact, b: Fact) -> bool:
    # compare the stored text so 1.0 -> 1.00 counts as a change: the number is shown as loaded
    return value_text(a.value) == value_text(b.value) and a.unit == b.unit and a.source == b.source


def _row(fact: Fact, now: Any) -> dict[str, Any]:
    return {
        "metric": fact.metric,
        "entity": fact.entity,
        "period_type": fact.period.type.value,
        "period": fact.period.value,
        "channel": fact.channel,
        "value": value_text(fact.value),
        "unit": fact.unit,
        "source_doc": fact.source.doc,
        "source_locator": fact.source.locator,
        "updated_at": now,
    }


def _fact(row: Any) -> Fact:
    return Fact(
        metric=row["metric"],
        entity=row["entity"],
        period=Period(PeriodType(row["period_type"]), row["period"]),
        channel=row["channel"],
        value=Decimal(row["value"]),
        unit=row["unit"],
        source=Source(row["source_doc"], row["source_locator"]),
    )
