"""The words only Mattermost says: how to ask there. Its verdict reactions and slash command are
Slack's too (adapters/emoji_names.py); everything else: core's catalog."""

from __future__ import annotations

from adapters.emoji_names import COMMAND, NEGATIVE, POSITIVE, ask_usage
from core.catalog.lookup import render
from core.catalog.sentence import Sentence

__all__ = ["COMMAND", "NEGATIVE", "POSITIVE", "WORDS", "ask_usage", "how_to_ask"]

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


def how_to_ask(language: str) -> str:
    return render(WORDS["help_more"], language)
