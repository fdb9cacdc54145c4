"""The words only Slack says: how to ask in Slack (mentions, DMs, the slash command, emoji by
name). Its verdict reactions and slash command are Mattermost's too (adapters/emoji_names.py);
everything else comes from core's catalog."""

from __future__ import annotations

from adapters.emoji_names import COMMAND, NEGATIVE, POSITIVE, ask_usage
from core.catalog.lookup import render
from core.catalog.sentence import Sentence

__all__ = ["COMMAND", "NEGATIVE", "POSITIVE", "WORDS", "ask_usage", "how_to_ask"]

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


def how_to_ask(language: str) -> str:
    return render(WORDS["help_more"], language, command=COMMAND)
