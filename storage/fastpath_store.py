"""The L0 plan cache on SQLite or PostgreSQL (`core.contracts.learning_ports.FastpathStore`).

The database is the source of truth. L0a (`by_hash`) is one indexed Core SELECT. L0b
(`nearest`) searches in-memory cosine indexes (one per embedder and dimension), built from the
database on first use (or `refresh()` at start) and kept in step with this process's writes.
Every hit is re-read by id and re-scored on the stored vector before it is returned, so an entry
another replica deleted, rewrote or made query-specific is never served from a stale index.

Other replicas' writes reach the index through the generation row (storage.fastpath_tables),
read with one primary-key SELECT at most every `refresh_seconds`: new or rewritten rows are
fetched by `revision > last seen`, and ids are listed only when deletions happened elsewhere.
Lag only delays when a new entry becomes findable by cosine (a miss: the planner answers).

Overwrite rule (`upsert` on an existing `canonical_hash`): last writer wins for the plan, text,
embedding, intent, origin, flags and `last_used_at`; the row keeps its `id` (admin listings and
feedback keep pointing at it), its `created_at` and its `n_uses` (the question was asked that
many times; a re-plan does not erase that history, so aging and promotion still see it).
"""

from __future__ import annotations

import builtins
import copy
import datetime as dt
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from sqlalchemy import and_, bindparam, delete, func, select, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import SQLAlchemyError

from core.contracts.errors import StorageError
from core.contracts.fastpath import FastpathEntry
from storage.embedding_blob import dimension_of, pack, unpack, unpack_matrix
from storage.engine import answer_path_writes
from storage.fast_sql import FastInsert, FastSelect, transaction
from storage.fastpath_tables import FastpathGenerationRow, FastpathRow
from storage.tables import utcnow
from storage.upsert import upsert_statement

if TYPE_CHECKING:
    import numpy as np

    from core.fastpath.cosine_index import CosineIndex

log = logging.getLogger(__name__)

Clock = Callable[[], dt.datetime]
IndexKey = tuple[str, int]  # embedder name, dimension
Seen = tuple[int, int]  # generation revision, deletions

_TABLE = FastpathRow.__table__  # type: ignore[attr-defined]
_C = _TABLE.c
_GEN = FastpathGenerationRow.__table__  # type: ignore[attr-defined]
_KEPT_ON_OVERWRITE = ("id", "canonical_hash", "created_at", "n_uses", "restricted")
_OVERWRITTEN = tuple(c.name for c in _TABLE.columns if c.name not in _KEPT_ON_OVERWRITE)
_BATCH = 500
_BY_HASH_CACHE = 4096  # entries kept for L0a (SQLite)
_SEARCH_SLACK = 2  # extra index hits re-read per search, so one stale hit costs no retry
_MAX_RETRIES = 3

_BY_HASH = select(_TABLE).where(_C.canonical_hash == bindparam("h"))
_BY_ID = select(_TABLE).where(_C.id == bindparam("id"))
_BY_IDS = select(_TABLE).where(_C.id.in_(bindparam("ids", expanding=True)))
_INDEXABLE = and_(_C.query_specific.is_(False), _C.embedding.is_not(None))
_VECTOR_COLUMNS = (_C.id, _C.embedder, _C.embedding, _C.revision, _C.query_specific)
_ALL_VECTORS = select(*_VECTOR_COLUMNS).where(_INDEXABLE)
_CHANGED_SINCE = select(*_VECTOR_COLUMNS).where(_C.revision > bindparam("seen"))
_ALL_IDS = select(_C.id)
_COUNTS = select(_C.embedder, func.count()).where(_INDEXABLE).group_by(_C.embedder)
_SEEN = select(_GEN.c.revision, _GEN.c.deletions).where(_GEN.c.id == 1)
_RETURNING = (_GEN.c.revision, _GEN.c.deletions)
_BUMP_WRITE = (
    update(_GEN).where(_GEN.c.id == 1).values(revision=_GEN.c.revision + 1).returning(*_RETURNING)
)
_RAW_BUMP_WRITE = (
    f"UPDATE {_GEN.name} SET revision = revision + 1 WHERE id = 1 RETURNING revision, deletions"
)
_BUMP_DELETE = (
    update(_GEN)
    .where(_GEN.c.id == 1)
    .values(revision=_GEN.c.revision + 1, deletions=_GEN.c.deletions + 1)
    .returning(*_RETURNING)
)


