"""Why an answer was rejected: the reason a user picked after their ✗, and the words they added.

One row per turn at most (its primary key is the turn's id), so the bot asks once per answer
whichever replica sees the ✗; the row's `stage` carries the short conversation across replicas:
"asked" (the reason buttons are out), "noting" (a reason was tapped, a free-text note may follow)
and "done". The row belongs to its turn and leaves with it (storage.turn_retention).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Column, ForeignKey, Index, String, Text, and_, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlmodel import Field, SQLModel

from core.contracts.errors import StorageError
from storage.columns import UtcDateTime, utcnow

ASKED, NOTING, DONE = "asked", "noting", "done"


class FeedbackReasonRow(SQLModel, table=True):
    """The reason given for one rejected answer (at most one per turn)."""

    __tablename__ = "feedback_reasons"
    __table_args__ = (Index("ix_feedback_reasons_user_stage", "user", "stage"),)

    turn_id: str = Field(sa_column=Column(
        String, ForeignKey("turns.id", ondelete="CASCADE"), primary_key=True))
    chat: str
    user: str
    stage: str  # asked | noting | done
    reason: str | None = None  # figure | period | unit | understood | other
    note: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    asked_at: dt.datetime = Field(
        default_factory=utcnow, sa_column=Column(UtcDateTime, nullable=False, index=True))
    updated_at: dt.datetime = Field(
        default_factory=utcnow, sa_column=Column(UtcDateTime, nullable=False))


_TABLE = FeedbackReasonRow.__table__  # type: ignore[attr-defined]


@dataclass(frozen=True)
class ReasonEntry:
    turn_id: str
    chat: str
    user: str
    stage: str
    reason: str | None
    note: str | None
    asked_at: dt.datetime


class SqlFeedbackReasons:
    """The reason prompts' state, on SQLite or PostgreSQL (core.chat.feedback_reasons)."""

    def __init__(self, engine: Engine, *, clock: Callable[[], dt.datetime] = utcnow) -> None:
        self._engine = engine
        self._clock = clock

    def claim(self, turn_id: str, chat: str, user: str, *, window: dt.timedelta) -> bool:
        """True when `user` may be asked why they rejected this turn: nobody was asked about
        it before, and no other prompt of theirs is still open (asked or noting within
        `window`): one question at a time, never a volley after a row of ✗."""
        now = self._clock()
        open_prompt = select(_TABLE.c.turn_id).where(
            _TABLE.c.user == user, _TABLE.c.stage.in_((ASKED, NOTING)),
            _TABLE.c.updated_at > now - window).limit(1)
        try:
            with self._engine.begin() as conn:
                if conn.execute(open_prompt).first() is not None:
                    return False
                conn.execute(_TABLE.insert().values(
                    turn_id=turn_id, chat=chat, user=user, stage=ASKED, reason=None, note=None,
                    asked_at=now, updated_at=now))
        except IntegrityError:  # asked already (here or on another replica), or no such turn
            return False
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot record a reason prompt: {exc.__class__.__name__}") from exc
        return True

    def choose(self, turn_id: str, user: str, reason: str) -> bool:
        """The reason tapped by the user who was asked; False for anyone else, or a second
        tap (the first one stands)."""
        return self._move(turn_id, user, ASKED, NOTING, reason=reason)

    def pending_note(self, chat: str, user: str, *, window: dt.timedelta) -> str | None:
        """The turn whose note `user` may still send in `chat`, or None."""
        query = select(_TABLE.c.turn_id).where(
            _TABLE.c.chat == chat, _TABLE.c.user == user, _TABLE.c.stage == NOTING,
            _TABLE.c.updated_at > self._clock() - window,
        ).order_by(_TABLE.c.updated_at.desc()).limit(1)
        rows = self._select(query)
        return rows[0]["turn_id"] if rows else None

    def any_pending(self, *, window: dt.timedelta) -> bool:
        """Whether anyone, in any chat, may still send a note: while nobody may, a message
        needs no `pending_note` of its own (core.chat.feedback_reasons asks this once a
        second, not once a message)."""
        query = select(_TABLE.c.turn_id).where(
            _TABLE.c.stage == NOTING, _TABLE.c.updated_at > self._clock() - window).limit(1)
        return bool(self._select(query))

    def add_note(self, turn_id: str, user: str, note: str) -> bool:
        return self._move(turn_id, user, NOTING, DONE, note=note)

    def close(self, turn_id: str, user: str) -> bool:
        """Nothing to add: the prompt is answered."""
        return self._move(turn_id, user, NOTING, DONE)

    def reasons(self, *, since: dt.datetime | None = None) -> list[ReasonEntry]:
        """Every reason given (stage past "asked"), oldest first."""
        query = select(_TABLE).where(_TABLE.c.stage != ASKED)
        if since is not None:
            query = query.where(_TABLE.c.asked_at >= since)
        query = query.order_by(_TABLE.c.asked_at, _TABLE.c.turn_id)
        return [ReasonEntry(r["turn_id"], r["chat"], r["user"], r["stage"], r["reason"],
                            r["note"], r["asked_at"]) for r in self._select(query)]

    def for_turn(self, turn_id: str) -> ReasonEntry | None:
        rows = self._select(select(_TABLE).where(_TABLE.c.turn_id == turn_id))
        if not rows:
            return None
        r = rows[0]
        return ReasonEntry(r["turn_id"], r["chat"], r["user"], r["stage"], r["reason"],
                           r["note"], r["asked_at"])

    def _move(self, turn_id: str, user: str, stage: str, to: str, **values: Any) -> bool:
        statement = update(_TABLE).where(
            and_(_TABLE.c.turn_id == turn_id, _TABLE.c.user == user, _TABLE.c.stage == stage)
        ).values(stage=to, updated_at=self._clock(), **values)
        try:
            with self._engine.begin() as conn:
                return conn.execute(statement).rowcount == 1
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot record a reason: {exc.__class__.__name__}") from exc

    def _select(self, query: Any) -> list[Any]:
        try:
            with self._engine.connect() as conn:
                return list(conn.execute(query).mappings())
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot read reasons: {exc.__class__.__name__}") from exc
