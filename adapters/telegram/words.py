"""The words only Telegram says: how to ask in Telegram (/ask, replies, emoji reactions), its
command menu, and which of its reactions count as a verdict. Everything else comes from core's
catalog."""

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
    # the command menu (Telegram shows each user the one of their app's language)
    "menu_ask": {"en": "ask a question (in groups)", "it": "fai una domanda (nei gruppi)",
                 "zh": "提问（在群组中）"},
    "menu_help": {"en": "what you can ask me", "it": "cosa puoi chiedermi", "zh": "可以问我什么"},
    "menu_start": {"en": "introduction", "it": "presentazione", "zh": "介绍"},
}
PUBLIC_COMMANDS = ("ask", "help", "start")

# Telegram's reaction emoji (it sends "❤" while a keyboard types "❤️": keys are normalised)
POSITIVE = frozenset({"👍", "👌", "💯", "🏆", "🔥", "❤", "🎉"})
NEGATIVE = frozenset({"👎", "💩", "🤮", "🤬", "😡"})


def how_to_ask(language: str) -> str:
    return render(WORDS["help_more"], language)


def ask_usage(language: str) -> str:
    return render(WORDS["ask_usage"], language)


def public_menu(language: str) -> list[tuple[str, str]]:
    """(command, description) of the menu every user sees, in `language`."""
    return [(name, render(WORDS[f"menu_{name}"], language)) for name in PUBLIC_COMMANDS]
