"""The autopath tables on SQLite and PostgreSQL: round trips, locking scope, errors."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy.engine import Engine

from core.contracts.autopaths import AntiView, AutopathView, Observation
from core.contracts.errors import StorageError
from storage.autopath_store import SqlAutopathStore
from storage.db import make_engine, open_database

T0 = dt.datetime(2026, 1, 5, 9, 0, tzinfo=dt.UTC)
PLAN = {"steps": [{"tool": "query_metric", "args": {"metric": "${metric}", "top": 7}}]}


@pytest.fixture
def store(engine: Engine) -> SqlAutopathStore:
    return SqlAutopathStore(engine)


def observation(turn_id: str, cluster_id: str = "c1", *, minute: int = 0, **fields) -> Observation:
    values = {
        "turn_id": turn_id,
        "intent": "structured:revenue",
        "intent_hash": "i-revenue",
        "cluster_id": cluster_id,
        "framework_hash": "f-metric",
        "plan": PLAN,
        "embedding": np.array([0.6, 0.8, 0.0], dtype=np.float32),
        "query_specific": False,
        "latency_ms": 812.5,
        "created_at": T0 + dt.timedelta(minutes=minute),
    }
    values.update(fields)
    return Observation(**values)


def autopath(cluster_id: str = "c1", framework_hash: str = "f-metric") -> AutopathView:
    return AutopathView(
        id=None,
        cluster_id=cluster_id,
        framework_hash=framework_hash,
        intent_hash="i-revenue",
        plan=PLAN,
        created_at=T0,
        updated_at=T0,
    )


def test_an_observation_round_trips_and_a_turn_is_observed_once(store) -> None:
    original = observation("t1", query_specific=True, positives=1)
    assert store.add_observation(original) is True
    assert store.add_observation(observation("t1", "c2")) is False
    with store.transaction() as tx:
        stored = tx.observation("t1")
    assert stored == original
    assert stored is not None and stored.embedding.tolist() == pytest.approx([0.6, 0.8, 0.0])
    assert stored.created_at.tzinfo is not None


def test_verdict_counts_are_written(store) -> None:
    store.add_observation(observation("t1"))
    with store.transaction() as tx:
        tx.set_verdict_counts("t1", positives=2, negatives=1)
    with store.transaction() as tx:
        stored = tx.observation("t1")
    assert stored is not None and (stored.positives, stored.negatives) == (2, 1)


def test_recent_embeddings_keep_the_newest_per_cluster_oldest_first(store) -> None:
    for minute, (turn, cluster) in enumerate(
        [("a1", "A"), ("b1", "B"), ("a2", "A"), ("a3", "A"), ("b2", "B")]
    ):
        vector = np.array([minute + 1.0, 0.0, 0.0], dtype=np.float32)
        store.add_observation(observation(turn, cluster, minute=minute, embedding=vector))
    recent = store.recent_embeddings(2)
    assert [(cluster, float(v[0])) for cluster, v in recent] == [
        ("B", 2.0),
        ("A", 3.0),
        ("A", 4.0),
        ("B", 5.0),
    ]


def test_intent_clusters_are_distinct_pairs(store) -> None:
    store.add_observation(observation("t1", "A"))
    store.add_observation(observation("t2", "A"))
    store.add_observation(observation("t3", "B", intent_hash="i-ebitda"))
    assert sorted(store.intent_clusters()) == [("i-ebitda", "B"), ("i-revenue", "A")]


def test_an_autopath_gets_an_id_and_updates_in_place(store) -> None:
    with store.transaction() as tx:
        saved = tx.save_autopath(autopath())
    assert saved.id is not None
    promoted = replace(
        saved,
        confirmations=2,
        failures=1,
        uses=5,
        failed_uses=1,
        mean_latency_ms=41.5,
        status="active",
        promoted_at=T0 + dt.timedelta(hours=1),
        last_used_at=T0 + dt.timedelta(hours=2),
    )
    with store.transaction() as tx:
        tx.save_autopath(promoted)
    with store.transaction() as tx:
        assert tx.autopath("c1", "f-metric") == promoted
        assert tx.autopath_by_id(saved.id) == promoted
        assert tx.autopath("c1", "f-other") is None
    assert store.autopaths() == [promoted]
    autopaths, antis = store.cluster_state("c1")
    assert (autopaths, antis) == ([promoted], [])
    assert store.cluster_state("c2") == ([], [])


def test_one_autopath_per_cluster_and_framework(store) -> None:
    with store.transaction() as tx:
        tx.save_autopath(autopath())
    with pytest.raises(StorageError), store.transaction() as tx:
        tx.save_autopath(autopath())
    assert len(store.autopaths()) == 1


def test_anti_autopaths_upsert_and_delete(store) -> None:
    first = AntiView("c1", "i-revenue", "f-metric", 1, None, T0)
    blocked = replace(first, failures=3, blocked_until=T0 + dt.timedelta(days=30))
    with store.transaction() as tx:
        tx.save_anti(first)
        tx.save_anti(AntiView("c2", "i-revenue", "f-metric", 1, None, T0))
        tx.save_anti(AntiView("c1", "i-revenue", "f-search", 1, None, T0))
    with store.transaction() as tx:
        tx.save_anti(blocked)
        assert [a.cluster_id for a in tx.antis("i-revenue", "f-metric")] == ["c1", "c2"]
    assert store.cluster_state("c1")[1] == [blocked, replace(first, framework_hash="f-search")]
    with store.transaction() as tx:
        tx.delete_anti("c1", "i-revenue", "f-metric")
    assert [(a.cluster_id, a.framework_hash) for a in store.anti_autopaths()] == [
        ("c1", "f-search"),
        ("c2", "f-metric"),
    ]


def test_a_failed_transaction_changes_nothing(store) -> None:
    store.add_observation(observation("t1"))
    with pytest.raises(RuntimeError), store.transaction() as tx:
        tx.set_verdict_counts("t1", positives=5, negatives=0)
        tx.save_autopath(autopath())
        raise RuntimeError("boom")
    with store.transaction() as tx:
        stored = tx.observation("t1")
    assert stored is not None and stored.positives == 0
    assert store.autopaths() == []


def test_database_errors_become_storage_errors(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'empty.db'}")  # no tables created
    store = SqlAutopathStore(engine)
    try:
        with pytest.raises(StorageError) as caught:
            store.autopaths()
        assert caught.value.__cause__ is not None
        with pytest.raises(StorageError):
            store.add_observation(observation("t1"))
        with pytest.raises(StorageError), store.transaction() as tx:
            tx.observation("t1")
    finally:
        engine.dispose()


def test_rows_persist_across_engines(db_url: str) -> None:
    engine = open_database(db_url)
    store = SqlAutopathStore(engine)
    store.add_observation(observation("t1"))
    with store.transaction() as tx:
        tx.save_autopath(replace(autopath(), status="active", confirmations=1))
    engine.dispose()
    engine = open_database(db_url)  # creating tables again must not touch the rows
    try:
        again = SqlAutopathStore(engine)
        assert [v.status for v in again.autopaths()] == ["active"]
        assert [c for c, _ in again.recent_embeddings(5)] == ["c1"]
    finally:
        engine.dispose()
