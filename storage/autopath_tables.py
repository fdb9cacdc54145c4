"""Tables for L1 autopaths (design section 4.2): observations, autopaths, anti-autopaths.

Observations carry their embedding (float32 bytes) so the in-memory cluster index can be
rebuilt from the database at start. `turn_id` is not a foreign key on `turns`: the cascade may
observe a turn before or after recording it, and pruning turns must not erase what L1 learnt.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, Column, Index, LargeBinary, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from storage.columns import UtcDateTime, utcnow


def _when(*, nullable: bool = False, index: bool = False) -> Any:
    column = Column(UtcDateTime, nullable=nullable, index=index)
    if nullable:
        return Field(default=None, sa_column=column)
    return Field(default_factory=utcnow, sa_column=column)


class AutopathObservationRow(SQLModel, table=True):
    """One answered turn as L1 saw it, with the verdicts counted on it."""

    __tablename__ = "autopath_observations"
    __table_args__ = (
        Index("ix_autopath_observations_cluster_created", "cluster_id", "created_at"),
    )

    turn_id: str = Field(primary_key=True)
    intent: str = Field(sa_column=Column(Text, nullable=False))
    intent_hash: str = Field(index=True)
    cluster_id: str
    framework_hash: str
    plan: Any = Field(sa_column=Column(JSON, nullable=False))
    embedding: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    query_specific: bool = False
    latency_ms: float = 0.0
    positives: int = 0
    negatives: int = 0
    restricted: bool = False  # asked from a cleared chat (core.knowledge.clearance)
    created_at: dt.datetime = _when(index=True)


class AutopathRow(SQLModel, table=True):
    """A plan's record in one intent cluster: candidate, active or demoted."""

    __tablename__ = "autopaths"
    __table_args__ = (
        UniqueConstraint("cluster_id", "framework_hash", name="uq_autopaths_cluster_framework"),
    )

    id: int | None = Field(default=None, primary_key=True)
    cluster_id: str = Field(index=True)
    framework_hash: str
    intent_hash: str
    plan: Any = Field(sa_column=Column(JSON, nullable=False))
    confirmations: int = 0
    failures: int = 0
    uses: int = 0
    failed_uses: int = 0
    mean_latency_ms: float | None = None
    status: str = Field(default="candidate", index=True)  # candidate | active | demoted
    created_at: dt.datetime = _when()
    updated_at: dt.datetime = _when()
    promoted_at: dt.datetime | None = _when(nullable=True)
    last_used_at: dt.datetime | None = _when(nullable=True)
    demoted_at: dt.datetime | None = _when(nullable=True)


class AntiAutopathRow(SQLModel, table=True):
    """Negative verdicts on (intent hash, framework hash) in one cluster, and the block."""

    __tablename__ = "anti_autopaths"
    __table_args__ = (
        UniqueConstraint(
            "cluster_id", "intent_hash", "framework_hash", name="uq_anti_autopaths_key"
        ),
        Index("ix_anti_autopaths_intent_framework", "intent_hash", "framework_hash"),
    )

    id: int | None = Field(default=None, primary_key=True)
    cluster_id: str = Field(index=True)
    intent_hash: str
    framework_hash: str
    failures: int = 0
    blocked_until: dt.datetime | None = _when(nullable=True)
    updated_at: dt.datetime = _when()
