"""The conversation store's contract, on SQLite and PostgreSQL and in memory: what one replica
keeps, another reads; chats and conversations never share a row."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine

from core.contracts.ports import ConversationContext
from storage import conversation_store
from storage.conversation_store import MemoryConversationStore, SqlConversationStore
from storage.db import open_database

T0 = dt.datetime(2026, 6, 15, 9, 0, tzinfo=dt.UTC)
CHINA = ConversationContext(("REVENUE",), ("ACME_CN",), ("FY2024",), (), "structured", T0)
BOTH = ConversationContext(("REVENUE", "EBITDA"), ("ACME_CN", "ACME_HK"),
                           ("FY2024", "2025H1"), ("ONLINE",), "composite", T0,
                           table="breakdown:entity:value:desc")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres),
                        "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    if request.param == "memory":
        yield MemoryConversationStore()
        return
    url = (f"sqlite:///{tmp_path / 'ricorda.db'}" if request.param == "sqlite"
           else request.getfixturevalue("postgres_schema_url"))
    engine = open_database(url)
    yield SqlConversationStore(engine)
    engine.dispose()


def test_what_is_saved_is_loaded_exactly(store: Any) -> None:
    assert store.load("telegram:1", "telegram:1") is None
    store.save("telegram:1", "telegram:1", BOTH)
    loaded = store.load("telegram:1", "telegram:1")
    assert loaded == BOTH
    assert loaded.at.utcoffset() == dt.timedelta(0)


def test_the_last_answer_wins(store: Any) -> None:
    store.save("slack:C1", "slack:C1:thread:1.0", CHINA)
    later = ConversationContext(("EBITDA",), (), (), (), "structured", T0 + dt.timedelta(minutes=3))
    store.save("slack:C1", "slack:C1:thread:1.0", later)
    assert store.load("slack:C1", "slack:C1:thread:1.0") == later


def test_a_context_stored_late_never_replaces_a_later_answers(store: Any) -> None:
    """Serving replicas store contexts from their writer threads, so one answered earlier
    may reach the database after one answered later: the later answer's context stays."""
    later = ConversationContext(("EBITDA",), (), (), (), "structured", T0 + dt.timedelta(minutes=3))
    store.save("slack:C1", "slack:C1:thread:1.0", later)
    store.save("slack:C1", "slack:C1:thread:1.0", CHINA)  # answered first, stored last
    assert store.load("slack:C1", "slack:C1:thread:1.0") == later


def test_chats_and_conversations_never_share_a_row(store: Any) -> None:
    store.save("slack:C1", "slack:C1:thread:1.0", CHINA)
    assert store.load("slack:C1", "slack:C1:thread:2.0") is None
    assert store.load("slack:C2", "slack:C1:thread:1.0") is None
    assert store.load("slack:C1", "slack:C1") is None


def test_a_long_free_form_chat_id_is_kept_apart_from_its_prefix(store: Any) -> None:
    long_a, long_b = "x" * 300 + "a", "x" * 300 + "b"
    store.save(long_a, long_a, CHINA)
    assert store.load(long_a, long_a) == CHINA
    assert store.load(long_b, long_b) is None


def test_another_replica_reads_what_one_kept(engine: Engine) -> None:
    SqlConversationStore(engine).save("telegram:5", "telegram:5", CHINA)
    assert SqlConversationStore(engine).load("telegram:5", "telegram:5") == CHINA


def test_stale_rows_are_pruned_as_new_ones_arrive(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(conversation_store, "PRUNE_EVERY", 2)
    now = [T0]
    store = SqlConversationStore(engine, clock=lambda: now[0])
    store.save("telegram:1", "telegram:1", CHINA)
    now[0] = T0 + conversation_store.KEEP + dt.timedelta(hours=1)
    fresh = ConversationContext(("REVENUE",), (), (), (), "structured", now[0])
    store.save("telegram:2", "telegram:2", fresh)  # the second save prunes
    assert store.load("telegram:1", "telegram:1") is None
    assert store.load("telegram:2", "telegram:2") == fresh
