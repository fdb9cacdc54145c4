"""The words only Telegram says: how to ask in Telegram (/ask, replies, emoji reactions) and
which of its reactions count as a verdict. Everything else comes from core's catalog."""

from __future__ import annotations

from core.catalog.lookup import render
from core.catalog.sentence import Sentence

WORDS: dict[str, Sentence] = {
    "help_more": {
        "en": "In a group, mention me, reply to one of my answers, or use /ask <question>. "
        "React with 👍 or 👎 to an answer to tell me whether it was right.",
        "it": "In un gruppo, menzionami, rispondi a una mia risposta oppure usa /ask <domanda>. "
        "Reagisci con 👍 o 👎 a una risposta per dirmi se era giusta.",
        "zh": "在群组中，请@我、回复我的回答，或使用 /ask <问题>。"
        "对回答点 👍 或 👎，告诉我它是否正确。",
    },
    "ask_usage": {
        "en": "Write the question after the command: /ask What was revenue in FY2024?",
        "it": "Scrivi la domanda dopo il comando: /ask Qual è stato il fatturato nel 2024?",
        "zh": "请在命令后写问题：/ask 2024年营收是多少？",
    },
}

# Telegram's reaction emoji (it sends "❤" while a keyboard types "❤️": keys are normalised)
POSITIVE = frozenset({"👍", "👌", "💯", "🏆", "🔥", "❤", "🎉"})
NEGATIVE = frozenset({"👎", "💩", "🤮", "🤬", "😡"})


def how_to_ask(language: str) -> str:
    return render(WORDS["help_more"], language)


def ask_usage(language: str) -> str:
    return render(WORDS["ask_usage"], language)
