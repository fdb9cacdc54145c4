"""Conversation contexts (`core.contracts.ports.ConversationStore`) on SQLite or PostgreSQL.

One row per (chat, conversation key), overwritten by each answered figure: a follow-up reaching
another replica, or a second `ricorda ask --chat`, reads what the previous answer left. Reading
is one primary-key SELECT and writing one upsert, both on the answer path. Rows far past any
sensible expiry are pruned as new ones arrive, so the table stays as small as the number of
conversations active in the last week.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Callable
from typing import Any

from sqlalchemy import JSON, Column, String, delete, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Field, SQLModel

from core.contracts.errors import StorageError
from core.contracts.ports import ConversationContext
from storage.columns import UtcDateTime, utcnow
from storage.engine import answer_path_writes
from storage.upsert import upsert_statement

KEY_CHARS = 200  # a longer chat or conversation key (a free-form --chat) is stored hashed
KEEP = dt.timedelta(days=8)  # longer than the longest TTL a setting allows (a week)
PRUNE_EVERY = 500


class ConversationRow(SQLModel, table=True):
    """The last answered request's slots of one conversation (codes, never answer text)."""

    __tablename__ = "conversations"

    chat: str = Field(sa_column=Column(String(KEY_CHARS), primary_key=True))
    conversation: str = Field(sa_column=Column(String(KEY_CHARS), primary_key=True))
    slots: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    updated_at: dt.datetime = Field(
        default_factory=utcnow, sa_column=Column(UtcDateTime, nullable=False, index=True)
    )


_TABLE = ConversationRow.__table__  # type: ignore[attr-defined]


def _key(value: str) -> str:
    if len(value) <= KEY_CHARS:
        return value
    return "sha256:" + hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()


class SqlConversationStore:
    def __init__(self, engine: Engine, *, clock: Callable[[], dt.datetime] = utcnow) -> None:
        self._engine = engine
        self._clock = clock
        # the later answer's context wins, whichever replica's writer stores it first
        self._upsert = upsert_statement(
            engine.dialect.name,
            _TABLE,
            ("chat", "conversation"),
            ("slots", "updated_at"),
            newer="updated_at",
        )
        self._since_prune = 0

    def load(self, chat: str, conversation: str) -> ConversationContext | None:
        query = select(_TABLE.c.slots, _TABLE.c.updated_at).where(
            _TABLE.c.chat == _key(chat), _TABLE.c.conversation == _key(conversation)
        )
        try:
            with self._engine.connect() as conn:
                row = conn.execute(query).first()
        except SQLAlchemyError as exc:
            raise StorageError(
                f"cannot read a conversation: {exc.__class__.__name__}") from exc
        if row is None:
            return None
        slots = row.slots or {}
        return ConversationContext(
            metrics=tuple(slots.get("metrics", ())),
            entities=tuple(slots.get("entities", ())),
            periods=tuple(slots.get("periods", ())),
            channels=tuple(slots.get("channels", ())),
            route=str(slots.get("route", "")),
            at=row.updated_at,
            table=str(slots.get("table", "")),
            language=str(slots.get("language", "")),
        )

    def save(self, chat: str, conversation: str, context: ConversationContext) -> None:
        params = {
            "chat": _key(chat),
            "conversation": _key(conversation),
            "slots": context.to_dict(),
            "updated_at": context.at,
        }
        try:
            with answer_path_writes(self._engine), self._engine.begin() as conn:
                conn.execute(self._upsert, params)
                self._since_prune += 1
                if self._since_prune >= PRUNE_EVERY:
                    self._since_prune = 0
                    conn.execute(delete(_TABLE).where(
                        _TABLE.c.updated_at < self._clock() - KEEP))
        except SQLAlchemyError as exc:
            raise StorageError(
                f"cannot keep a conversation: {exc.__class__.__name__}") from exc


class MemoryConversationStore:
    """The same contract in a dict: the console and tests without a database."""

    def __init__(self) -> None:
        self.rows: dict[tuple[str, str], ConversationContext] = {}

    def load(self, chat: str, conversation: str) -> ConversationContext | None:
        return self.rows.get((chat, conversation))

    def save(self, chat: str, conversation: str, context: ConversationContext) -> None:
        kept = self.rows.get((chat, conversation))
        if kept is None or kept.at <= context.at:  # a late write never replaces a later one
            self.rows[(chat, conversation)] = context
