"""How Telegram's chats are named to ricorda ("telegram:<chat id>"). Its services are core's
`ChatServices` as they are: its verdict reactions are given to the dispatcher (handlers.py)."""

from __future__ import annotations

from core.chat.chat_ports import ChatServices

PLATFORM = "telegram"
TelegramServices = ChatServices


def chat_key(chat_id: int) -> str:
    return f"{PLATFORM}:{chat_id}"
