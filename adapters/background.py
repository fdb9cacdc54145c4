"""Work an adapter hands off after acknowledging an HTTP post or a socket frame: each item on
its own task, a failure logged (never raised into the listener), and the tasks in flight
awaited on shutdown."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable

log = logging.getLogger("ricorda.chat")


class Background:
    def __init__(self) -> None:
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

    async def finish(self, timeout: float) -> None:
        """Let the work in flight finish, up to `timeout` seconds."""
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=timeout)
