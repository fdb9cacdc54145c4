"""What a serving process does around each answer's SQLite I/O, seen from outside.

A serving process keeps connections for its answer-path statements (no pool checkout per
statement), checkpoints the WAL on a thread instead of in an answer's commit, and lets its
learning writer find queued records by itself instead of being woken from inside an answer
(an answer that queued a plan wakes it as it returns). None of this may lose or hide a write:
the turn is visible to another process's connection when the answer returns and the plan a
moment later, a queued use count reaches the database without anyone flushing, a flush is
still immediate, and a checkpoint leaves nothing in the log.
"""

from __future__ import annotations

import gc
import sqlite3
import threading
import time
from pathlib import Path

from bot.kb.ingest import ingest_paths
from bot.settings.model import load_settings
from bot.wiring.build import build_app
from core.contracts.types import Request
from core.fastpath.learning import BackgroundLearning
from storage.wal_checkpoint import SAFETY_PAGES, WalCheckpointer
from tests.acme import ACME

CHINA24 = "What was ACME China revenue in FY2024?"


def serve_app(data: Path):  # type: ignore[no-untyped-def]
    app = build_app(load_settings(data_dir=data, embedder="use", reference_date="2026-06-15"))
    ingest_paths(app, [ACME / "glossary.toml", ACME / "facts.csv"])
    return app


def _count(db: Path, sql: str, *args: object) -> int:
    other = sqlite3.connect(db)
    try:
        return int(other.execute(sql, args).fetchone()[0])
    finally:
        other.close()


def test_the_turn_is_stored_before_the_answer_returns_and_the_plan_a_moment_after(
    tmp_path: Path,
) -> None:
    """The turn is durable before the answer is returned (a verdict on it must find it); the
    plan is written by the learning writer, woken as the answer returns: another process
    finds it a moment later without anyone flushing, and this process serves the repeat by
    L0a at once, before the writer has stored it."""
    app = serve_app(tmp_path)
    db = tmp_path / "ricorda.db"
    try:
        writer = app.core.pipeline.cache.learning
        with writer._cond:  # the writer cannot store anything while this is held
            ans = app.core.answering.answer(Request(CHINA24))
            assert ans.served_by == "planner"
            assert _count(db, "SELECT count(*) FROM turns WHERE id = ?", ans.turn_id) == 1
            assert _count(db, "SELECT count(*) FROM fastpaths") == 0  # not stored yet...
        # ...but served from memory
        assert app.core.answering.answer(Request(CHINA24)).served_by == "L0a"
        deadline = time.monotonic() + 5
        while _count(db, "SELECT count(*) FROM fastpaths") == 0:  # no flush: the wake
            assert time.monotonic() < deadline, "the woken writer never stored the plan"
            time.sleep(0.005)
        # a plan another process deletes is no longer served here
        other = sqlite3.connect(db)
        try:
            other.execute("DELETE FROM fastpaths")
            other.commit()
        finally:
            other.close()
        assert app.core.answering.answer(Request(CHINA24)).served_by == "planner"
    finally:
        app.close()


def test_a_follow_up_continues_the_context_the_writer_has_not_stored_yet(
    tmp_path: Path,
) -> None:
    """A serving process leaves the conversation's context to the writer: a follow-up asked
    at once reads it from memory; the writer stores it by itself, for another replica."""
    app = serve_app(tmp_path)
    db = tmp_path / "ricorda.db"
    try:
        # the question's plan is stored already (asked in another chat): its repeat registers
        # no plan, so the follow-up does not wait for the writer (a chat waits only for a plan
        # its own last answer registered: core/pipeline/pipeline.py) and reads the context from
        # memory
        app.core.answering.answer(Request(CHINA24, chat="telegram:8"))
        app.core.pipeline.flush()
        # the writer cannot store anything while this is held
        with app.core.pipeline.cache.learning._cond:
            answer = app.core.answering.answer
            first = answer(Request(CHINA24, chat="telegram:7", conversation="t1"))
            follow = answer(Request("and Hong Kong?", chat="telegram:7", conversation="t1"))
            assert _count(db, "SELECT count(*) FROM conversations WHERE conversation = 't1'") == 0
        assert first.succeeded and "1,320" in first.text
        assert "410" in follow.text and "1,320" not in follow.text, follow.text
        deadline = time.monotonic() + 5  # no flush: the writer's own look
        while _count(db, "SELECT count(*) FROM conversations WHERE conversation = 't1'") == 0:
            assert time.monotonic() < deadline, "the writer never stored the context"
            time.sleep(0.01)
    finally:
        app.close()
    # another process (a replica, a restart) continues the conversation from the database
    again = build_app(load_settings(data_dir=tmp_path, embedder="use", reference_date="2026-06-15"))
    try:
        later = again.core.answering.answer(
            Request("and in FY2025?", chat="telegram:7", conversation="t1")
        )
        assert "455" in later.text, later.text  # Hong Kong revenue, carried from the follow-up
    finally:
        again.close()


def test_serving_connections_leave_checkpoints_to_the_thread(tmp_path: Path) -> None:
    app = serve_app(tmp_path)
    try:
        assert app.storage.checkpointer is not None
        with app.storage.engine.connect() as conn:
            pages = conn.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar()
        assert pages == SAFETY_PAGES
        for n in range(30):
            app.core.answering.answer(Request(f"What was ACME China revenue in FY{2000 + n}?"))
        assert app.storage.checkpointer.checkpoint()
        # everything in the log is in the database file now: nothing left to copy
        probe = sqlite3.connect(tmp_path / "ricorda.db")
        try:
            busy, log_frames, copied = probe.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        finally:
            probe.close()
        assert busy == 0 and log_frames == copied
    finally:
        app.close()
    assert not app.storage.checkpointer._thread.is_alive()


def test_a_one_shot_process_keeps_sqlites_own_checkpoints(tmp_path: Path) -> None:
    serve_app(tmp_path).close()
    app = build_app(load_settings(data_dir=tmp_path, embedder="use"), one_shot=True)
    try:
        assert app.storage.checkpointer is None
        with app.storage.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar() == 1000
    finally:
        app.close()


def test_the_checkpoint_thread_ends_with_an_application_nobody_closed(tmp_path: Path) -> None:
    from storage.engine import make_engine, sqlite_url

    engine = make_engine(sqlite_url(tmp_path))
    checkpointer = WalCheckpointer(engine, interval_s=0.02)
    thread = checkpointer._thread
    del engine
    gc.collect()
    thread.join(timeout=5)
    assert not thread.is_alive()


def test_a_queued_record_is_written_without_a_flush_and_a_flush_is_immediate() -> None:
    written: list[int] = []
    done = threading.Event()

    def handle(batch: list[int]) -> None:
        written.extend(batch)
        done.set()

    learning: BackgroundLearning[int] = BackgroundLearning(handle, poll_s=0.05)
    try:
        learning.submit(1)
        assert done.wait(5), "the writer never looked at its queue"
        slow: BackgroundLearning[int] = BackgroundLearning(written.extend, poll_s=60)
        try:
            slow.submit(2)
            start = time.monotonic()
            slow.flush()
            assert time.monotonic() - start < 5  # woken by the flush, not its next look
        finally:
            slow.close()
    finally:
        learning.close()
    assert written == [1, 2]
