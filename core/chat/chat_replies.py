"""Which of the bot's languages a chat user reads, and the help text every platform shows
(its sentences: core.catalog; how to ask on one platform: that adapter's words.py)."""

from __future__ import annotations

from core.catalog.lookup import LANGUAGES, say
from core.language import detect_language


def supported_language(locale: str | None) -> str | None:
    """A platform locale ("it", "zh-hans", "it-IT", "en_GB") -> the bot's language for it, or
    None when the bot does not speak it (the caller picks the fallback)."""
    code = (locale or "").strip().lower().replace("_", "-").split("-", 1)[0]
    return code if code in LANGUAGES else None


def language_for(locale: str | None) -> str:
    """A platform locale -> one of the languages the bot speaks; English when it speaks none."""
    return supported_language(locale) or "en"


def help_text(language: str, how_to_ask: str, usage: str | None = None) -> str:
    """What to ask (with examples: `usage`, from the loaded knowledge base, else the generic
    ones) and how to ask it on this platform (`how_to_ask`, the adapter's words)."""
    return "\n\n".join([usage or say("usage", language), how_to_ask])


def reply_language(known: str | None, question: str | None = None) -> str:
    """The user's platform language when the bot speaks it (`known`), else the question's,
    else English: what every adapter's notes are written in."""
    return known or (detect_language(question) if question else "en")
