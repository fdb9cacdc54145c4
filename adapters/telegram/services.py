"""What the Telegram handlers need from ricorda, passed in (never imported as globals).

Core is synchronous and not written for concurrent use, so every core call runs on one worker
thread: the event loop stays free for Telegram I/O while answers are computed one at a time.
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

PLATFORM = "telegram"
T = TypeVar("T")


@dataclass
class TelegramServices:
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
    typing_delay: float = 0.3  # seconds before "typing…" shows: instant answers need none
    purge_prompt_ttl: float = 600.0
    clock: Callable[[], float] = field(default=lambda: dt.datetime.now(dt.UTC).timestamp())
    _worker: Executor = field(
        default_factory=lambda: ThreadPoolExecutor(1, thread_name_prefix="ricorda-core"))

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run a core call on the core worker thread."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._worker, partial(fn, *args, **kwargs))

    def close(self) -> None:
        self._worker.shutdown(wait=True)


def chat_key(chat_id: int) -> str:
    return f"{PLATFORM}:{chat_id}"


def user_key(user_id: int) -> str:
    return f"{PLATFORM}:{user_id}"
