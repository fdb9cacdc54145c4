"""A tapped narrowing option -> the request that re-asks the question with that slot fixed.

Rebuilt from the stored turn, never from the button: the button only names (turn, index), so
nobody can make the bot answer a question it never asked or fix a slot it never offered.
"""

from __future__ import annotations

import datetime as dt

from core.contracts.ports import TurnRecord
from core.contracts.types import Request


def tap_request(
    turn: TurnRecord | None, index: int, *, chat: str, user: str,
    today: dt.date | None = None,
) -> Request | None:
    """The follow-up request, or None when the turn or option is unknown ("button expired").

    `chat` is where the tap happened: a turn shown in another chat is not re-run here, so a
    button copied out of a cleared chat never answers with that chat's clearance.
    """
    if turn is None or turn.chat != chat or not 0 <= index < len(turn.options):
        return None
    option = turn.options[index]
    slot, value = option.get("slot"), option.get("value")
    if not slot or not value:
        return None
    reference = _date(turn.reference_date) or today
    return Request(
        text=turn.question,
        chat=chat,
        user=user,
        reference_date=reference,
        fixed_slots={**turn.fixed_slots, slot: value},
        parent_turn=turn.id,
    )


CHOSEN = "✓ "  # the tapped option's label, once its answer is out


def tap_key(turn_id: str, index: int) -> str:
    """The delivery a tap is claimed as: each option of an answer is answered once, whoever
    taps it and however often (a second tap is told the answer is above)."""
    return f"option:{turn_id}:{index}"


def chosen_label(label: str) -> str:
    return label if label.startswith(CHOSEN) else CHOSEN + label


def _date(value: str | None) -> dt.date | None:
    try:
        return dt.date.fromisoformat(value) if value else None
    except ValueError:
        return None
