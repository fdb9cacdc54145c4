"""What the Telegram handlers need from ricorda, passed in (never imported as globals).

Core is synchronous and not written for concurrent use, so every core call runs on one worker
thread: the event loop stays free for Telegram I/O while answers are computed one at a time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

from adapters.telegram.words import NEGATIVE, POSITIVE
from core.chat.chat_ports import ChatServices

PLATFORM = "telegram"
T = TypeVar("T")


@dataclass
class TelegramServices(ChatServices):
    def __post_init__(self) -> None:
        self.verdicts = self.verdicts.own_reactions(PLATFORM, POSITIVE, NEGATIVE)
        super().__post_init__()


def chat_key(chat_id: int) -> str:
    return f"{PLATFORM}:{chat_id}"


def user_key(user_id: int) -> str:
    return f"{PLATFORM}:{user_id}"
