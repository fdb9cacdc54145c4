"""Tables of the nightly maintenance (design sections 4.3 and 4.4).

- `maintenance_log`: every removal (entry, kind, rule, time), written in the transaction that
  removes it, so the log never claims a removal that did not happen, nor misses one.
- `maintenance_runs`: one row per night the scheduled job completed, so replicas sharing the
  database run it once a night even when one finishes before the other tries.
- `maintenance_locks`: a lock row with an expiry (SQLite); PostgreSQL uses an advisory lock.
- `proposals`: one row per (framework hash, intent) ever proposed, whatever became of it, so a
  group is proposed once and a rejection is remembered.
- `executors`: approved composite executors (macros), loaded into the catalog at start.
- `promotions`: provenance, the L0 entries (id and canonical hash) each executor replaced.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, Index, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from storage.columns import UtcDateTime, utcnow


def _when(*, nullable: bool = False, index: bool = False) -> Any:
    column = Column(UtcDateTime, nullable=nullable, index=index)
    if nullable:
        return Field(default=None, sa_column=column)
    return Field(default_factory=utcnow, sa_column=column)


class MaintenanceLogRow(SQLModel, table=True):
    __tablename__ = "maintenance_log"

    id: int | None = Field(default=None, primary_key=True)
    run_id: str = Field(index=True)
    kind: str  # fastpath | autopath
    entry_id: str = Field(index=True)
    rule: str  # never_reused | unused | over_cap | missing_tool | superseded | ...
    detail: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    uses: int = 0
    heir: str | None = None  # the executor that inherited the uses (rule superseded)
    at: dt.datetime = _when()


class MaintenanceRunRow(SQLModel, table=True):
    __tablename__ = "maintenance_runs"

    night: str = Field(primary_key=True)  # local date, YYYY-MM-DD
    run_id: str
    finished_at: dt.datetime = _when()
    summary: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))


class MaintenanceLockRow(SQLModel, table=True):
    __tablename__ = "maintenance_locks"

    name: str = Field(primary_key=True)
    holder: str = ""
    expires_at: dt.datetime = _when()


class ProposalRow(SQLModel, table=True):
    __tablename__ = "proposals"
    __table_args__ = (
        UniqueConstraint("framework_hash", "intent", name="uq_proposals_group"),
        Index("ix_proposals_status", "status"),
    )

    id: int | None = Field(default=None, primary_key=True)
    framework_hash: str
    intent: str = Field(sa_column=Column(Text, nullable=False))
    route: str
    plan: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    members: list[list[str]] = Field(sa_column=Column(JSON, nullable=False))  # [id, hash]
    entries: int
    uses: int
    oldest_at: dt.datetime = _when()
    status: str = "pending"  # pending | approved | rejected
    tier2_nights: int = 0
    last_seen_night: str = ""
    created_at: dt.datetime = _when()
    decided_at: dt.datetime | None = _when(nullable=True)
    decided_by: str | None = None
    decided_night: str | None = None
    executor_name: str | None = None
    restricted: bool = False  # a member was asked from a cleared chat (core.nightly.promotion)


class ExecutorRow(SQLModel, table=True):
    __tablename__ = "executors"

    name: str = Field(primary_key=True)
    route: str
    steps: list[dict[str, Any]] = Field(sa_column=Column(JSON, nullable=False))
    shape: dict[str, int] = Field(sa_column=Column(JSON, nullable=False))
    assumed: list[str] = Field(sa_column=Column(JSON, nullable=False))
    intent: str = Field(sa_column=Column(Text, nullable=False))
    framework_hash: str
    proposal_id: int | None = None
    status: str = Field(default="active", index=True)  # active | retired
    inherited_uses: int = Field(
        default=0, sa_column=Column(BigInteger, nullable=False, default=0)
    )
    approved_by: str = ""
    created_at: dt.datetime = _when()
    retired_at: dt.datetime | None = _when(nullable=True)
    retired_by: str | None = None


class PromotionRow(SQLModel, table=True):
    __tablename__ = "promotions"
    __table_args__ = (
        UniqueConstraint("executor_name", "fastpath_id", name="uq_promotions_member"),
        Index("ix_promotions_fastpath", "fastpath_id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    executor_name: str = Field(index=True)
    fastpath_id: str
    canonical_hash: str
    framework_hash: str
    created_at: dt.datetime = _when()
