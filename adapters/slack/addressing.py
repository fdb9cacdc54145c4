"""Which Slack events are questions for the bot, and what the question is.

Pure functions over event payloads: mentions in channels, plain messages in DMs. Messages
from bots (this one included), edits, deletions and other subtypes are never questions.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from typing import Any

_LINK = re.compile(r"<(?:[^<>|]*\|)?([^<>]*)>")  # <http://x|label> -> label, <#C1|name> -> name


def is_noise(event: Mapping[str, Any]) -> bool:
    """Bot messages, edits and other message subtypes: nothing a person asked."""
    if event.get("type") not in ("message", "app_mention"):
        return False
    return bool(event.get("bot_id") or event.get("subtype") or event.get("edited")
                or event.get("bot_profile"))


def is_direct(event: Mapping[str, Any]) -> bool:
    return event.get("channel_type") == "im"


def question_text(text: str | None, *, bot_user_id: str | None) -> str:
    """The text without mentions of the bot, with Slack's markup turned back into plain text."""
    value = text or ""
    if bot_user_id:
        value = re.sub(rf"<@{re.escape(bot_user_id)}(?:\|[^>]*)?>", " ", value)
    value = _LINK.sub(lambda m: m.group(1), value)
    return " ".join(html.unescape(value).split())


def reply_thread(event: Mapping[str, Any]) -> str | None:
    """Where the answer goes: the question's thread in channels; in a DM, the thread only when
    the question was asked inside one (a DM is already a private conversation)."""
    if is_direct(event) and not event.get("thread_ts"):
        return None
    return event.get("thread_ts") or event.get("ts")


def conversation_key(channel: str, thread: str | None) -> str:
    """Which conversation a question continues (core.question.conversation): the Slack thread its
    answer goes to (a top-level question starts one), or the DM itself. "" = the chat."""
    return f"slack:{channel}:thread:{thread}" if thread else ""
