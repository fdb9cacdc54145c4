"""`ricorda backup` and `ricorda restore`, end to end through the CLI: a backup taken while the
bot answers (and writes turns) restores into a fresh data dir that answers the same."""

from __future__ import annotations

import json
import sqlite3
import stat
import threading
from pathlib import Path

import pytest

from tests.test_cli import ricorda

HASHING = {"RICORDA_EMBEDDER": "hashing"}
FIGURE = "What was Orbis China revenue in FY2024?"
DOCUMENT = "Why did China revenue fall in 2025?"


def _ask(data: Path, question: str) -> dict:  # type: ignore[type-arg]
    out = ricorda(data, "ask", question, "--json", "--reference-date", "2026-03-15",
                  env=HASHING).stdout
    answer = json.loads(out)
    return {"route": answer["route"], "facts": answer["facts"],
            "citations": [(c["doc"], c["locator"]) for c in answer["citations"]],
            "passages": [p["text"] for p in answer["passages"]]}


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("backup") / "data"
    ricorda(data, "demo", "--no-chat", env=HASHING, timeout=600)
    return data


@pytest.fixture(scope="module")
def backup(demo: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A backup taken while another process's application answers questions, writing a turn
    for each (what `serve` does to the database while it runs)."""
    from bot.settings.model import load_settings
    from bot.wiring.build import build_app
    from core.contracts.types import Request

    dest = tmp_path_factory.mktemp("backups") / "b1"
    app = build_app(load_settings(data_dir=demo, embedder="hashing"))
    done = threading.Event()
    answered: list[str] = []

    def answer_meanwhile() -> None:
        while not done.is_set():
            answer = app.core.pipeline.answer(Request(text=FIGURE, chat="console:serve"))
            answered.append(answer.turn_id)

    worker = threading.Thread(target=answer_meanwhile)
    worker.start()
    try:
        while not answered:  # the writer is running before the backup starts
            threading.Event().wait(0.05)
        proc = ricorda(demo, "backup", str(dest), env=HASHING)
    finally:
        done.set()
        worker.join()
        app.close()
    assert "copied with SQLite's online backup" in proc.stdout
    return dest


def test_backup_while_answering_is_a_consistent_private_copy(backup: Path) -> None:
    with sqlite3.connect(backup / "ricorda.db") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert conn.execute("SELECT count(*) FROM facts").fetchone()[0] == 155
        assert conn.execute("SELECT count(*) FROM turns").fetchone()[0] >= 1
    with sqlite3.connect(backup / "chroma" / "chroma.sqlite3") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    manifest = json.loads((backup / "ricorda-backup.json").read_text())
    assert manifest["database"] == "sqlite" and manifest["schema"]
    assert not (backup / ".env").exists()
    for path in [backup, *backup.rglob("*")]:
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode == (0o700 if path.is_dir() else 0o600), path


def test_restore_into_a_fresh_data_dir_gives_the_same_answers(
    demo: Path, backup: Path, tmp_path: Path
) -> None:
    fresh = tmp_path / "fresh"
    out = ricorda(fresh, "restore", str(backup), env=HASHING).stdout
    assert "database schema up to date" in out
    for question in (FIGURE, DOCUMENT):
        assert _ask(fresh, question) == _ask(demo, question)
    assert _ask(fresh, DOCUMENT)["citations"]  # the vector store came back too


def test_restore_refuses_a_data_dir_in_use_without_force(
    demo: Path, backup: Path, tmp_path: Path
) -> None:
    used = tmp_path / "used"
    ricorda(used, "restore", str(backup), env=HASHING)
    again = ricorda(used, "restore", str(backup), env=HASHING, check=False)
    assert again.returncode == 2
    assert "is not empty" in again.stderr and "--force" in again.stderr
    forced = ricorda(used, "restore", str(backup), "--force", env=HASHING)
    assert "restored" in forced.stdout
    assert _ask(used, FIGURE) == _ask(demo, FIGURE)
    secrets_only = tmp_path / "deployed"
    secrets_only.mkdir()
    (secrets_only / ".env").write_text("RICORDA_LOG_LEVEL=WARNING\n")
    ricorda(secrets_only, "restore", str(backup), env=HASHING)  # .env alone: still fresh


def test_backup_refuses_a_folder_that_holds_something(demo: Path, tmp_path: Path) -> None:
    dest = tmp_path / "dest"
    dest.mkdir()
    (dest / "keep.txt").write_text("mine")
    proc = ricorda(demo, "backup", str(dest), env=HASHING, check=False)
    assert proc.returncode == 2 and "not empty" in proc.stderr
    assert (dest / "keep.txt").read_text() == "mine"


def test_restore_of_an_older_backup_migrates(demo: Path, backup: Path, tmp_path: Path) -> None:
    """A backup taken by the previous schema version is brought up to this one."""
    import shutil

    from alembic import command
    from sqlalchemy import create_engine

    from storage.migrations import alembic_config
    from storage.migrations.head import HEAD

    old = tmp_path / "old"
    shutil.copytree(backup, old)
    engine = create_engine(f"sqlite:///{old / 'ricorda.db'}")
    with engine.begin() as conn:
        command.downgrade(alembic_config(conn), "0003_conversations")
    engine.dispose()
    fresh = tmp_path / "fresh"
    out = ricorda(fresh, "restore", str(old), env=HASHING).stdout
    assert f"database schema: 0003_conversations -> {HEAD}" in out
    assert _ask(fresh, FIGURE) == _ask(demo, FIGURE)


def test_restore_of_something_else_is_refused(tmp_path: Path) -> None:
    (tmp_path / "not-a-backup").mkdir()
    proc = ricorda(tmp_path / "data", "restore", str(tmp_path / "not-a-backup"), check=False)
    assert proc.returncode == 2 and "not a ricorda backup" in proc.stderr
    assert not (tmp_path / "data" / "ricorda.db").exists()
