"""The turns of a period with their ✗ verdicts and the reasons given: what the admin's report
(core.chat.turn_report) and `ricorda turns export` read."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import func, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

from core.contracts.errors import StorageError
from core.contracts.ports import TurnRecord
from storage.feedback_reasons import ASKED, FeedbackReasonRow
from storage.tables import FeedbackRow, TurnRow
from storage.turn_store import _TURN_FIELDS

_TURNS = TurnRow.__table__  # type: ignore[attr-defined]
_FEEDBACK = FeedbackRow.__table__  # type: ignore[attr-defined]
_REASONS = FeedbackReasonRow.__table__  # type: ignore[attr-defined]
MAX_TURNS = 200_000  # a report of more is a query for the database's own tools


ReportRow = tuple[TurnRecord, dt.datetime, int, str | None, str | None]


def turns_since(engine: Engine, since: dt.datetime | None) -> list[ReportRow]:
    """Every turn recorded at or after `since` (all of them for None), oldest first: (turn,
    recorded at, how many ✗ stand on it, the reason given, the note given)
    (core.chat.turn_report.ReportTurn's fields)."""
    negatives = (select(_FEEDBACK.c.turn_id, func.count().label("n"))
                 .where(_FEEDBACK.c.verdict == "negative").group_by(_FEEDBACK.c.turn_id)
                 .subquery())
    query = (select(_TURNS, negatives.c.n, _REASONS.c.reason, _REASONS.c.note,
                    _REASONS.c.stage)
             .select_from(_TURNS.outerjoin(negatives, negatives.c.turn_id == _TURNS.c.id)
                          .outerjoin(_REASONS, _REASONS.c.turn_id == _TURNS.c.id)))
    if since is not None:
        query = query.where(_TURNS.c.created_at >= since)
    query = query.order_by(_TURNS.c.created_at, _TURNS.c.id).limit(MAX_TURNS)
    try:
        with engine.connect() as conn:
            rows = list(conn.execute(query).mappings())
    except SQLAlchemyError as exc:
        raise StorageError(f"cannot read turns: {exc.__class__.__name__}") from exc
    out = []
    for r in rows:
        turn = TurnRecord(**{name: r[name] for name in _TURN_FIELDS})
        given = r["stage"] not in (None, ASKED)
        out.append((turn, r["created_at"], int(r["n"] or 0),
                    r["reason"] if given else None, r["note"] if given else None))
    return out
