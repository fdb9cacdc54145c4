"""What a chat adapter needs from ricorda besides `ask`: feedback, the turn/message map and
the delivery log. Declared once here so every platform adapter types against the same seams."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from core.chat.reactions import ReactionVerdicts
from core.contracts.errors import StorageError
from core.contracts.ports import TurnRecord

if TYPE_CHECKING:
    from core.chat.admin_commands import AdminOps
    from core.chat.callback_token import CallbackSigner
    from core.contracts.types import Answer, Request, Table
    from core.subscriptions.desk import SubscriptionDesk

T = TypeVar("T")
CONFIRMATIONS = "confirmation"  # the delivery log's "platform" for used confirmation buttons


class FeedbackPort(Protocol):
    def record(self, turn_id: str, user: str, verdict: str, *, via: str) -> Any: ...

    def withdraw(self, turn_id: str, user: str) -> Any: ...


class TurnLookup(Protocol):
    def get_turn(self, turn_id: str) -> TurnRecord | None: ...

    def map_message(
        self, platform: str, chat: str, message_id: str | int, turn_id: str
    ) -> None: ...

    def turn_for_message(self, platform: str, chat: str, message_id: str | int) -> str | None: ...

    def feedback_for(self, turn_id: str) -> Sequence[object]:
        """The verdicts that stand on a turn (any user, any way they were given)."""
        ...


class ReasonStore(Protocol):
    """Why a ✗: each prompt's state (storage.feedback_reasons, core.chat.feedback_reasons)."""

    def claim(self, turn_id: str, chat: str, user: str, *, window: dt.timedelta) -> bool: ...

    def choose(self, turn_id: str, user: str, reason: str) -> bool: ...

    def pending_note(self, chat: str, user: str, *, window: dt.timedelta) -> str | None: ...

    def any_pending(self, *, window: dt.timedelta) -> bool: ...

    def add_note(self, turn_id: str, user: str, note: str) -> bool: ...

    def close(self, turn_id: str, user: str) -> bool: ...


class DeliveryLog(Protocol):
    def first_time(self, platform: str, delivery_id: str | int) -> bool: ...


class PendingDelivery(Protocol):
    delivery_id: str
    payload: str
    attempts: int


class Inbox(Protocol):
    """Deliveries stored before the platform is told they arrived (storage/inbox.py)."""

    lease: dt.timedelta

    def receive(self, platform: str, delivery_id: str | int, payload: str, *,
                owner: str) -> bool: ...

    def done(self, platform: str, delivery_id: str | int) -> None: ...

    def renew(self, platform: str, owner: str) -> int: ...

    def take_over(self, platform: str, owner: str
                  ) -> tuple[list[PendingDelivery], list[str]]: ...


