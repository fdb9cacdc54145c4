"""Retention of turns (RICORDA_TURN_RETENTION_DAYS) and the data dir's file modes."""

from __future__ import annotations

import datetime as dt
import stat
from pathlib import Path

from sqlalchemy import func, select
from sqlalchemy.engine import Engine

from storage.db import open_database
from storage.tables import FeedbackRow, MessageMapRow, TurnRow
from storage.tables import SQLModel as _SQLModel
from storage.turn_retention import expire_turns
from storage.turn_store import SqlTurnStore
from tests.acme import load_acme
from tests.test_cli import ricorda
from tests.test_storage_turns import turn

NOW = dt.datetime(2026, 12, 3, 3, 0, tzinfo=dt.UTC)


def _at(engine: Engine, moment: dt.datetime) -> SqlTurnStore:
    return SqlTurnStore(engine, clock=lambda: moment)


def _counts(engine: Engine) -> dict[str, int]:
    with engine.connect() as conn:
        return {name: conn.execute(select(func.count()).select_from(table)).scalar_one()
                for name, table in _SQLModel.metadata.tables.items()}


def _ids(engine: Engine) -> set[str]:
    with engine.connect() as conn:
        return set(conn.execute(select(TurnRow.__table__.c.id)).scalars())  # type: ignore[attr-defined]


def _history(engine: Engine) -> None:
    """Turns 200 days old, 181, 179 and 1 day old, each with feedback and a message mapping."""
    for name, days in (("t200", 200), ("t181", 181), ("t179", 179), ("t1", 1)):
        store = _at(engine, NOW - dt.timedelta(days=days))
        store.record_turn(turn(name))
        store.set_feedback(name, "telegram:42", "positive", "reaction")
        store.map_message("telegram", "1", f"m-{name}", name)


def test_old_turns_go_with_their_feedback_and_nothing_else(engine: Engine) -> None:
    _history(engine)
    before = _counts(engine)
    cutoff = NOW - dt.timedelta(days=180)
    assert expire_turns(engine, cutoff, dry_run=True) == 2
    assert _counts(engine) == before  # a dry run writes nothing
    assert expire_turns(engine, cutoff) == 2
    assert _ids(engine) == {"t179", "t1"}
    after = _counts(engine)
    for table, count in before.items():
        removed = 2 if table in (TurnRow.__tablename__, FeedbackRow.__tablename__,
                                 MessageMapRow.__tablename__) else 0
        assert after[table] == count - removed, table
    assert expire_turns(engine, cutoff) == 0


def test_the_nightly_job_removes_turns_past_the_setting(tmp_path: Path) -> None:
    data = load_acme(tmp_path / "data")
    engine = open_database(f"sqlite:///{data / 'ricorda.db'}")
    now = dt.datetime.now(dt.UTC)
    _at(engine, now - dt.timedelta(days=40)).record_turn(turn("old"))
    _at(engine, now - dt.timedelta(days=5)).record_turn(turn("recent"))
    dry = ricorda(data, "maintain", "--dry-run", env={"RICORDA_TURN_RETENTION_DAYS": "30"})
    assert "turns: would remove 1 past the retention period" in dry.stdout
    kept = ricorda(data, "maintain")  # the default, 180 days
    assert "turns:" not in kept.stdout
    assert {"old", "recent"} <= _ids(engine)
    ricorda(data, "maintain", env={"RICORDA_TURN_RETENTION_DAYS": "0"})  # 0: keep them all
    assert {"old", "recent"} <= _ids(engine)
    done = ricorda(data, "maintain", env={"RICORDA_TURN_RETENTION_DAYS": "30"})
    assert "turns: removed 1 past the retention period" in done.stdout
    assert "old" not in _ids(engine) and "recent" in _ids(engine)
    engine.dispose()


def test_a_negative_retention_is_a_setting_mistake(tmp_path: Path) -> None:
    proc = ricorda(tmp_path / "data", "maintain", check=False,
                   env={"RICORDA_TURN_RETENTION_DAYS": "-1"})
    assert proc.returncode == 2 and "RICORDA_TURN_RETENTION_DAYS" in proc.stderr


def test_a_new_data_dir_and_its_database_are_private(tmp_path: Path) -> None:
    data = tmp_path / "new" / "data"
    load_acme(data)
    ricorda(data, "ask", "ACME revenue FY2024?")
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    for name in ("ricorda.db", "ricorda.db-wal", "ricorda.db-shm"):
        if (data / name).exists():
            assert stat.S_IMODE((data / name).stat().st_mode) == 0o600, name
    assert (data / "ricorda.db").stat().st_size > 0
