"""Turns, the feedback people give on them, and which platform message showed which turn.

Recording a turn sits on the answer path of every request, so it is a single Core INSERT in its
own short transaction: no ORM session, no read-back. Feedback and the message map are
human-speed operations and favour clear outcomes over raw speed.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, delete, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from core.contracts.errors import StorageError
from core.contracts.ports import TurnRecord
from storage.engine import answer_path_writes
from storage.fast_sql import FastInsert
from storage.tables import FeedbackRow, MessageMapRow, TurnRow, utcnow
from storage.upsert import upsert_statement

_TURNS = TurnRow.__table__  # type: ignore[attr-defined]
_FEEDBACK = FeedbackRow.__table__  # type: ignore[attr-defined]
_MESSAGES = MessageMapRow.__table__  # type: ignore[attr-defined]
_INSERT_TURN = _TURNS.insert()
_TURN_FIELDS = (
    "id",
    "chat",
    "user",
    "question",
    "language",
    "route",
    "served_by",
    "plan",
    "answer_text",
    "options",
    "fixed_slots",
    "latency_ms",
    "reference_date",
    "parent_turn",
    "answer",
    "restricted",
)
VERDICTS = ("positive", "negative")

Clock = Callable[[], dt.datetime]


class UnknownTurnError(StorageError):
    """Feedback or a message mapping named a turn that was never recorded."""


@dataclass(frozen=True)
class FeedbackEntry:
    turn_id: str
    user: str
    verdict: str
    via: str
    created_at: dt.datetime


def new_turn_id() -> str:
    """16 hex characters: short enough for a CLI argument, unique enough for a team's lifetime."""
    return uuid.uuid4().hex[:16]


