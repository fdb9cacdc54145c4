"""Turns, feedback and the platform message map on SQLite and PostgreSQL."""

from __future__ import annotations

import datetime as dt
import itertools
import threading
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine

from core.contracts.errors import StorageError
from core.contracts.ports import TurnRecord
from storage.db import open_database
from storage.turn_store import SqlTurnStore, UnknownTurnError, new_turn_id

T0 = dt.datetime(2025, 3, 1, 9, 0, tzinfo=dt.UTC)


def ticking_clock(step_s: float = 1.0):  # type: ignore[no-untyped-def]
    """A deterministic clock: each call is one step later."""
    counter = itertools.count()
    return lambda: T0 + dt.timedelta(seconds=step_s * next(counter))


def turn(
    turn_id: str | None = None, *, chat: str = "telegram:1", question: str = "revenue?"
) -> TurnRecord:
    return TurnRecord(
        id=turn_id or new_turn_id(),
        chat=chat,
        user="telegram:42",
        question=question,
        language="en",
        route="structured",
        served_by="planner",
        plan=[{"tool": "query_metric", "args": {"metric": "REVENUE", "period": "FY2024"}}],
        answer_text="Revenue FY2024: 1,320 EUR_M",
        options=[{"label": "Orbis China", "slot": "entity", "value": "ORBIS_CN"}],
        fixed_slots={"entity": "ORBIS_CN"},
        latency_ms=3.25,
    )


def test_a_turn_comes_back_exactly_as_recorded(engine: Engine) -> None:
    store = SqlTurnStore(engine)
    record = TurnRecord(
        id="a1b2c3d4e5f60718",
        chat="slack:C0123",
        user="slack:U9",
        question="中国区 2025 年营收为什么下降？ 📉",
        language="zh",
        route="composite",
        served_by="L1",
        plan=[
            {"tool": "query_metric", "args": {"metric": "REVENUE", "entity": "ORBIS_CN"}},
            {"tool": "search_docs", "args": {"query": "营收 下降", "k": 6}},
        ],
        answer_text="营收：1,320 EUR_M — «calo» dovuto a…",
        options=[{"label": "线上", "slot": "channel", "value": "ONLINE"}],
        fixed_slots={"period": "FY2025"},
        latency_ms=12.5,
        reference_date="2025-06-30",
        parent_turn="0000000000000001",
        answer={"facts": [{"status": "found", "value": 1320, "unit": "EUR_M"}], "text": "营收"},
    )
    store.record_turn(record)
    assert store.get_turn(record.id) == record
    assert store.get_turn("does-not-exist") is None


def test_what_the_fast_json_writer_refuses_is_still_written_as_before(engine: Engine) -> None:
    """The JSON columns are written by orjson; what it refuses goes to the standard library.
    An integer beyond 64 bits (a count from a hostile fact file) keeps every digit, a
    numeric key comes back as text, as it always did."""
    store = SqlTurnStore(engine)
    huge = 2**70 + 1
    record = turn("big")
    record.answer = {"facts": [{"status": "found", "value": huge}], "text": "€ 中国"}
    record.fixed_slots = {"entity": "ORBIS_CN"}
    store.record_turn(record)
    back = store.get_turn("big")
    assert back is not None and back.answer["facts"][0]["value"] == huge
    assert back.answer["text"] == "€ 中国"

    keyed = turn("keys")
    keyed.answer = {1: "one"}
    store.record_turn(keyed)
    stored = store.get_turn("keys")
    assert stored is not None and stored.answer == {"1": "one"}


def test_recording_the_same_turn_twice_is_an_error(engine: Engine) -> None:
    store = SqlTurnStore(engine)
    store.record_turn(turn("dup"))
    with pytest.raises(StorageError, match="already recorded"):
        store.record_turn(turn("dup"))


def test_recent_turns_are_newest_first_and_filter_by_chat(engine: Engine) -> None:
    store = SqlTurnStore(engine, clock=ticking_clock())
    for i in range(5):
        store.record_turn(turn(f"t{i}", chat="telegram:1" if i % 2 == 0 else "slack:C1"))
    assert [t.id for t in store.recent_turns(3)] == ["t4", "t3", "t2"]
    assert [t.id for t in store.recent_turns(10, chat="slack:C1")] == ["t3", "t1"]


