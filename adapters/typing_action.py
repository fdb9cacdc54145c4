"""Show "typing…" while an answer is being worked out, but only once it is not instant.

Telegram, Teams and Mattermost clear the indicator after a few seconds, so it is re-sent while
work goes on. An answer served from the cache in a few milliseconds sends none at all: half the
API calls, and nothing flickers.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable

log = logging.getLogger("ricorda.chat")

REPEAT_EVERY = 4.5


@contextlib.asynccontextmanager
async def typing_while(
    send: Callable[[], Awaitable[object]], *, delay: float, every: float = REPEAT_EVERY
) -> AsyncIterator[None]:
    async def keep_typing() -> None:
        await asyncio.sleep(delay)
        while True:
            try:
                await send()
            except Exception as exc:  # a lost indicator must never cost the answer
                log.debug("typing action failed: %s", exc.__class__.__name__)
            await asyncio.sleep(every)

    task = asyncio.create_task(keep_typing())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
