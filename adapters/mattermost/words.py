"""The words only Mattermost says: how to ask there, and which of its reactions (by name) count
as a verdict. Everything else: core's catalog."""

from __future__ import annotations

from core.catalog.lookup import render, say
from core.catalog.sentence import Sentence

WORDS: dict[str, Sentence] = {
    "help_more": {
        "en": "In a channel, mention me; in a direct message, just write. React to an answer "
        "with :white_check_mark: or :x: to tell me whether it was right.",
        "it": "In un canale, menzionami; in un messaggio diretto, scrivi e basta. Reagisci a "
        "una risposta con :white_check_mark: o :x: per dirmi se era giusta.",
        "zh": "在频道中请@我；在私信中直接写即可。对回答添加 :white_check_mark: 或 :x: 表情，"
        "告诉我它是否正确。",
    },
}

COMMAND = "/ricorda"
POSITIVE = frozenset({"white_check_mark", "heavy_check_mark", "+1", "ballot_box_with_check"})
NEGATIVE = frozenset({"x", "heavy_multiplication_x", "-1", "negative_squared_cross_mark"})


def how_to_ask(language: str) -> str:
    return render(WORDS["help_more"], language)


def ask_usage(language: str) -> str:
    return say("command_ask_usage", language, command=COMMAND)
