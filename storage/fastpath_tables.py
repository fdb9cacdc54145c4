"""The table of L0 plan-cache entries (core.contracts.fastpath.FastpathEntry), one row per
question,
and the one-row generation table that tells replicas what changed.

`canonical_hash` is unique so two replicas registering the same question race into one row
(INSERT .. ON CONFLICT). Every write except a use (`touch`) first increments
`fastpath_generation.revision` inside the same transaction; a registration stores that number as
the row's `revision`, a deletion also increments `deletions`. The lock on the generation row is
held to commit, so revisions are handed out in commit order: a replica that has seen revision R
catches up with `revision > R` on an index, and only when `deletions` moved does it list ids to
drop what is gone. No replica clock is involved.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, Index, LargeBinary, Text
from sqlmodel import Field, SQLModel

from storage.columns import UtcDateTime, utcnow


def _ts(*, index: bool = False) -> Any:
    return Field(
        default_factory=utcnow, sa_column=Column(UtcDateTime, nullable=False, index=index)
    )


class FastpathRow(SQLModel, table=True):
    """One cached plan. `embedding` holds float32 bytes (little-endian) of `embedder`'s vector."""

    __tablename__ = "fastpaths"
    __table_args__ = (
        Index("ux_fastpaths_canonical_hash", "canonical_hash", unique=True),
        Index("ix_fastpaths_usage", "n_uses", "last_used_at"),
    )

    id: str = Field(primary_key=True)
    canonical_text: str = Field(sa_column=Column(Text, nullable=False))
    canonical_hash: str
    plan: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    route: str
    intent: str
    intent_hash: str
    framework_hash: str
    origin: str  # planner | cosine | autopath
    query_specific: bool
    embedder: str = ""
    created_at: dt.datetime = _ts()
    last_used_at: dt.datetime = _ts(index=True)
    updated_at: dt.datetime = _ts()
    revision: int = Field(
        default=0, sa_column=Column(BigInteger, nullable=False, default=0, index=True)
    )
    n_uses: int = 0
    # asked from a cleared chat: admin listings show its text only to cleared viewers. Not
    # overwritten by a later registration of the same question (the first one decides).
    restricted: bool = False
    # last, so SQLite reads every other column without walking the blob's overflow pages
    embedding: bytes | None = Field(default=None, sa_column=Column(LargeBinary, nullable=True))


class FastpathGenerationRow(SQLModel, table=True):
    """A single row (id 1): the last revision handed out and how many deletions happened."""

    __tablename__ = "fastpath_generation"

    id: int = Field(default=1, primary_key=True)
    revision: int = Field(default=0, sa_column=Column(BigInteger, nullable=False, default=0))
    deletions: int = Field(default=0, sa_column=Column(BigInteger, nullable=False, default=0))
