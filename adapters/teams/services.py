"""What the Teams handlers need from ricorda, and how Teams names chats: by the channel's id
(a thread's is the channel's plus ";messageid=…"), so one `restricted_chats` entry covers every
thread of a cleared channel."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from adapters.teams.words import NEGATIVE, POSITIVE
from core.chat.chat_ports import ChatServices

PLATFORM = "teams"


@dataclass
class TeamsServices(ChatServices):
    # remembers a chat's service URL when it subscribes (chat, url), so the scheduler can
    # write to it first later; None: subscriptions are not delivered on Teams
    remember_service: Callable[[str, str], None] | None = None

    def __post_init__(self) -> None:
        self.verdicts = self.verdicts.own_reactions(PLATFORM, POSITIVE, NEGATIVE)
        super().__post_init__()


def chat_key(conversation_id: str) -> str:
    """"teams:19:abc@thread.tacv2" for every thread of that channel."""
    return f"{PLATFORM}:{conversation_id.split(';', 1)[0]}"