def test_a_new_verdict_replaces_the_old_one_and_withdrawing_removes_it(engine: Engine) -> None:
    store = SqlTurnStore(engine, clock=ticking_clock())
    store.record_turn(turn("t1"))

    assert store.set_feedback("t1", "telegram:42", "positive", "reaction") is None
    assert store.set_feedback("t1", "telegram:42", "positive", "reaction") == "positive"
    assert store.set_feedback("t1", "telegram:42", "negative", "reply") == "positive"
    assert store.set_feedback("t1", "telegram:7", "positive", "reaction") is None

    entries = store.feedback_for("t1")
    assert [(e.user, e.verdict, e.via) for e in entries] == [
        ("telegram:42", "negative", "reply"),
        ("telegram:7", "positive", "reaction"),
    ]
    assert all(
        e.created_at.tzinfo is not None and e.created_at.utcoffset() == dt.timedelta(0)
        for e in entries
    )

    assert store.withdraw_feedback("t1", "telegram:42") == "negative"
    assert store.withdraw_feedback("t1", "telegram:42") is None
    assert [e.user for e in store.feedback_for("t1")] == ["telegram:7"]


def test_feedback_on_an_unknown_turn_or_with_a_bad_verdict_is_refused(engine: Engine) -> None:
    store = SqlTurnStore(engine)
    store.record_turn(turn("t1"))
    with pytest.raises(UnknownTurnError):
        store.set_feedback("nope", "u", "positive", "cli")
    with pytest.raises(ValueError, match="verdict"):
        store.set_feedback("t1", "u", "meh", "cli")
    assert store.feedback_for("t1") == []


def test_reactions_find_their_turn_after_a_restart(db_url: str) -> None:
    first = open_database(db_url)
    try:
        store = SqlTurnStore(first)
        store.record_turn(turn("t1"))
        store.record_turn(turn("t2"))
        store.map_message("telegram", "telegram:1", 5001, "t1")
        store.map_message("slack", "slack:C1", "1712345678.000100", "t2")
        with pytest.raises(UnknownTurnError):
            store.map_message("telegram", "telegram:1", 5002, "never-recorded")
    finally:
        first.dispose()

    reopened = open_database(db_url)
    try:
        store = SqlTurnStore(reopened)
        assert store.turn_for_message("telegram", "telegram:1", 5001) == "t1"
        assert store.turn_for_message("telegram", "telegram:1", "5001") == "t1"
        assert store.turn_for_message("slack", "slack:C1", "1712345678.000100") == "t2"
        assert store.turn_for_message("telegram", "telegram:2", 5001) is None  # other chat
        assert store.turn_for_message("slack", "telegram:1", 5001) is None  # other platform
        store.map_message("telegram", "telegram:1", 5001, "t2")  # message re-used for a new turn
        assert store.turn_for_message("telegram", "telegram:1", 5001) == "t2"
    finally:
        reopened.dispose()


def test_concurrent_turn_writes_do_not_lock_each_other_out(engine: Engine) -> None:
    store = SqlTurnStore(engine)
    threads, per_thread = 8, 40
    errors: list[BaseException] = []
    start = threading.Barrier(threads)

    def writer(n: int) -> None:
        start.wait()
        try:
            for i in range(per_thread):
                store.record_turn(turn(f"w{n}-{i}", chat=f"chat:{n}"))
                if i % 10 == 0:
                    store.recent_turns(5, chat=f"chat:{n}")
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)

    workers = [threading.Thread(target=writer, args=(n,)) for n in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert errors == []
    assert len(store.recent_turns(1000)) == threads * per_thread


def test_two_processes_worth_of_engines_share_one_sqlite_file(tmp_path: Path) -> None:
    """The CLI and `serve` may both write the same SQLite file; the busy timeout serialises them."""
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    engines = [open_database(url), open_database(url)]
    try:
        stores = [SqlTurnStore(e) for e in engines]

        def writer(k: int) -> None:
            for i in range(50):
                stores[k].record_turn(turn(f"p{k}-{i}"))

        workers = [threading.Thread(target=writer, args=(k,)) for k in (0, 1)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        assert len(stores[0].recent_turns(1000)) == 100
    finally:
        for e in engines:
            e.dispose()
