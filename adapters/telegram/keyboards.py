"""Inline keyboards: narrowing options of an answer, and the purge-all confirmation."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from core.callback_token import CallbackSigner

MAX_OPTIONS = 24  # more buttons than this is a wall, not a choice
SHORT_LABEL = 18  # two buttons per row when every label is at most this long
PURGE, CANCEL = "p", "x"
LABEL_CHARS = 60


def options_keyboard(
    signer: CallbackSigner, turn_id: str, labels: list[str]
) -> InlineKeyboardMarkup | None:
    """One button per option (two per row when labels are short); None without options."""
    if not labels:
        return None
    buttons = [
        InlineKeyboardButton(label[:LABEL_CHARS], callback_data=signer.encode_option(turn_id, i))
        for i, label in enumerate(labels[:MAX_OPTIONS])
    ]
    width = 2 if all(len(label) <= SHORT_LABEL for label in labels) else 1
    return InlineKeyboardMarkup([buttons[i:i + width] for i in range(0, len(buttons), width)])


def purge_keyboard(
    signer: CallbackSigner, user_id: int, issued: int, *, confirm: str, cancel: str
) -> InlineKeyboardMarkup:
    """Confirm / Cancel, signed for this admin and this moment (a stale prompt expires)."""
    return InlineKeyboardMarkup([[
        InlineKeyboardButton(confirm, callback_data=signer.sign(PURGE, str(user_id), str(issued))),
        InlineKeyboardButton(cancel, callback_data=signer.sign(CANCEL, str(user_id), str(issued))),
    ]])
