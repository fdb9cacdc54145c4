"""Shared fixtures: every storage test runs on SQLite and on PostgreSQL.

PostgreSQL tests use the server at 127.0.0.1:5432 (trust auth, database `test`; override with
RICORDA_TEST_POSTGRES_URL). Each test gets its own fresh schema, selected through the URL's
`options=-csearch_path=...`, and dropped afterwards, so tests never see each other's rows. When
the server is unreachable the PostgreSQL variants are skipped, unless RICORDA_REQUIRE_POSTGRES=1
(CI), in which case they fail.
"""

from __future__ import annotations

import contextlib
import functools
import os
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, settings
from sqlalchemy.engine import Engine

from storage.db import open_database

if TYPE_CHECKING:
    from core.contracts.learning_ports import FastpathStore

pytest_plugins = ["tests.acme"]  # the ACME knowledge-base fixtures

# Hypothesis' deadline (200 ms per example unless a test says otherwise) and its too-slow health
# check time the wall clock, which a busy machine stretches: a full suite beside another one
# failed a 300 ms deadline at 347 ms. Tests that guard against runaway work assert a CPU budget
# scaled to the load instead (tests/cpu_budget.py).
settings.register_profile(
    "ricorda", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ricorda")

POSTGRES_URL = os.environ.get(
    "RICORDA_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


def _libpq_url(url: str) -> str:
    return url.replace("postgresql+psycopg://", "postgresql://", 1)


@functools.cache
def _postgres_unreachable() -> str | None:
    """Why PostgreSQL cannot be used, or None when it can (checked once per session)."""
    try:
        import psycopg

        psycopg.connect(_libpq_url(POSTGRES_URL), connect_timeout=3).close()
    except Exception as exc:  # any failure means "not available here"
        return f"{exc.__class__.__name__}: {str(exc).strip().splitlines()[0] if str(exc) else ''}"
    return None


def _require_postgres() -> None:
    problem = _postgres_unreachable()
    if problem is None:
        return
    message = f"PostgreSQL at {POSTGRES_URL} is unreachable ({problem})"
    if os.environ.get("RICORDA_REQUIRE_POSTGRES") == "1":
        pytest.fail(message + " and RICORDA_REQUIRE_POSTGRES=1")
    pytest.skip(message)


@contextlib.contextmanager
def fresh_postgres_schema(prefix: str = "ricorda_t") -> Iterator[str]:
    """A URL whose connections live in a new, empty schema, dropped afterwards."""
    _require_postgres()
    import psycopg

    schema = f"{prefix}_{secrets.token_hex(6)}"
    with psycopg.connect(_libpq_url(POSTGRES_URL), autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    separator = "&" if "?" in POSTGRES_URL else "?"
    try:
        yield f"{POSTGRES_URL}{separator}options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(_libpq_url(POSTGRES_URL), autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@pytest.fixture
def postgres_schema_url() -> Iterator[str]:
    """A fresh PostgreSQL schema for one test."""
    with fresh_postgres_schema() as url:
        yield url


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database URL for a fresh, empty database: SQLite in tmp_path, or a PostgreSQL schema."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'ricorda.db'}"
    return request.getfixturevalue("postgres_schema_url")


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    """An engine with every ricorda table created, disposed at teardown."""
    engine = open_database(db_url)
    try:
        yield engine
    finally:
        engine.dispose()


def plans_stored(fastpaths: FastpathStore, *questions: str, timeout: float = 30.0) -> int:
    """The number of stored plans once each of `questions` has its plan stored. A serving bot in
    another process stores a new plan a moment after the answer (its learning writer, woken as
    the answer returns: core.pipeline.pipeline), and in the order the answers were given; the
    test waits for that state itself, not for a quiet period that a busy machine can fake."""
    from core.fastpath.canonical import cache_key
    from core.language import detect_language

    hashes = [cache_key(q, detect_language(q))[1] for q in questions]
    deadline = time.monotonic() + timeout
    while not all(fastpaths.by_hash(h) is not None for h in hashes):
        if time.monotonic() > deadline:
            raise TimeoutError(f"no plan stored within {timeout} s for {questions!r}")
        time.sleep(0.02)
    return fastpaths.count()

