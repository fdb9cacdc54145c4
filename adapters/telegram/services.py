"""What the Telegram handlers need from ricorda, passed in (never imported as globals).

Core is synchronous and not written for concurrent use, so every core call runs on one worker
thread: the event loop stays free for Telegram I/O while answers are computed one at a time.
"""

from __future__ import annotations

from typing import TypeVar

from core.chat.chat_ports import ChatServices

PLATFORM = "telegram"
T = TypeVar("T")


TelegramServices = ChatServices  # its reactions are the dispatcher's words (handlers.py)


def chat_key(chat_id: int) -> str:
    return f"{PLATFORM}:{chat_id}"


def user_key(user_id: int) -> str:
    return f"{PLATFORM}:{user_id}"