@dataclass
class ChatServices:
    """What every chat adapter's handlers need from ricorda, passed in (never globals).

    Core is synchronous and not written for concurrent use, so every core call runs on one
    worker thread, shared between adapters when the caller passes one in: the event loop stays
    free for platform I/O while answers are computed one at a time."""

    ask: Callable[[Request], Answer]
    feedback: FeedbackPort
    admin: AdminOps
    turns: TurnLookup
    signer: CallbackSigner
    deliveries: DeliveryLog | None = None
    inbox: Inbox | None = None  # None: deliveries are handled from memory only
    verdicts: ReactionVerdicts = field(default_factory=ReactionVerdicts)
    admins: frozenset[str] = frozenset()
    show_footer: bool = False
    today: Callable[[], dt.date] = dt.date.today
    purge_prompt_ttl: float = 600.0
    clock: Callable[[], float] = field(default=lambda: dt.datetime.now(dt.UTC).timestamp())
    core_worker: Executor | None = None  # None: a private single thread
    # whether a chat ("telegram:-100…") is cleared for RESTRICTED data, asked at each use so
    # a changed glossary counts at once; the default clears no chat
    is_cleared: Callable[[str], bool] = field(default=lambda chat: False)
    # draws a table's chart as a PNG (adapters.charts.render_chart); None: no charts, the
    # table is shown as text only (RICORDA_CHARTS=false)
    chart: Callable[[Table], bytes] | None = None
    # the "ask me, for example: ..." hint per language from the loaded knowledge base
    # (core.knowledge.examples); None: the generic one
    usage: Callable[[str], str] | None = None
    # chat messages one answer may take (core.chat.oversized): a table too big for one goes as
    # a CSV file, the rest is cut with a line saying so
    max_messages: int = 4
    # brings the knowledge base up to date before an admin command, exactly as `ask` does
    # before an answer: what a listing may show depends on the glossary (clearance)
    ensure_fresh: Callable[[], None] | None = None
    typing_delay: float = 0.3  # seconds before "typing…" shows: instant answers need none
    # where the reason for a ✗ is kept (core.chat.feedback_reasons); None: no reason asked
    reasons: ReasonStore | None = None
    # /subscribe and friends (core.chat.subscribe_flow); None: the commands are help
    subscriptions: SubscriptionDesk | None = None
    # remembers how to write first to a chat that subscribes, when its id is not enough
    # (Teams: the conversation's service URL): (chat, address); None: nothing to remember
    remember_address: Callable[[str, str], None] | None = None
    _own_worker: ThreadPoolExecutor | None = field(default=None, init=False, repr=False)
    _used: set[str] = field(default_factory=set, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.core_worker is None:
            self._own_worker = ThreadPoolExecutor(1, thread_name_prefix="ricorda-core")
            self.core_worker = self._own_worker

    async def usage_text(self, language: str) -> str | None:
        """The loaded knowledge base's example questions (read on the core worker), or None."""
        if self.usage is None:
            return None
        return await self.run(self.usage, language)

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run a core call on the core worker thread."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.core_worker, partial(fn, *args, **kwargs))

    async def run_store(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run a storage call core computes nothing for (a reason prompt's state) off the core
        worker: every message asks one, and it must not queue behind answers being worked out
        nor take the one core thread's time from them (bench/bench_slack.py)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, partial(fn, *args, **kwargs))

    async def admin_reply(
        self, name: str, args: str, *, user: str, is_admin: bool, chat: str,
        confirmed: bool = False, language: str = "en",
    ) -> str:
        """The reply to an admin command shown in `chat`, its sentences in `language`:
        questions asked from cleared chats appear only when that chat is cleared (everyone in
        it reads the reply)."""
        from core.chat.admin_commands import run_admin_command

        def reply() -> str:
            if self.ensure_fresh is not None:
                self.ensure_fresh()
            return run_admin_command(
                self.admin, name, args, user=user, is_admin=is_admin, confirmed=confirmed,
                cleared=self.is_cleared(chat), language=language,
            )

        return await self.run(reply)

    async def reaction_verdict(self, turn_id: str, user: str, verdict: str | None) -> bool:
        """Record a reaction's verdict (None: the user withdrew theirs). True when the answer
        should carry the bot's acknowledgement afterwards: some verdict stands on the turn.
        The platform shows one acknowledgement per message for everyone who reacted, so it goes
        only when the last verdict does; when storage cannot tell, it stays."""
        if verdict is not None:
            outcome = await self.run(self.feedback.record, turn_id, user, verdict,
                                     via="reaction")
            return bool(getattr(outcome, "applied", True))
        await self.run(self.feedback.withdraw, turn_id, user)
        try:
            return bool(await self.run(self.turns.feedback_for, turn_id))
        except StorageError:
            return True

    async def use_once(self, confirmation: str) -> bool:
        """True the first time a confirmation (a purge prompt's button) is used, across replicas
        (claimed in the delivery log); a replay of the same tap gets False. When the database
        cannot tell, the answer is False: a purge can be asked for again, not undone."""
        if self.deliveries is None:
            fresh = confirmation not in self._used
            self._used.add(confirmation)
            return fresh
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(
                None, self.deliveries.first_time, CONFIRMATIONS, confirmation)
        except StorageError:
            return False

    def close(self) -> None:
        """Stop the worker this object started (a shared one belongs to its owner)."""
        if self._own_worker is not None:
            self._own_worker.shutdown(wait=True)