class SqlTurnStore:
    """`TurnStore` plus feedback and the platform message map, on SQLite or PostgreSQL."""

    def __init__(self, engine: Engine, *, clock: Clock = utcnow) -> None:
        self._engine = engine
        self._clock = clock
        self._writes = answer_path_writes(engine)
        dialect = engine.dialect.name
        self._upsert_feedback = upsert_statement(
            dialect, _FEEDBACK, ("turn_id", "user"), ("verdict", "via", "created_at")
        )
        self._upsert_message = upsert_statement(
            dialect, _MESSAGES, ("platform", "chat", "message_id"), ("turn_id", "created_at")
        )
        self._fast_insert = FastInsert.for_engine(engine, _TURNS, (*_TURN_FIELDS, "created_at"))

    # --- turns ----------------------------------------------------------------------------

    def record_turn(self, turn: TurnRecord) -> None:
        params = {name: getattr(turn, name) for name in _TURN_FIELDS}
        params["created_at"] = self._clock()
        fast = self._fast_insert
        if fast is not None:
            try:
                with self._writes:
                    fast.execute(params)
            except fast.integrity_error as exc:
                raise StorageError(f"turn {turn.id} is already recorded") from exc
            except fast.error as exc:
                raise StorageError(
                    f"cannot record turn {turn.id}: {exc.__class__.__name__}"
                ) from exc
            return
        try:
            with self._writes, self._engine.begin() as conn:
                conn.execute(_INSERT_TURN, params)
        except IntegrityError as exc:
            raise StorageError(f"turn {turn.id} is already recorded") from exc
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot record turn {turn.id}: {exc.__class__.__name__}") from exc

    def get_turn(self, turn_id: str) -> TurnRecord | None:
        rows = self._select(select(_TURNS).where(_TURNS.c.id == turn_id))
        return _turn(rows[0]) if rows else None

    def recent_turns(self, n: int, *, chat: str | None = None) -> list[TurnRecord]:
        """The last `n` turns (of one chat if given), newest first."""
        query = select(_TURNS)
        if chat is not None:
            query = query.where(_TURNS.c.chat == chat)
        query = query.order_by(_TURNS.c.created_at.desc(), _TURNS.c.id.desc()).limit(n)
        return [_turn(row) for row in self._select(query)]

    # --- feedback -------------------------------------------------------------------------

    def set_feedback(self, turn_id: str, user: str, verdict: str, via: str) -> str | None:
        """Record `user`'s verdict on a turn, replacing theirs if any; returns the previous one.

        The previous verdict lets the caller count a change of mind once (👍 then 🔥 is still
        one confirmation). Raises UnknownTurnError when the turn was never recorded.
        """
        if verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, not {verdict!r}")
        joined = _TURNS.outerjoin(
            _FEEDBACK, and_(_FEEDBACK.c.turn_id == _TURNS.c.id, _FEEDBACK.c.user == user)
        )
        query = select(_TURNS.c.id, _FEEDBACK.c.verdict).select_from(joined)
        params = {
            "turn_id": turn_id,
            "user": user,
            "verdict": verdict,
            "via": via,
            "created_at": self._clock(),
        }
        try:
            with self._engine.begin() as conn:
                row = conn.execute(query.where(_TURNS.c.id == turn_id)).first()
                if row is None:
                    raise UnknownTurnError(f"no turn {turn_id!r}")
                conn.execute(self._upsert_feedback, params)
        except IntegrityError as exc:  # the turn vanished between the read and the write
            raise UnknownTurnError(f"no turn {turn_id!r}") from exc
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot record feedback: {exc.__class__.__name__}") from exc
        return row.verdict

    def withdraw_feedback(self, turn_id: str, user: str) -> str | None:
        """Remove `user`'s verdict on a turn; returns the withdrawn verdict, or None if none."""
        where = and_(_FEEDBACK.c.turn_id == turn_id, _FEEDBACK.c.user == user)
        try:
            with self._engine.begin() as conn:
                previous = conn.execute(select(_FEEDBACK.c.verdict).where(where)).scalar()
                if previous is not None:
                    conn.execute(delete(_FEEDBACK).where(where))
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot withdraw feedback: {exc.__class__.__name__}") from exc
        return previous

    def feedback_for(self, turn_id: str) -> list[FeedbackEntry]:
        """Current verdicts on a turn, oldest first."""
        query = (
            select(_FEEDBACK)
            .where(_FEEDBACK.c.turn_id == turn_id)
            .order_by(_FEEDBACK.c.created_at, _FEEDBACK.c.user)
        )
        return [
            FeedbackEntry(r["turn_id"], r["user"], r["verdict"], r["via"], r["created_at"])
            for r in self._select(query)
        ]

    # --- platform message map -------------------------------------------------------------

    def map_message(self, platform: str, chat: str, message_id: str | int, turn_id: str) -> None:
        """Remember that this bot message showed this turn (a re-sent id maps to the new turn)."""
        params = {
            "platform": platform,
            "chat": chat,
            "message_id": str(message_id),
            "turn_id": turn_id,
            "created_at": self._clock(),
        }
        try:
            with self._engine.begin() as conn:
                conn.execute(self._upsert_message, params)
        except IntegrityError as exc:
            raise UnknownTurnError(f"no turn {turn_id!r} to map message {message_id}") from exc
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot map message: {exc.__class__.__name__}") from exc

    def turn_for_message(self, platform: str, chat: str, message_id: str | int) -> str | None:
        query = select(_MESSAGES.c.turn_id).where(
            _MESSAGES.c.platform == platform,
            _MESSAGES.c.chat == chat,
            _MESSAGES.c.message_id == str(message_id),
        )
        rows = self._select(query)
        return rows[0]["turn_id"] if rows else None

    # --- internals ------------------------------------------------------------------------

    def _select(self, query: Any) -> list[Any]:
        try:
            with self._engine.connect() as conn:
                return list(conn.execute(query).mappings())
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot read turns: {exc.__class__.__name__}") from exc


def _turn(row: Any) -> TurnRecord:
    return TurnRecord(**{name: row[name] for name in _TURN_FIELDS})
