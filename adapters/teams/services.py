"""What the Teams handlers need from ricorda, and how Teams names chats and users.

A channel thread's conversation id is the channel's id plus ";messageid=…": clearance, the
message map and admins use the channel's id, so one `restricted_chats` entry covers every
thread of a cleared channel."""

from __future__ import annotations

from dataclasses import dataclass

from adapters.teams.words import NEGATIVE, POSITIVE
from core.chat.chat_ports import ChatServices

PLATFORM = "teams"


@dataclass
class TeamsServices(ChatServices):
    app_id: str = ""  # the bot's Microsoft App ID: its mentions are stripped from questions

    def __post_init__(self) -> None:
        self.verdicts = self.verdicts.own_reactions(PLATFORM, POSITIVE, NEGATIVE)
        super().__post_init__()


def chat_key(conversation_id: str) -> str:
    """"teams:19:abc@thread.tacv2" for every thread of that channel."""
    return f"{PLATFORM}:{conversation_id.split(';', 1)[0]}"
