"""Inline keyboards: narrowing options of an answer, the purge-all confirmation, and a choice
the dispatcher asks for (the reasons after a ✗)."""

from __future__ import annotations

from collections.abc import Sequence

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from core.catalog.presentation import OptionGroup
from core.chat.callback_token import CallbackSigner
from core.chat.chat_turn import CANCEL, PURGE

__all__ = ["CANCEL", "HEADER", "PURGE", "choice_keyboard", "options_keyboard", "purge_keyboard"]

SHORT_LABEL = 18  # two buttons per row when every label of a group is at most this long
HEADER = "h"  # a group's header button: tapping it only shows the header again


def options_keyboard(
    signer: CallbackSigner, turn_id: str, groups: tuple[OptionGroup, ...]
) -> InlineKeyboardMarkup | None:
    """Each group of options under a header row ("Period:"), one button per option (two per
    row when the group's labels are short); None without options. Labels are cut and the
    count capped in core.catalog.presentation, the same on every platform."""
    rows: list[list[InlineKeyboardButton]] = []
    for group in groups:
        rows.append([InlineKeyboardButton(group.header, callback_data=f"{HEADER}:{group.slot}")])
        buttons = [
            InlineKeyboardButton(label, callback_data=signer.encode_option(turn_id, i))
            for i, label in group.options
        ]
        width = 2 if all(len(label) <= SHORT_LABEL for _, label in group.options) else 1
        rows += [buttons[i:i + width] for i in range(0, len(buttons), width)]
    return InlineKeyboardMarkup(rows) if rows else None


def purge_keyboard(tokens: tuple[str, str], *, confirm: str,
                   cancel: str) -> InlineKeyboardMarkup:
    """Confirm / Cancel, with the signed tokens core.chat.chat_turn issued for this admin."""
    return InlineKeyboardMarkup([[
        InlineKeyboardButton(confirm, callback_data=tokens[0]),
        InlineKeyboardButton(cancel, callback_data=tokens[1]),
    ]])


def choice_keyboard(buttons: Sequence[tuple[str, str]]) -> InlineKeyboardMarkup:
    """One (label, signed token) button per row, in the order core gave them."""
    return InlineKeyboardMarkup([[InlineKeyboardButton(label, callback_data=token)]
                                 for label, token in buttons])
