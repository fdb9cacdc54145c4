"""The relational tables ricorda keeps: facts, turns, feedback, the platform message map and the
glossary.

They are plain SQLModel tables so the same definitions serve SQLite and PostgreSQL. Repositories
(`fact_store`, `turn_store`, `glossary_store`) talk to them through SQLAlchemy Core for speed;
the classes here are the single description of the schema.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, Index, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from storage.columns import UtcDateTime, utcnow

__all__ = ["FACT_KEY", "UtcDateTime", "utcnow"]  # the column helpers, where migrations find them

FACT_KEY = ("metric", "entity", "period_type", "period", "channel")


def _ts(*, index: bool = False) -> Any:
    column = Column(UtcDateTime, nullable=False, index=index, default=utcnow)
    return Field(default_factory=utcnow, sa_column=column)


def _json() -> Any:
    return Field(sa_column=Column(JSON, nullable=False))


class FactRow(SQLModel, table=True):
    """One number with its lineage. `value` is the exact decimal text, never a float."""

    __tablename__ = "facts"
    __table_args__ = (UniqueConstraint(*FACT_KEY, name="uq_facts_key"),)

    id: int | None = Field(default=None, primary_key=True)
    metric: str
    entity: str
    period_type: str  # FY | HY | Q | M
    period: str  # 2025, 2025H1, 2025Q3, 2025-03
    channel: str = "TOTAL"
    value: str = Field(sa_column=Column(Text, nullable=False))
    unit: str = ""
    source_doc: str
    source_locator: str = ""
    updated_at: dt.datetime = _ts()


class TurnRow(SQLModel, table=True):
    """Everything remembered about one answered request (see core.contracts.ports.TurnRecord)."""

    __tablename__ = "turns"

    id: str = Field(primary_key=True)
    chat: str = Field(index=True)
    user: str = ""
    question: str = Field(sa_column=Column(Text, nullable=False))
    language: str = "en"
    route: str
    served_by: str
    plan: list[dict[str, Any]] = _json()
    answer_text: str = Field(sa_column=Column(Text, nullable=False))
    options: list[dict[str, str]] = _json()
    fixed_slots: dict[str, str] = _json()
    answer: dict[str, Any] = _json()
    latency_ms: float = 0.0
    reference_date: str | None = None
    parent_turn: str | None = None
    restricted: bool = False  # asked from a cleared chat: its text is for cleared eyes only
    created_at: dt.datetime = _ts(index=True)


class FeedbackRow(SQLModel, table=True):
    """One user's current verdict on one turn; a new verdict replaces the old one."""

    __tablename__ = "feedback"
    __table_args__ = (UniqueConstraint("turn_id", "user", name="uq_feedback_turn_user"),)

    id: int | None = Field(default=None, primary_key=True)
    turn_id: str = Field(foreign_key="turns.id", ondelete="CASCADE", index=True)
    user: str
    verdict: str  # positive | negative
    via: str  # reaction | reply | cli | ...
    created_at: dt.datetime = _ts()


class MessageMapRow(SQLModel, table=True):
    """Which turn a bot message on a platform answered, so reactions survive a restart."""

    __tablename__ = "message_map"
    __table_args__ = (
        UniqueConstraint("platform", "chat", "message_id", name="uq_message_map_message"),
        Index("ix_message_map_turn_id", "turn_id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    platform: str
    chat: str
    message_id: str
    turn_id: str = Field(foreign_key="turns.id", ondelete="CASCADE")
    created_at: dt.datetime = _ts()


class GlossaryRow(SQLModel, table=True):
    """The loaded glossary (singleton row id=1), so replicas sharing a database share it."""

    __tablename__ = "glossary"

    id: int = Field(default=1, primary_key=True)
    text: str = Field(sa_column=Column(Text, nullable=False))
    source_path: str = ""
    sha256: str
    loaded_at: dt.datetime = _ts()


class KbVersionRow(SQLModel, table=True):
    """One row per part of the knowledge base ("facts", "glossary", "documents").

    Every change to a part moves its `version` inside the same transaction as the change, so
    one primary-key read tells a serving process whether anything it holds in memory is stale
    (storage.kb_version). Rows are created by the first bump; a missing row reads as 0.
    """

    __tablename__ = "kb_version"

    part: str = Field(primary_key=True)
    version: int = Field(default=0, sa_column=Column(BigInteger, nullable=False, default=0))
    changed_at: dt.datetime = _ts()
