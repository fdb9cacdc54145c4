"""What the Slack listeners need from ricorda, passed in (never imported as globals).

Core is synchronous and not written for concurrent use, so every core call runs on one worker
thread (shared with other adapters when the caller passes one in). The delivery log gets its own
thread: its claim sits on the ack path and must not wait behind an answer being generated.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

from core.admin_commands import AdminOps
from core.callback_token import CallbackSigner
from core.chat_ports import DeliveryLog, FeedbackPort, TurnLookup
from core.reactions import ReactionVerdicts
from core.types import Answer, Request

PLATFORM = "slack"
T = TypeVar("T")


@dataclass
class SlackServices:
    ask: Callable[[Request], Answer]
    feedback: FeedbackPort
    admin: AdminOps
    turns: TurnLookup
    signer: CallbackSigner
    deliveries: DeliveryLog | None = None
    verdicts: ReactionVerdicts = field(default_factory=ReactionVerdicts)
    admins: frozenset[str] = frozenset()
    show_footer: bool = True
    today: Callable[[], dt.date] = dt.date.today
    purge_prompt_ttl: float = 600.0
    clock: Callable[[], float] = field(default=lambda: dt.datetime.now(dt.UTC).timestamp())
    core_worker: Executor | None = None  # None: a private single thread
    _own_worker: ThreadPoolExecutor | None = field(default=None, init=False, repr=False)
    _claims: ThreadPoolExecutor = field(
        default_factory=lambda: ThreadPoolExecutor(1, thread_name_prefix="ricorda-slack-dedup"),
        init=False, repr=False)

    def __post_init__(self) -> None:
        if self.core_worker is None:
            self._own_worker = ThreadPoolExecutor(1, thread_name_prefix="ricorda-core")
            self.core_worker = self._own_worker

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run a core call on the core worker thread."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.core_worker, partial(fn, *args, **kwargs))

    async def first_time(self, delivery_id: str) -> bool:
        """Claim a Slack delivery (event id) across replicas; True for whoever handles it."""
        if self.deliveries is None:
            return True
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self._claims, self.deliveries.first_time, PLATFORM, delivery_id)

    def close(self) -> None:
        self._claims.shutdown(wait=True)
        if self._own_worker is not None:
            self._own_worker.shutdown(wait=True)


def chat_key(channel: str) -> str:
    return f"{PLATFORM}:{channel}"


def user_key(user: str) -> str:
    return f"{PLATFORM}:{user}"
