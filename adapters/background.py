"""Work an adapter hands off after acknowledging an HTTP post or a socket frame: each item on
its own task, a failure logged (never raised into the listener), and the tasks in flight
awaited on shutdown. With a delivery inbox (adapters/inbox.py), a post is stored before its
ack and removed once handled, so a process that dies meanwhile leaves it to another replica."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from adapters.inbox import DeliveryInbox

log = logging.getLogger("ricorda.chat")


class Background:
    def __init__(self, inbox: DeliveryInbox | None = None) -> None:
        self.inbox = inbox
        self._tasks: set[asyncio.Task[None]] = set()

    def run(self, work: Awaitable[None]) -> None:
        task = asyncio.ensure_future(self._guard(work))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _guard(self, work: Awaitable[None]) -> None:
        try:
            await work
        except Exception as exc:  # one bad event must not take the listener down
            log.error("handling an event failed: %s", exc.__class__.__name__, exc_info=exc)

    async def receive(self, delivery: str, payload: str,
                      handle: Callable[[], Awaitable[None]]) -> None:
        """Store the delivery (a redelivery is dropped here), then handle it on its own task
        and mark it done; the caller acks once this returns."""
        if self.inbox is None or await self.inbox.receive(delivery, payload):
            self.run(self.handled(delivery, handle()))

    async def handled(self, delivery: str, work: Awaitable[None]) -> None:
        try:
            await self._guard(work)
        finally:
            if self.inbox is not None:
                await self.inbox.done(delivery)

    async def finish(self, timeout: float) -> None:
        """Let the work in flight finish, up to `timeout` seconds."""
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=timeout)
