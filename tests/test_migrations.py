"""Schema migrations: an older database upgrades in place and loses nothing; the migrations and
the SQLModel tables never disagree (this test fails until a schema change has its migration)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, inspect, text

from storage.db import open_database
from storage.glossary_store import SqlGlossaryStore
from storage.migrations import HEAD, alembic_config, target_metadata

FIXTURES = Path(__file__).parent / "fixtures"
REPO = Path(__file__).resolve().parents[1]
TS = "2026-03-04 05:06:07"

# rows in the previous release's schema: every kind of value (text, JSON, timestamps, keys)
ROWS = {
    "facts": [
        "INSERT INTO facts (metric, entity, period_type, period, channel, value, unit, source_doc,"
        " source_locator, updated_at) VALUES ('revenue', 'ACME', 'FY', '2025', 'TOTAL',"
        " '1234.50', 'EUR', 'facts.csv', 'row 2', :ts)",
        "INSERT INTO facts (metric, entity, period_type, period, channel, value, unit, source_doc,"
        " source_locator, updated_at) VALUES ('revenue', 'ACME', 'Q', '2025Q1', 'ONLINE',"
        " '-0.001', '', 'facts.csv', 'row 3', :ts)",
    ],
    "turns": [
        'INSERT INTO turns (id, chat, "user", question, language, route, served_by, plan,'
        " answer_text, options, fixed_slots, answer, latency_ms, reference_date, parent_turn,"
        " created_at) VALUES ('t1', 'telegram:1', 'u1', 'fatturato 2025?', 'it', 'structured',"
        " 'planner', '[{\"tool\": \"lookup\"}]', 'Ricavi 1.234,50 €', '[]', '{}',"
        " '{\"facts\": []}', 12.5, NULL, NULL, :ts)",
    ],
    "feedback": [
        'INSERT INTO feedback (turn_id, "user", verdict, via, created_at)'
        " VALUES ('t1', 'u1', 'positive', 'reaction', :ts)",
    ],
    "message_map": [
        "INSERT INTO message_map (platform, chat, message_id, turn_id, created_at)"
        " VALUES ('telegram', '1', '501', 't1', :ts)",
    ],
    "glossary": [
        "INSERT INTO glossary (id, text, source_path, sha256, loaded_at)"
        " VALUES (1, '[metrics.revenue]\nnames = [\"revenue\"]\n', 'glossary.toml', 'abc', :ts)",
    ],
}


def _old_database(url: str, dialect: str, *, skip: str = "deliveries") -> None:
    """The previous release's schema (frozen DDL) with rows in it; without `skip`, a table
    that release created only on first use."""
    ddl = (FIXTURES / f"schema_a173d47.{dialect}.sql").read_text()
    statements = [s.strip() for s in ddl.split(";") if s.strip()]
    engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    with engine.begin() as conn:
        for statement in statements:
            body = "\n".join(x for x in statement.splitlines() if not x.startswith("--"))
            if body.strip() and f" {skip} " not in body and f" {skip}\n" not in body:
                conn.execute(text(body))
        for table in ROWS:
            for insert in ROWS[table]:
                conn.execute(text(insert), {"ts": TS})
    engine.dispose()


def _snapshot(
    url: str, columns: dict[str, list[str]] | None = None
) -> dict[str, list[tuple[object, ...]]]:
    """Every row of the tables in ROWS; with `columns`, only those columns (the old schema's:
    a migration may add columns, never lose a value)."""
    engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    with engine.connect() as conn:
        if columns is None:
            columns = {t: [c["name"] for c in inspect(conn).get_columns(t)] for t in ROWS}
        rows = {
            t: sorted(
                map(tuple, conn.execute(text(f"SELECT {', '.join(columns[t])} FROM {t}"))),
                key=repr,
            )
            for t in ROWS
        }
    engine.dispose()
    return rows


def _columns(url: str) -> dict[str, list[str]]:
    engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    with engine.connect() as conn:
        columns = {t: [c["name"] for c in inspect(conn).get_columns(t)] for t in ROWS}
    engine.dispose()
    return columns


def _dialect(url: str) -> str:
    return "sqlite" if url.startswith("sqlite") else "postgresql"


def _diff(url: str) -> list[object]:
    engine = open_database(url)
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), target_metadata())
    engine.dispose()
    return diff


def test_head_constant_is_alembics_head() -> None:
    """The cheap check at start compares against HEAD: it must be the newest migration."""
    assert ScriptDirectory.from_config(alembic_config()).get_current_head() == HEAD


def test_migrations_build_exactly_the_sqlmodel_tables(db_url: str) -> None:
    """A fresh database built by the migrations alone matches the tables the code declares.
    Fails when someone changes a table without writing its migration."""
    assert _diff(db_url) == []


def test_previous_release_database_upgrades_with_ricorda_migrate(
    db_url: str, tmp_path: Path
) -> None:
    """A database from the release before migrations, with data, upgrades with the command an
    operator runs; every row is still there, the missing table is created, and reopening it
    later does nothing."""
    _old_database(db_url, _dialect(db_url))
    before = _snapshot(db_url)
    old_columns = _columns(db_url)
    env = {**os.environ, "RICORDA_DATA_DIR": str(tmp_path / "data"), "RICORDA_DATABASE_URL": db_url}
    done = subprocess.run(
        [sys.executable, "-m", "bot", "migrate"],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert f"none -> {HEAD}" in done.stdout
    assert _snapshot(db_url, old_columns) == before
    engine = open_database(db_url)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == HEAD
        assert inspect(conn).has_table("deliveries")
    glossary = SqlGlossaryStore(engine).load()
    assert glossary is not None and "revenue" in glossary.text
    engine.dispose()
    assert _diff(db_url) == []
    again = subprocess.run(
        [sys.executable, "-m", "bot", "migrate"],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert again.returncode == 0 and "up to date" in again.stdout


def test_a_database_newer_than_this_release_is_refused(tmp_path: Path) -> None:
    """Downgrading ricorda over a migrated database: a clear error, not a crash later."""
    url = f"sqlite:///{tmp_path / 'r.db'}"
    open_database(url).dispose()
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '9999_future'"))
    engine.dispose()
    from core.contracts.errors import StorageError

    with pytest.raises(StorageError, match="newer ricorda"):
        open_database(url)
