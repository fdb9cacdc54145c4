"""Durable receipt for chat adapters: a delivery is stored in the inbox before the platform is
told it arrived, removed once handled, and taken over when its process died on the way.

Platform-neutral: each adapter says how it stores a delivery (`receive` before its ack or
offset confirmation), marks it `done` after its handlers ran, and how to handle again a
payload taken over from a dead process (`redeliver`). Inbox calls run on their own thread: they
sit on the receipt path and must not wait behind an answer being computed on the core worker.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import uuid
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, TypeVar

from core.chat.chat_ports import Inbox
from core.contracts.errors import StorageError

log = logging.getLogger("ricorda.inbox")
T = TypeVar("T")
Redeliver = Callable[[str, str], Awaitable[None]]  # (delivery id, payload)


def process_owner() -> str:
    """Who holds a lease: host, pid and a random part (a restarted pid is a new owner)."""
    return f"{socket.gethostname()[:60]}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class DeliveryInbox:
    def __init__(self, inbox: Inbox, platform: str, *, owner: str | None = None) -> None:
        self.inbox = inbox
        self.platform = platform
        self.owner = owner or process_owner()
        self._db = ThreadPoolExecutor(1, thread_name_prefix=f"ricorda-{platform}-inbox")
        self._keeper: asyncio.Task[None] | None = None

    async def _call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._db, partial(fn, *args, **kwargs))

    async def receive(self, delivery_id: str | int, payload: str) -> bool:
        """Store before confirming receipt; False for a redelivery (drop it). With the
        database down the delivery is handled from memory (an apology beats silence)."""
        try:
            return await self._call(self.inbox.receive, self.platform, delivery_id, payload,
                                    owner=self.owner)
        except StorageError as exc:
            log.warning("cannot store %s delivery %s (%s); handling it from memory",
                        self.platform, delivery_id, exc)
            return True

    async def done(self, delivery_id: str | int) -> None:
        try:
            await self._call(self.inbox.done, self.platform, delivery_id)
        except StorageError as exc:  # it may be handled again after a lease expiry
            log.warning("cannot mark %s delivery %s done: %s", self.platform, delivery_id, exc)

    def start(self, redeliver: Redeliver) -> None:
        """Renew this process's leases and take over expired ones, now and every third of a
        lease, until `stop`."""
        if self._keeper is None:
            self._keeper = asyncio.ensure_future(self._keep(redeliver))

    async def stop(self) -> None:
        if self._keeper is not None:
            self._keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._keeper
            self._keeper = None

    def close(self) -> None:
        self._db.shutdown(wait=True)

    async def sweep(self, redeliver: Redeliver) -> int:
        """One round: renew, take over, hand each taken entry to `redeliver`."""
        await self._call(self.inbox.renew, self.platform, self.owner)
        taken, dropped = await self._call(self.inbox.take_over, self.platform, self.owner)
        for delivery_id in dropped:
            log.error("%s delivery %s failed %s times; dropped", self.platform, delivery_id,
                      "too many")
        for entry in taken:
            log.warning("taking over %s delivery %s (attempt %s): its process stopped before "
                        "handling it", self.platform, entry.delivery_id, entry.attempts)
            try:
                await redeliver(entry.delivery_id, entry.payload)
            except Exception as exc:  # a bad payload must not stop the sweeps
                log.error("cannot handle taken-over delivery %s: %s", entry.delivery_id,
                          exc.__class__.__name__, exc_info=exc)
        return len(taken)

    async def _keep(self, redeliver: Redeliver) -> None:
        every = max(0.2, self.inbox.lease.total_seconds() / 3)
        while True:
            try:
                await self.sweep(redeliver)
            except StorageError as exc:
                log.warning("inbox sweep failed: %s", exc)
            await asyncio.sleep(every)
