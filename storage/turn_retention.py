"""Turns older than the retention period removed (RICORDA_TURN_RETENTION_DAYS, nightly job).

A turn's feedback (with the reason given for a ✗) and platform message mappings belong to it
and go with it; nothing else does: cached plans, autopaths and their observations (which keep
their own `turn_id` without a foreign key), conversations and the knowledge base stay.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import delete, func, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

from core.contracts.errors import StorageError
from storage.feedback_reasons import FeedbackReasonRow
from storage.tables import FeedbackRow, MessageMapRow, TurnRow

_TURNS = TurnRow.__table__  # type: ignore[attr-defined]
_FEEDBACK = FeedbackRow.__table__  # type: ignore[attr-defined]
_MESSAGES = MessageMapRow.__table__  # type: ignore[attr-defined]
_REASONS = FeedbackReasonRow.__table__  # type: ignore[attr-defined]


def expire_turns(engine: Engine, before: dt.datetime, *, dry_run: bool = False) -> int:
    """Remove the turns recorded before `before` (with their feedback and message mappings) in
    one transaction; how many turns were (or, with `dry_run`, would be) removed."""
    cutoff = before
    old = select(_TURNS.c.id).where(_TURNS.c.created_at < cutoff)
    try:
        with engine.begin() as conn:
            count = int(conn.execute(
                select(func.count()).select_from(_TURNS).where(_TURNS.c.created_at < cutoff)
            ).scalar_one())
            if dry_run or not count:
                return count
            conn.execute(delete(_FEEDBACK).where(_FEEDBACK.c.turn_id.in_(old)))
            conn.execute(delete(_REASONS).where(_REASONS.c.turn_id.in_(old)))
            conn.execute(delete(_MESSAGES).where(_MESSAGES.c.turn_id.in_(old)))
            conn.execute(delete(_TURNS).where(_TURNS.c.created_at < cutoff))
    except SQLAlchemyError as exc:
        raise StorageError(f"cannot remove old turns: {exc.__class__.__name__}") from exc
    return count
