"""Schema migrations (Alembic), for SQLite and PostgreSQL alike.

`ensure_schema(engine)` runs at every start: one cheap query when the database is already at
`HEAD` (the one-shot `ricorda ask` imports nothing more); otherwise `upgrade` under the lock
replicas use for maintenance, so two replicas starting together migrate once, and never while
the nightly job runs. A database created before migrations existed (tables, no
`alembic_version`) is recognised as the baseline: it gets the tables it lacks, then the newer
migrations.

Adding a migration: change the SQLModel table, then
`python -m storage.migrations revision "what changed"` (autogenerates versions/NNNN_*.py from
the difference), read it, and set `HEAD` in head.py to its revision id. tests/test_migrations.py
fails while the metadata and the migrations disagree.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import MetaData, inspect, text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import SQLAlchemyError

from core.contracts.errors import StorageError
from storage.migrations.head import HEAD

if TYPE_CHECKING:
    from alembic.config import Config

log = logging.getLogger("ricorda.migrations")

HERE = Path(__file__).parent
BASELINE = "0001_baseline"  # the schema of the last release without migrations (a173d47)
BASELINE_TABLES = frozenset({"facts", "turns", "glossary"})  # present in every such database
LOCK_WAIT_S = 600.0


def target_metadata() -> MetaData:
    """Every table ricorda keeps, as the SQLModel classes declare them.

    Each table module registers its classes on SQLModel.metadata when imported; the answer path
    imports only the ones it reads (a one-shot `ask` has no use for the maintenance tables), so
    the complete list is here, where migrations compare and create them."""
    from sqlmodel import SQLModel

    import storage.autopath_tables
    import storage.conversation_store
    import storage.delivery_log
    import storage.document_tables
    import storage.fastpath_tables
    import storage.feedback_reasons
    import storage.inbox
    import storage.kb_version
    import storage.maintenance_tables
    import storage.subscription_tables
    import storage.tables  # noqa: F401  (registers the tables on SQLModel.metadata)

    return SQLModel.metadata


def current_revision(conn: Connection) -> str | None:
    """The stamped revision; None for a database without `alembic_version`."""
    if not inspect(conn).has_table("alembic_version"):
        return None
    return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()


def ensure_schema(engine: Engine) -> None:
    """Bring the database to HEAD; a StorageError naming the cause and the fix otherwise."""
    try:
        with engine.connect() as conn:
            if current_revision(conn) == HEAD:
                return
    except SQLAlchemyError as exc:
        raise StorageError(describe(exc, engine)) from exc
    upgrade_engine(engine)


def upgrade(url: str) -> tuple[str | None, str]:
    """`ricorda migrate`: (revision before, revision after)."""
    from storage.engine import make_engine

    engine = make_engine(url)
    try:
        return upgrade_engine(engine)
    finally:
        engine.dispose()


def upgrade_engine(engine: Engine) -> tuple[str | None, str]:
    from alembic import command
    from alembic.util import CommandError

    try:
        with _schema_lock(engine), engine.begin() as conn:
            before = current_revision(conn)
            if before is None and set(inspect(conn).get_table_names()) >= BASELINE_TABLES:
                # the baseline creates only the tables such a database lacks
                log.info("database without a schema version: recognised as %s", BASELINE)
            if before != HEAD:
                log.info("migrating the database schema from %s to %s", before or "empty", HEAD)
                command.upgrade(alembic_config(conn), "head")
            after = current_revision(conn)
    except SQLAlchemyError as exc:
        raise StorageError(describe(exc, engine)) from exc
    except CommandError:  # a revision this release does not have: a newer one migrated it
        after = None
    if after != HEAD:
        raise StorageError(
            f"the database schema is newer than this ricorda ({HEAD}): run the newer ricorda "
            "release that migrated it"
        )
    return before, after


def alembic_config(conn: Connection | None = None) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(HERE))
    config.attributes["connection"] = conn
    return config


def describe(exc: SQLAlchemyError, engine: Engine) -> str:
    from storage.engine import describe_error

    return describe_error(exc, engine.url.render_as_string(hide_password=True))


@contextlib.contextmanager
def _schema_lock(engine: Engine) -> Iterator[None]:
    """PostgreSQL: the maintenance advisory lock (storage.maintenance_lock), waited for;
    SQLite: an exclusive lock on a file beside the database (one machine by definition)."""
    if engine.dialect.name == "postgresql":
        from storage.maintenance_lock import _key

        with engine.connect() as conn:
            schema = conn.execute(text("SELECT current_schema()")).scalar_one()
            key = _key(f"{schema}:maintenance")
            deadline = time.monotonic() + LOCK_WAIT_S
            while not conn.execute(text("SELECT pg_try_advisory_lock(:k)"), {"k": key}).scalar():
                if time.monotonic() > deadline:
                    raise StorageError(
                        "another replica has held the maintenance lock for "
                        f"{LOCK_WAIT_S:.0f} s: let it finish, then start again"
                    )
                log.info("waiting for another replica's maintenance or migration to finish")
                time.sleep(1.0)
            conn.commit()
            try:
                yield
            finally:
                conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": key})
                conn.commit()
        return
    database = engine.url.database
    if not database or database == ":memory:":
        yield
        return
    with open(f"{database}.migrate-lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
