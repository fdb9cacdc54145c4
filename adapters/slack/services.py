"""What the Slack listeners need from ricorda, passed in (never imported as globals).

Core is synchronous and not written for concurrent use, so every core call runs on one worker
thread (shared with other adapters when the caller passes one in). The delivery log gets its own
thread: its claim sits on the ack path and must not wait behind an answer being generated.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TypeVar

from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.locales import UserLocales
from core.chat.chat_ports import ChatServices
from core.chat.chat_replies import reply_language
from core.contracts.errors import StorageError

log = logging.getLogger("ricorda.slack")

PLATFORM = "slack"
T = TypeVar("T")


@dataclass
class SlackServices(ChatServices):
    _claims: ThreadPoolExecutor = field(
        default_factory=lambda: ThreadPoolExecutor(1, thread_name_prefix="ricorda-slack-dedup"),
        init=False,
        repr=False,
    )
    locales: UserLocales = field(default_factory=UserLocales)

    async def language(self, client: AsyncWebClient, user: str, *,
                       question: str | None = None) -> str:
        """The language a note to `user` is written in: their Slack locale when the bot speaks
        it, else the language of the question they asked, else English."""
        return reply_language(await self.locales.language(client, user), question)

    async def first_time(self, delivery_id: str) -> bool:
        """Claim a Slack delivery (event id) across replicas; True for whoever handles it."""
        if self.deliveries is None:
            return True
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(
                self._claims, self.deliveries.first_time, PLATFORM, delivery_id
            )
        except StorageError as exc:  # database down: answer (or apologise) rather than 500
            log.warning("cannot claim event %s (%s); handling it anyway", delivery_id, exc)
            return True

    def close(self) -> None:
        self._claims.shutdown(wait=True)
        super().close()


def chat_key(channel: str) -> str:
    return f"{PLATFORM}:{channel}"


def user_key(user: str) -> str:
    return f"{PLATFORM}:{user}"
