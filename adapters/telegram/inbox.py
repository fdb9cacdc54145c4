"""Telegram updates pass through the delivery inbox (adapters/inbox.py) on their way in.

Both ways python-telegram-bot receives updates hand each one to the application's update queue
and only then tell Telegram: the poller confirms a batch with its next `getUpdates` after every
`put` of the batch returned, the webhook server answers 200 after its `put` returned. So the
queue's `put` stores the update in the inbox and commits before it returns: an update Telegram
considers delivered is in the database. The update processor removes it once every handler ran.
A redelivered update is dropped at the `put` (the claim is in the delivery log).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable
from typing import Any

from telegram import Bot, Update
from telegram.ext import BaseUpdateProcessor

from adapters.inbox import DeliveryInbox

log = logging.getLogger("ricorda.telegram")


class InboxQueue(asyncio.Queue):  # type: ignore[type-arg]
    """The application's update queue; `put` returns once the update is stored."""

    def __init__(self, inbox: DeliveryInbox) -> None:
        super().__init__()
        self.inbox = inbox

    async def put(self, item: Any) -> None:
        fresh = not isinstance(item, Update) or await self.inbox.receive(
            item.update_id, item.to_json())
        if not fresh:
            log.info("update %s delivered again, ignored", item.update_id)
            return
        await super().put(item)

    async def put_taken_over(self, update: Update) -> None:
        """An update taken over from a dead process: already stored and claimed."""
        await super().put(update)


class InboxProcessor(BaseUpdateProcessor):
    """Runs each update's handlers (up to `max_concurrent_updates` at once), then removes it
    from the inbox. A handler's exception went to the error handler (which apologises): the
    update is handled. Only a process that dies or is cancelled mid-way leaves it behind."""

    def __init__(self, inbox: DeliveryInbox, max_concurrent_updates: int) -> None:
        super().__init__(max_concurrent_updates)
        self.inbox = inbox

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        await coroutine
        if isinstance(update, Update):
            await self.inbox.done(update.update_id)

    async def initialize(self) -> None:
        """Nothing to set up: the inbox belongs to the caller."""

    async def shutdown(self) -> None:
        """Nothing to free: the inbox belongs to the caller."""


def redeliverer(queue: InboxQueue, bot: Bot) -> Any:
    """What the inbox keeper calls with a taken-over payload: back into the update queue."""

    async def redeliver(delivery_id: str, payload: str) -> None:
        update = Update.de_json(json.loads(payload), bot)
        await queue.put_taken_over(update)

    return redeliver

