"""The words only Slack says: how to ask in Slack (mentions, DMs, the slash command, emoji by
name) and which of its reactions count as a verdict. Everything else comes from core's
catalog."""

from __future__ import annotations

from core.catalog.lookup import render, say
from core.catalog.sentence import Sentence

WORDS: dict[str, Sentence] = {
    "help_more": {  # {command}: the slash command; :names: are Slack's emoji
        "en": "In a channel, mention me; in a DM, just write. `{command} ask <question>` answers "
        "only you. React to an answer with :white_check_mark: or :x: to tell me whether it "
        "was right.",
        "it": "In un canale, menzionami; in un messaggio diretto, scrivi e basta. "
        "`{command} ask <domanda>` risponde solo a te. Reagisci a una risposta con "
        ":white_check_mark: o :x: per dirmi se era giusta.",
        "zh": "在频道中请@我；在私信中直接写即可。`{command} ask <问题>` 只回复你一人。"
        "对回答添加 :white_check_mark: 或 :x: 表情，告诉我它是否正确。",
    },
}

COMMAND = "/ricorda"
# Slack sends reactions by name, skin tones as "+1::skin-tone-2" (normalised away)
POSITIVE = frozenset({"white_check_mark", "heavy_check_mark", "+1", "ballot_box_with_check"})
NEGATIVE = frozenset({"x", "heavy_multiplication_x", "-1", "negative_squared_cross_mark"})


def how_to_ask(language: str) -> str:
    return render(WORDS["help_more"], language, command=COMMAND)


def ask_usage(language: str) -> str:
    return say("command_ask_usage", language, command=COMMAND)
