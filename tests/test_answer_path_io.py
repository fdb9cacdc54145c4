"""What a serving process does around each answer's SQLite I/O, seen from outside.

A serving process keeps connections for its answer-path statements (no pool checkout per
statement), checkpoints the WAL on a thread instead of in an answer's commit, and lets its
learning writer find queued records by itself instead of being woken from inside an answer.
None of this may lose or hide a write: a registration is at once visible to another process's
connection, a queued use count reaches the database without anyone flushing, a flush is still
immediate, and a checkpoint leaves nothing in the log.
"""

from __future__ import annotations

import gc
import sqlite3
import threading
import time
from pathlib import Path

from bot.app import build_app
from bot.ingest import ingest_paths
from bot.settings import load_settings
from core.fastpath.learning import BackgroundLearning
from core.types import Request
from storage.wal_checkpoint import SAFETY_PAGES, WalCheckpointer
from tests.acme import ACME

CHINA24 = "What was ACME China revenue in FY2024?"


def serve_app(data: Path):  # type: ignore[no-untyped-def]
    app = build_app(load_settings(data_dir=data, embedder="use", reference_date="2026-06-15"))
    ingest_paths(app, [ACME / "glossary.toml", ACME / "facts.csv"])
    return app


def test_a_registration_is_visible_at_once_to_another_connection(tmp_path: Path) -> None:
    app = serve_app(tmp_path)
    try:
        ans = app.answer(Request(CHINA24))
        assert ans.served_by == "planner"
        # another process's view, opened after the answer was returned: plan and turn are there
        other = sqlite3.connect(tmp_path / "ricorda.db")
        try:
            (plans,) = other.execute("SELECT count(*) FROM fastpaths").fetchone()
            (turns,) = other.execute(
                "SELECT count(*) FROM turns WHERE id = ?", (ans.turn_id,)
            ).fetchone()
            # and a plan another process deletes is no longer served here
            other.execute("DELETE FROM fastpaths")
            other.commit()
        finally:
            other.close()
        assert (plans, turns) == (1, 1)
        assert app.answer(Request(CHINA24)).served_by == "planner"
        assert app.answer(Request(CHINA24)).served_by == "L0a"
    finally:
        app.close()


def test_serving_connections_leave_checkpoints_to_the_thread(tmp_path: Path) -> None:
    app = serve_app(tmp_path)
    try:
        assert app.checkpointer is not None
        with app.engine.connect() as conn:
            pages = conn.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar()
        assert pages == SAFETY_PAGES
        for n in range(30):
            app.answer(Request(f"What was ACME China revenue in FY{2000 + n}?"))
        assert app.checkpointer.checkpoint()
        # everything in the log is in the database file now: nothing left to copy
        probe = sqlite3.connect(tmp_path / "ricorda.db")
        try:
            busy, log_frames, copied = probe.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        finally:
            probe.close()
        assert busy == 0 and log_frames == copied
    finally:
        app.close()
    assert not app.checkpointer._thread.is_alive()


def test_a_one_shot_process_keeps_sqlites_own_checkpoints(tmp_path: Path) -> None:
    serve_app(tmp_path).close()
    app = build_app(load_settings(data_dir=tmp_path, embedder="use"), one_shot=True)
    try:
        assert app.checkpointer is None
        with app.engine.connect() as conn:
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
