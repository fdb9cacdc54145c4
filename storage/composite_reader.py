"""The approved composite executors, as the catalog reads them on the answer path.

The catalog loads them when an application starts and again every refresh. This reader names
only the columns it reads (a table clause, not the SQLModel class), so a one-shot `ricorda ask`
neither defines the maintenance tables nor imports the nightly job's modules: those come with
`storage.promotion_store`, which writes the executors and reads them through this function.
"""

from __future__ import annotations

from sqlalchemy import JSON, String, Text, column, select, table
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

from core.contracts.composites import CompositeSpec
from core.contracts.errors import StorageError

ACTIVE = "active"  # an executor's status while it serves (retired ones are kept for history)

EXECUTORS = table(
    "executors",  # storage.maintenance_tables.ExecutorRow declares it
    column("name", String),
    column("route", String),
    column("steps", JSON),
    column("shape", JSON),
    column("assumed", JSON),
    column("intent", Text),
    column("framework_hash", String),
    column("status", String),
)


def read_composites(engine: Engine) -> list[CompositeSpec]:
    """The active composite executors by name; a StorageError when they cannot be read."""
    e = EXECUTORS.c
    query = select(EXECUTORS).where(e.status == ACTIVE).order_by(e.name)
    try:
        with engine.connect() as conn:
            rows = list(conn.execute(query))
    except SQLAlchemyError as exc:
        raise StorageError(f"cannot read proposals: {exc.__class__.__name__}") from exc
    return [
        CompositeSpec(
            name=r.name, route=r.route, steps=list(r.steps), intent=r.intent,
            framework_hash=r.framework_hash, shape=dict(r.shape), assumed=list(r.assumed),
        )
        for r in rows
    ]
