"""The words only Teams says: how to ask in Teams (help's second half). Everything else comes
from core's catalog."""

from __future__ import annotations

from core.catalog.lookup import render
from core.catalog.sentence import Sentence

WORDS: dict[str, Sentence] = {
    "help_more": {
        "en": "In a channel, mention me with your question; in a chat with me, just ask. React "
              "with 👍 or 👎 to an answer to tell me whether it was right.",
        "it": "In un canale, menzionami con la domanda; in chat con me, chiedi e basta. Reagisci "
              "con 👍 o 👎 a una risposta per dirmi se era giusta.",
        "zh": "在频道中，请@我并提出问题；在与我的聊天中直接提问即可。对回答点 👍 或 👎，"
              "告诉我它是否正确。",
    },
}

# Teams reports its built-in reactions by name; newer clients send the emoji itself
POSITIVE = ("like", "heart", "👍")
NEGATIVE = ("angry", "👎")


def how_to_ask(language: str) -> str:
    return render(WORDS["help_more"], language)
