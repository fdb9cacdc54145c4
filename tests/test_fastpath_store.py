"""The L0 plan cache storage on SQLite and PostgreSQL: last writer wins, concurrent writers end
with one row, uses are counted exactly, and a cosine hit is always a row the database still
holds as an indexable entry."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy.engine import Engine

import storage.fastpath_store as fastpath_store
from core.contracts.errors import StorageError
from core.contracts.fastpath import FastpathEntry, new_fastpath_id
from core.fastpath.canonical import canonical_hash
from storage.db import make_engine, open_database
from storage.fastpath_store import SqlFastpathStore

T0 = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.UTC)
DIM = 8


def vec(*head: float) -> np.ndarray:
    """A unit vector whose first components are `head` (the rest zero)."""
    v = np.zeros(DIM, dtype=np.float32)
    v[: len(head)] = head
    return v / np.linalg.norm(v)


def entry(
    text: str,
    *,
    embedding: np.ndarray | None = None,
    embedder: str = "bge-m3",
    query_specific: bool = False,
    plan: dict | None = None,
    n_uses: int = 0,
    last_used_at: dt.datetime = T0,
) -> FastpathEntry:
    return FastpathEntry(
        id=new_fastpath_id(),
        canonical_text=text,
        canonical_hash=canonical_hash(text),
        plan=plan or {"steps": [{"tool": "query_metric", "args": {"metric": "${metric}"}}]},
        route="structured",
        intent="structured:REVENUE",
        intent_hash="ih",
        framework_hash="fh",
        origin="planner",
        query_specific=query_specific,
        embedder=embedder if embedding is not None else "",
        embedding=embedding,
        created_at=T0,
        last_used_at=last_used_at,
        n_uses=n_uses,
    )


@pytest.fixture
def store(engine: Engine) -> SqlFastpathStore:
    return SqlFastpathStore(engine)


@pytest.fixture
def other_engine(db_url: str, engine: Engine) -> Iterator[Engine]:
    """A second engine on the same database: another replica."""
    second = open_database(db_url)
    try:
        yield second
    finally:
        second.dispose()


def run_threads(n: int, work: Callable[[int], None]) -> None:
    errors: list[BaseException] = []
    start = threading.Barrier(n)

    def run(i: int) -> None:
        try:
            start.wait()
            work(i)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


# --- writes -----------------------------------------------------------------------------------


def test_an_entry_round_trips_by_hash_and_by_id(store: SqlFastpathStore) -> None:
    original = entry("revenue acme last year", embedding=vec(1, 2, 3), n_uses=2)
    store.upsert(original)

    found = store.by_hash(original.canonical_hash)
    assert found is not None
    assert found.plan == original.plan
    assert found.canonical_text == "revenue acme last year"
    assert found.embedding is not None and found.embedding.dtype == np.float32
    np.testing.assert_array_equal(found.embedding, original.embedding)
    assert found.created_at == T0 and found.created_at.tzinfo is not None
    assert (found.n_uses, found.embedder, found.query_specific) == (2, "bge-m3", False)
    assert store.by_id(original.id) == found
    assert store.by_hash(canonical_hash("something else")) is None


def test_same_hash_overwrites_plan_but_keeps_identity_and_history(store: SqlFastpathStore) -> None:
    first = store.upsert(entry("revenue acme", plan={"v": 1}, n_uses=0))
    store.touch(first.id, T0 + dt.timedelta(hours=1))
    later = entry("revenue acme", plan={"v": 2}, embedding=vec(1), query_specific=True)
    later.created_at = T0 + dt.timedelta(days=3)
    later.last_used_at = T0 + dt.timedelta(days=3)

    stored = store.upsert(later)

    assert store.count() == 1
    assert stored.plan == {"v": 2} and stored.query_specific is True
    assert stored.id == first.id  # admin listings and feedback keep pointing at it
    assert stored.created_at == T0
    assert stored.n_uses == 1  # the question was used once; a re-plan does not erase that
    assert stored.last_used_at == T0 + dt.timedelta(days=3)
    assert store.by_hash(later.canonical_hash) == stored


def test_concurrent_registrations_of_one_question_leave_one_row(store: SqlFastpathStore) -> None:
    run_threads(8, lambda i: store.upsert(entry("margin emea q3", plan={"writer": i})))
    assert store.count() == 1
    found = store.by_hash(canonical_hash("margin emea q3"))
    assert found is not None and found.plan["writer"] in range(8)


def test_two_replicas_registering_one_question_leave_one_row(
    store: SqlFastpathStore, other_engine: Engine
) -> None:
    stores = [store, SqlFastpathStore(other_engine)]
    run_threads(
        6, lambda i: stores[i % 2].upsert(entry("headcount 2025", plan={"w": i}, n_uses=1))
    )
    assert store.count() == 1
    assert stores[1].by_hash(canonical_hash("headcount 2025")) == store.by_hash(
        canonical_hash("headcount 2025")
    )


def test_concurrent_uses_are_all_counted(store: SqlFastpathStore) -> None:
    stored = store.upsert(entry("ebitda group"))

    def use_twenty_times(i: int) -> None:
        for _ in range(20):
            store.touch(stored.id, T0 + dt.timedelta(minutes=i))

    run_threads(6, use_twenty_times)
    found = store.by_id(stored.id)
    assert found is not None and found.n_uses == 120
    assert T0 <= found.last_used_at <= T0 + dt.timedelta(minutes=5)
    assert store.touch("no-such-id", T0) is False


def test_touch_defaults_to_the_store_clock(engine: Engine) -> None:
    store = SqlFastpathStore(engine, clock=lambda: T0 + dt.timedelta(days=1))
    stored = store.upsert(entry("cash position"))
    assert store.touch(stored.id) is True
    found = store.by_id(stored.id)
    assert found is not None and found.last_used_at == T0 + dt.timedelta(days=1)


def test_delete_by_id_by_hash_and_purge(store: SqlFastpathStore) -> None:
    a = store.upsert(entry("a question"))
    b = store.upsert(entry("b question"))
    store.upsert(entry("c question"))

    assert store.delete(a.id) is True
    assert store.delete(a.id) is False
    assert store.delete_by_hash(b.canonical_hash) is True
    assert store.delete_by_hash(b.canonical_hash) is False
    assert store.by_id(a.id) is None and store.by_hash(b.canonical_hash) is None
    assert store.count() == 1
    assert store.purge_all() == 1
    assert store.count() == 0


def test_list_is_most_used_first_then_most_recent_then_id(store: SqlFastpathStore) -> None:
    later = T0 + dt.timedelta(hours=2)
    rows = {
        "rare": entry("rare", n_uses=1),
        "old favourite": entry("old favourite", n_uses=5, last_used_at=T0),
        "new favourite": entry("new favourite", n_uses=5, last_used_at=later),
        "never": entry("never", n_uses=0),
    }
    twins = [entry(f"twin {i}", n_uses=3, last_used_at=T0) for i in range(2)]
    for e in [*rows.values(), *twins]:
        store.upsert(e)

    listed = [e.canonical_text for e in store.list(limit=10)]
    twin_order = [e.canonical_text for e in sorted(twins, key=lambda e: e.id)]
    assert listed == ["new favourite", "old favourite", *twin_order, "rare", "never"]
    assert [e.canonical_text for e in store.list(limit=2, offset=1)] == listed[1:3]


def test_iter_all_pages_through_everything(
    store: SqlFastpathStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fastpath_store, "_BATCH", 3)
    texts = {f"question {i}" for i in range(8)}
    for text in texts:
        store.upsert(entry(text))
    seen = []
    for e in store.iter_all():
        seen.append(e.canonical_text)
        store.delete(e.id)  # a maintenance job may delete while it iterates
    assert sorted(seen) == sorted(texts)
    assert store.count() == 0


def test_bad_embeddings_are_refused_before_writing(store: SqlFastpathStore) -> None:
    with pytest.raises(ValueError):
        store.upsert(entry("zero", embedding=np.zeros(DIM, dtype=np.float32)))
    assert store.count() == 0


def test_database_errors_become_storage_errors(tmp_path: Path) -> None:
    bare = make_engine(f"sqlite:///{tmp_path / 'empty.db'}")  # no tables created
    store = SqlFastpathStore(bare)
    with pytest.raises(StorageError) as raised:
        store.by_hash("0" * 16)
    assert raised.value.__cause__ is not None
    with pytest.raises(StorageError):
        store.nearest(vec(1), embedder="bge-m3")
    bare.dispose()


# --- nearest ----------------------------------------------------------------------------------


def test_nearest_is_best_cosine_first_with_exact_scores(store: SqlFastpathStore) -> None:
    far = store.upsert(entry("far", embedding=vec(0, 1)))
    close = store.upsert(entry("close", embedding=vec(1, 0.2)))
    hits = store.nearest(vec(1), embedder="bge-m3", k=3)
    assert [(e.id, round(s, 5)) for e, s in hits] == [
        (close.id, round(float(vec(1) @ vec(1, 0.2)), 5)),
        (far.id, 0.0),
    ]


def test_nearest_skips_query_specific_and_other_embedders(store: SqlFastpathStore) -> None:
    store.upsert(entry("who is mario rossi", embedding=vec(1), query_specific=True))
    store.upsert(entry("same vector other model", embedding=vec(1), embedder="use-v4"))
    store.upsert(entry("not embedded"))
    wanted = store.upsert(entry("revenue by region", embedding=vec(1, 1)))

    hits = store.nearest(vec(1), embedder="bge-m3", k=5)
    assert [e.id for e, _ in hits] == [wanted.id]
    assert [e.canonical_text for e, _ in store.nearest(vec(1), embedder="use-v4")] == [
        "same vector other model"
    ]
    assert store.nearest(vec(1), embedder="unknown") == []
    assert store.nearest(np.ones(DIM + 1), embedder="bge-m3") == []  # other dimension


def test_nearest_follows_this_process_writes(store: SqlFastpathStore) -> None:
    store.nearest(vec(1), embedder="bge-m3")  # builds the (empty) index
    added = store.upsert(entry("orders today", embedding=vec(1)))
    assert [e.id for e, _ in store.nearest(vec(1), embedder="bge-m3")] == [added.id]

    store.upsert(entry("orders today", embedding=vec(1), query_specific=True))  # overwrite
    assert store.nearest(vec(1), embedder="bge-m3") == []

    again = store.upsert(entry("orders today", embedding=vec(0, 1)))
    assert store.nearest(vec(0, 1), embedder="bge-m3")[0][0].id == again.id
    assert store.delete(again.id)
    assert store.nearest(vec(0, 1), embedder="bge-m3") == []
    store.upsert(entry("backlog", embedding=vec(1)))
    store.purge_all()
    assert store.nearest(vec(1), embedder="bge-m3") == []


def test_an_entry_deleted_by_another_replica_is_never_served(
    engine: Engine, other_engine: Engine
) -> None:
    here = SqlFastpathStore(engine, refresh_seconds=3600)  # never notices changes by itself
    there = SqlFastpathStore(other_engine)
    best = here.upsert(entry("sales italy", embedding=vec(1)))
    runner_up = here.upsert(entry("sales spain", embedding=vec(1, 0.3)))
    assert here.nearest(vec(1), embedder="bge-m3")[0][0].id == best.id

    assert there.delete(best.id)
    assert [e.id for e, _ in here.nearest(vec(1), embedder="bge-m3")] == [runner_up.id]

    there.delete_by_hash(runner_up.canonical_hash)
    assert here.nearest(vec(1), embedder="bge-m3") == []


def test_an_entry_made_query_specific_by_another_replica_is_never_served(
    engine: Engine, other_engine: Engine
) -> None:
    here = SqlFastpathStore(engine, refresh_seconds=3600)
    there = SqlFastpathStore(other_engine)
    here.upsert(entry("invoices from acme", embedding=vec(1)))
    assert len(here.nearest(vec(1), embedder="bge-m3")) == 1
    there.upsert(entry("invoices from acme", embedding=vec(1), query_specific=True))
    assert here.nearest(vec(1), embedder="bge-m3") == []


def test_the_index_picks_up_entries_another_replica_adds(
    engine: Engine, other_engine: Engine
) -> None:
    here = SqlFastpathStore(engine, refresh_seconds=0)
    there = SqlFastpathStore(other_engine, clock=lambda: T0)  # a replica whose clock is stuck
    old = here.upsert(entry("stock levels", embedding=vec(0, 1)))
    assert [e.id for e, _ in here.nearest(vec(1), embedder="bge-m3")] == [old.id]

    new = there.upsert(entry("warehouse stock", embedding=vec(1)))
    assert [e.id for e, _ in here.nearest(vec(1), embedder="bge-m3")] == [new.id]

    # a rewrite of the vector elsewhere moves the entry in this replica's index too
    there.upsert(entry("warehouse stock", embedding=vec(0, 0, 1)))
    assert here.nearest(vec(0, 0, 1), embedder="bge-m3")[0][0].id == new.id
    assert here.nearest(vec(0, 0, 1), embedder="bge-m3")[0][1] == pytest.approx(1.0)


def test_after_a_purge_elsewhere_new_entries_are_found(
    engine: Engine, other_engine: Engine
) -> None:
    """Deletions elsewhere are caught up, not only discovered one stale hit at a time: ten
    purged entries closer to the query must not hide the one registered after the purge."""
    here = SqlFastpathStore(engine, refresh_seconds=0)
    there = SqlFastpathStore(other_engine)
    for i in range(10):
        here.upsert(entry(f"quarterly sales {i}", embedding=vec(1, 0.01 * i)))
    assert len(here.nearest(vec(1), embedder="bge-m3", k=10)) == 10

    there.purge_all()
    fresh = there.upsert(entry("sales by quarter", embedding=vec(1, 1)))
    assert [e.id for e, _ in here.nearest(vec(1), embedder="bge-m3")] == [fresh.id]


def test_a_lagging_index_catches_up_on_refresh(engine: Engine, other_engine: Engine) -> None:
    here = SqlFastpathStore(engine, refresh_seconds=3600)
    assert here.nearest(vec(1), embedder="bge-m3") == []
    added = SqlFastpathStore(other_engine).upsert(entry("open orders", embedding=vec(1)))
    here.refresh()
    assert [e.id for e, _ in here.nearest(vec(1), embedder="bge-m3")] == [added.id]