class SqlFastpathStore:
    """`FastpathStore` over the `fastpaths` table. Thread-safe; one instance per process."""

    def __init__(
        self, engine: Engine, *, clock: Clock = utcnow, refresh_seconds: float = 2.0
    ) -> None:
        dialect = engine.dialect.name
        self._engine = engine
        self._writes = answer_path_writes(engine)
        self._clock = clock
        self._refresh_seconds = refresh_seconds
        self._upsert = upsert_statement(
            dialect, _TABLE, ("canonical_hash",), _OVERWRITTEN
        ).returning(*_TABLE.columns)
        self._create_generation = upsert_statement(dialect, _GEN, ("id",), ("id",))
        self._lock = threading.RLock()
        self._indexes: dict[IndexKey, CosineIndex] | None = None  # None: not loaded yet
        self._known: dict[str, tuple[IndexKey, int]] = {}  # id -> its index, its revision
        self._expected: dict[str, int] = {}  # entries per embedder, while loading
        self._seen: Seen = (0, 0)
        self._checked_at = 0.0
        # L0a on SQLite: the entry kept in memory by the revision it was read at; a lookup reads
        # that row's revision and use counts only (every rewrite, here or on a replica, moves
        # the revision; a deleted row is simply not found)
        self._by_hash_cache: OrderedDict[str, tuple[int, FastpathEntry]] = OrderedDict()
        self._fast_revision = FastSelect.for_engine(
            engine, _TABLE, ("revision", "n_uses", "last_used_at"), "canonical_hash"
        )
        # a new plan's registration sits on the answer path of every first ask: on SQLite
        # it runs on the driver's cursor (storage.fast_sql), ~0.5 ms less than through Core
        self._fast_upsert = FastInsert.for_engine(
            engine, _TABLE, [c.name for c in _TABLE.columns], self._upsert
        )

    # --- writes -----------------------------------------------------------------------------

    def upsert(self, entry: FastpathEntry) -> FastpathEntry:
        """Insert or overwrite by `canonical_hash` in one statement (see the module docstring);
        concurrent writers of one hash end with one row and no error."""
        if entry.embedding is not None:
            _check_vector(entry.embedding)
        values = _row(entry)
        values["updated_at"] = self._clock()
        written = self._upsert_fast(values) if self._fast_upsert is not None else None
        if written is not None:
            seen, row = written
        else:
            try:
                with self._writes, self._engine.begin() as conn:
                    seen = self._bump(conn, _BUMP_WRITE)
                    values["revision"] = seen[0]
                    row = conn.execute(self._upsert, values).mappings().one()
            except SQLAlchemyError as exc:
                raise _error("cannot store a fastpath", exc) from exc
        stored = _entry(row)
        with self._lock:
            self._index_entry(stored, seen[0])
            self._advance(seen, deleted=False)
            self._cache_by_hash(stored, seen[0])
        return stored

    def _upsert_fast(self, values: dict[str, Any]) -> tuple[Seen, Any] | None:
        """The same two statements as the Core path (take the next revision, then the upsert
        with RETURNING), in one transaction on the driver's cursor; the row converted as Core
        converts it. None before the generation row exists (the Core path creates it)."""
        fast = self._fast_upsert
        assert fast is not None
        try:
            with self._writes, transaction(fast.source) as cur:
                cur.execute(_RAW_BUMP_WRITE)
                bumped = cur.fetchall()
                if not bumped:
                    return None  # nothing written: the transaction ends empty
                seen = (int(bumped[0][0]), int(bumped[0][1]))
                values["revision"] = seen[0]
                row = fast.run(cur, values)
        except fast.error as exc:
            raise StorageError(f"cannot store a fastpath: {exc.__class__.__name__}") from exc
        assert row is not None  # an upsert always returns its row
        return seen, row

    def touch(self, entry_id: str, now: dt.datetime | None = None) -> bool:
        """n_uses + 1 and last_used_at = now in one UPDATE, so concurrent uses all count. A use
        is not a change replicas need to see: it moves no revision."""
        stmt = (
            update(_TABLE)
            .where(_C.id == entry_id)
            .values(n_uses=_C.n_uses + 1, last_used_at=now or self._clock())
        )
        try:
            with self._writes, self._engine.begin() as conn:
                return conn.execute(stmt).rowcount > 0
        except SQLAlchemyError as exc:
            raise _error("cannot record a fastpath use", exc) from exc

    def touch_many(self, uses: Iterable[tuple[str, dt.datetime]]) -> int:
        """Count a batch of uses (entry id, when) in one transaction: the cascade's writer
        thread sends them together. Uses of one entry add up; the latest time is kept.
        Returns how many entries still existed."""
        counts: dict[str, tuple[int, dt.datetime]] = {}
        for entry_id, at in uses:
            n, last = counts.get(entry_id, (0, at))
            counts[entry_id] = (n + 1, max(last, at))
        if not counts:
            return 0
        stmt = (
            update(_TABLE)
            .where(_C.id == bindparam("entry_id"))
            .values(n_uses=_C.n_uses + bindparam("n"), last_used_at=bindparam("at"))
        )
        params = [{"entry_id": i, "n": n, "at": at} for i, (n, at) in counts.items()]
        try:
            with self._writes, self._engine.begin() as conn:
                found = 0
                for row in params:  # rowcount per row: executemany does not report it
                    found += conn.execute(stmt, row).rowcount or 0
                return found
        except SQLAlchemyError as exc:
            raise _error("cannot record fastpath uses", exc) from exc

    def delete(self, entry_id: str) -> bool:
        return bool(self._delete(_C.id == entry_id))

    def delete_by_hash(self, canonical_hash: str) -> bool:
        return bool(self._delete(_C.canonical_hash == canonical_hash))

    def purge_all(self) -> int:
        return len(self._delete(None))

    # --- reads ------------------------------------------------------------------------------

    def by_hash(self, canonical_hash: str) -> FastpathEntry | None:
        """The L0a lookup: one SELECT on the unique hash index. On SQLite it reads the row's
        revision and use counts only, and the entry itself when this process has not read or
        written it at that revision (every rewrite, here or on a replica, moves the revision;
        a deleted row is not found)."""
        fast = self._fast_revision
        if fast is not None:
            try:
                found = fast.first(canonical_hash)
            except fast.error as exc:
                raise StorageError(f"cannot read the fastpaths: {exc.__class__.__name__}") from exc
            with self._lock:
                cached = self._by_hash_cache.get(canonical_hash)
                if found is None:
                    self._by_hash_cache.pop(canonical_hash, None)
                    return None
                if cached is not None and int(found[0]) == cached[0]:
                    self._by_hash_cache.move_to_end(canonical_hash)
                    entry = copy.copy(cached[1])
                    entry.n_uses, entry.last_used_at = int(found[1]), found[2]
                    return entry
        row = self._one(_BY_HASH, {"h": canonical_hash})
        if row is None:
            return None
        entry = _entry(row)
        with self._lock:
            self._cache_by_hash(entry, int(row["revision"]))
        return entry

    def _cache_by_hash(self, entry: FastpathEntry, revision: int) -> None:
        """Keep `entry` as read or written at `revision` (caller holds the lock)."""
        if self._fast_revision is None:
            return
        self._by_hash_cache[entry.canonical_hash] = (revision, copy.copy(entry))
        self._by_hash_cache.move_to_end(entry.canonical_hash)
        while len(self._by_hash_cache) > _BY_HASH_CACHE:
            self._by_hash_cache.popitem(last=False)

    def by_id(self, entry_id: str) -> FastpathEntry | None:
        row = self._one(_BY_ID, {"id": entry_id})
        return None if row is None else _entry(row)

    def count(self) -> int:
        try:
            with self._engine.connect() as conn:
                return int(conn.execute(select(func.count()).select_from(_TABLE)).scalar_one())
        except SQLAlchemyError as exc:
            raise _error("cannot count the fastpaths", exc) from exc

    def list(self, limit: int = 20, offset: int = 0) -> builtins.list[FastpathEntry]:
        """Most used first; ties by most recently used, then id (stable pages)."""
        stmt = (
            select(_TABLE)
            .order_by(_C.n_uses.desc(), _C.last_used_at.desc(), _C.id)
            .limit(limit)
            .offset(offset)
        )
        try:
            with self._engine.connect() as conn:
                return [_entry(r) for r in conn.execute(stmt).mappings()]
        except SQLAlchemyError as exc:
            raise _error("cannot list the fastpaths", exc) from exc

    def iter_all(self) -> Iterator[FastpathEntry]:
        """Every entry by id, fetched in pages of 500: no transaction stays open between pages,
        so a maintenance job may delete what it iterates over."""
        after = ""
        while True:
            stmt = select(_TABLE).where(_C.id > after).order_by(_C.id).limit(_BATCH)
            try:
                with self._engine.connect() as conn:
                    page = [_entry(r) for r in conn.execute(stmt).mappings()]
            except SQLAlchemyError as exc:
                raise _error("cannot read the fastpaths", exc) from exc
            yield from page
            if len(page) < _BATCH:
                return
            after = page[-1].id

    def nearest(
        self, embedding: np.ndarray, *, embedder: str, k: int = 1
    ) -> builtins.list[tuple[FastpathEntry, float]]:
        """Best cosine first among entries that are not query-specific and were embedded by
        `embedder`. Hits are re-read from the database and scored on the stored vector, so what
        is returned is exactly what the database holds now."""
        import numpy as np

        query = np.asarray(embedding, dtype=np.float32).reshape(-1)
        _check_vector(query)
        query = query / np.linalg.norm(query)
        key = (embedder, len(query))
        results: builtins.list[tuple[FastpathEntry, float]] = []
        for _ in range(_MAX_RETRIES if k > 0 else 0):
            index = self._current_indexes().get(key)
            if index is None:
                return []
            hits = index.search(query, k + _SEARCH_SLACK)
            found = self._by_ids([item_id for item_id, _ in hits])
            results, stale = [], False
            for item_id, _ in hits:
                entry, revision = found.get(item_id, (None, 0))
                with self._lock:
                    if entry is None or _index_key(entry) != key:
                        self._unindex(item_id)  # deleted or changed by another writer
                        stale = True
                        continue
                    self._index_entry(entry, revision)  # a vector rewritten elsewhere
                assert entry.embedding is not None  # _index_key checked it
                cosine = float(entry.embedding @ query / np.linalg.norm(entry.embedding))
                results.append((entry, cosine))
            results.sort(key=lambda pair: (-pair[1], pair[0].id))
            if len(results) >= k or not stale:
                break
        return results[:k]

    def refresh(self) -> None:
        """Bring the cosine indexes in step with the database now; call it at start to build
        them before the first question rather than during it."""
        with self._lock:
            if self._indexes is None:
                self._load()
            else:
                self._catch_up()

    # --- keeping the indexes in step --------------------------------------------------------

    def _current_indexes(self) -> dict[IndexKey, CosineIndex]:
        with self._lock:
            if self._indexes is None:
                self._load()
            elif time.monotonic() - self._checked_at >= self._refresh_seconds:
                self._catch_up()
            assert self._indexes is not None
            return self._indexes

    def _load(self) -> None:
        """Build every index in one streamed scan, each sized up front (from a count per
        embedder) so no matrix is copied as it grows."""
        self._indexes, self._known = {}, {}
        try:
            with self._engine.connect() as conn:
                seen = _read_seen(conn)  # first: whatever commits later is caught up later
                self._expected = {e: int(n) for e, n in conn.execute(_COUNTS)}
                result = conn.execute(_ALL_VECTORS, execution_options={"yield_per": 5000})
                for rows in result.partitions():
                    self._apply(rows)
        except SQLAlchemyError as exc:
            self._indexes = None
            raise _error("cannot read the fastpaths", exc) from exc
        finally:
            self._expected = {}
        self._seen, self._checked_at = seen, time.monotonic()

    def _catch_up(self) -> None:
        """One primary-key read when nothing changed; otherwise fetch rows written since the
        last revision seen, and list ids only if something was deleted elsewhere."""
        try:
            with self._engine.connect() as conn:
                seen = _read_seen(conn)
                if seen[0] != self._seen[0]:
                    changed = conn.execute(_CHANGED_SINCE, {"seen": self._seen[0]})
                    for rows in changed.partitions(_BATCH):
                        self._apply(rows)
                if seen[1] != self._seen[1]:
                    present = set(conn.execute(_ALL_IDS).scalars())
                    for gone in set(self._known) - present:
                        self._unindex(gone)
        except SQLAlchemyError as exc:
            raise _error("cannot read the fastpaths", exc) from exc
        self._seen, self._checked_at = seen, time.monotonic()

    def _apply(self, rows: Iterable[Any]) -> None:
        """Index (id, embedder, embedding, revision, query_specific) rows, grouped so each
        index gets one bulk add; a row with an unusable vector is logged and left out."""
        import numpy as np

        grouped: dict[IndexKey, builtins.list[Any]] = {}
        for row in rows:
            known = self._known.get(row.id)
            if known is not None:
                if known[1] == row.revision:
                    continue  # this process wrote or read it already
                self._unindex(row.id)
            if not row.query_specific and row.embedding:
                grouped.setdefault((row.embedder, dimension_of(row.embedding)), []).append(row)
        assert self._indexes is not None
        for key, group in grouped.items():
            matrix = unpack_matrix([r.embedding for r in group], key[1])
            usable = np.isfinite(matrix).all(axis=1) & matrix.any(axis=1)
            kept = []
            for row, ok in zip(group, usable, strict=True):
                if ok:
                    self._known[row.id] = (key, row.revision)
                    kept.append(row.id)
                else:
                    log.warning("fastpath %s has an unusable embedding; not indexed", row.id)
            self._index_for(key).add_many(kept, matrix[usable])

    def _index_entry(self, entry: FastpathEntry, revision: int) -> None:
        """Keep the index in step with one row this process wrote or re-read (lock held)."""
        if self._indexes is None:
            return  # the first search loads everything
        key = _index_key(entry)
        known = self._known.get(entry.id)
        if known is not None and known[1] >= revision:
            return  # this version is there, or a newer one (a slower reader must not undo it)
        self._unindex(entry.id)
        if key is not None:
            assert entry.embedding is not None
            self._index_for(key).add(entry.id, entry.embedding)
            self._known[entry.id] = (key, revision)

    def _unindex(self, entry_id: str) -> None:
        known = self._known.pop(entry_id, None)
        if known is not None and self._indexes is not None:
            self._indexes[known[0]].remove(entry_id)

    def _index_for(self, key: IndexKey) -> CosineIndex:
        from core.fastpath.cosine_index import CosineIndex

        assert self._indexes is not None
        index = self._indexes.get(key)
        if index is None:
            index = self._indexes[key] = CosineIndex(key[1])
            index.reserve(self._expected.get(key[0], 0))
        return index

    def _advance(self, seen: Seen, *, deleted: bool) -> None:
        """After this process's own write (already applied to the index): when it was the
        only change since the last catch-up, nothing needs fetching (lock held)."""
        if self._indexes is not None and seen == (
            self._seen[0] + 1,
            self._seen[1] + (1 if deleted else 0),
        ):
            self._seen = seen

    # --- SQL helpers ------------------------------------------------------------------------

    def _bump(self, conn: Connection, stmt: Any) -> Seen:
        """Take the next revision (first statement of a write: one lock order for all)."""
        row = conn.execute(stmt).first()
        if row is None:  # the very first write on this database
            conn.execute(self._create_generation, {"id": 1, "revision": 0, "deletions": 0})
            row = conn.execute(stmt).one()
        return (int(row[0]), int(row[1]))

    def _delete(self, where: Any) -> builtins.list[str]:
        stmt = delete(_TABLE).returning(_C.id)
        if where is not None:
            stmt = stmt.where(where)
        try:
            with self._engine.begin() as conn:
                seen = self._bump(conn, _BUMP_DELETE)
                ids = list(conn.execute(stmt).scalars())
        except SQLAlchemyError as exc:
            raise _error("cannot delete fastpaths", exc) from exc
        with self._lock:
            if where is None and self._indexes is not None:
                for index in self._indexes.values():
                    index.clear()
                self._known.clear()
            for entry_id in ids:
                self._unindex(entry_id)
            self._advance(seen, deleted=True)
        return ids

    def _one(self, stmt: Any, params: dict[str, Any]) -> Any:
        try:
            with self._engine.connect() as conn:
                return conn.execute(stmt, params).mappings().first()
        except SQLAlchemyError as exc:
            raise _error("cannot read the fastpaths", exc) from exc

    def _by_ids(self, ids: builtins.list[str]) -> dict[str, tuple[FastpathEntry, int]]:
        """Entries by id, each with its revision (what the index bookkeeping compares)."""
        if not ids:
            return {}
        try:
            with self._engine.connect() as conn:
                rows = conn.execute(_BY_IDS, {"ids": ids}).mappings().all()
        except SQLAlchemyError as exc:
            raise _error("cannot read the fastpaths", exc) from exc
        return {row["id"]: (_entry(row), int(row["revision"])) for row in rows}


# --- rows and entries -------------------------------------------------------------------------


def _row(entry: FastpathEntry) -> dict[str, Any]:
    embedding = entry.embedding
    return {
        "id": entry.id,
        "canonical_text": entry.canonical_text,
        "canonical_hash": entry.canonical_hash,
        "plan": entry.plan,
        "route": entry.route,
        "intent": entry.intent,
        "intent_hash": entry.intent_hash,
        "framework_hash": entry.framework_hash,
        "origin": entry.origin,
        "query_specific": entry.query_specific,
        "embedder": entry.embedder,
        "embedding": None if embedding is None else pack(embedding),
        "created_at": entry.created_at,
        "last_used_at": entry.last_used_at,
        "n_uses": entry.n_uses,
        "restricted": entry.restricted,
    }


def _entry(row: Any) -> FastpathEntry:
    blob = row["embedding"]
    return FastpathEntry(
        id=row["id"],
        canonical_text=row["canonical_text"],
        canonical_hash=row["canonical_hash"],
        plan=row["plan"],
        route=row["route"],
        intent=row["intent"],
        intent_hash=row["intent_hash"],
        framework_hash=row["framework_hash"],
        origin=row["origin"],
        query_specific=bool(row["query_specific"]),
        embedder=row["embedder"],
        embedding=None if blob is None else unpack(blob),
        created_at=row["created_at"],
        last_used_at=row["last_used_at"],
        n_uses=int(row["n_uses"]),
        restricted=bool(row["restricted"]),
    )


def _index_key(entry: FastpathEntry) -> IndexKey | None:
    """Where an entry belongs in the cosine indexes, or None when it must not be found there."""
    if entry.query_specific or entry.embedding is None or not len(entry.embedding):
        return None
    return (entry.embedder, len(entry.embedding))


def _read_seen(conn: Connection) -> Seen:
    row = conn.execute(_SEEN).first()
    return (0, 0) if row is None else (int(row[0]), int(row[1]))


def _check_vector(vector: np.ndarray) -> None:
    import numpy as np

    if not np.all(np.isfinite(vector)) or not np.any(vector):
        raise ValueError("an embedding must be finite and non-zero")


def _error(what: str, exc: SQLAlchemyError) -> StorageError:
    return StorageError(f"{what}: {exc.__class__.__name__}")
