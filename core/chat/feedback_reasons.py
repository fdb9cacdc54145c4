"""After a ✗, ask once what was wrong: reason buttons, then an optional note, then thanks.

Written once for every platform (the dispatcher calls it; adapters only draw the buttons their
`prompt` is given). The state lives in storage (storage.feedback_reasons) so a tap or a note
reaching another replica continues the same exchange. No nagging: a turn is asked about at most
once, whoever rejects it again, and a user with a prompt still open is not asked about another
answer (a row of ✗ gets one question, not a volley).
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from core.catalog.lookup import say
from core.contracts.errors import StorageError

if TYPE_CHECKING:
    from core.chat.chat_ports import ChatServices, ReasonStore

log = logging.getLogger("ricorda.feedback")

KIND = "r"  # a reason button's signed token: r:<turn id>:<reason>:<mac>
REASONS = ("figure", "period", "unit", "understood", "other")
SKIP = "skip"
WINDOW = dt.timedelta(minutes=10)  # how long a prompt stays open for its reason or note
# whether anybody anywhere may send a note is asked of the store at most this often, and a
# message is looked up on its own only when somebody may (a note typed on one replica within a
# second of its reason tapped on another would be answered as a question; nobody types so fast)
QUIET_S = 1.0
NOTE_CHARS = 2000


class ReasonPort(Protocol):
    """What this flow sends through (the dispatcher's ReasonPort has it all)."""

    async def prompt(self, text: str, buttons: Sequence[tuple[str, str]]) -> None: ...

    async def settle(self, text: str) -> None: ...

    async def note(self, text: str, *, alert: bool = False) -> None: ...

    async def reply(self, text: str, *, monospace: bool = False) -> None: ...

    async def language(self, question: str | None = None) -> str: ...


def owns(token: str | None) -> bool:
    """A reason button's token (routed here by the dispatcher)."""
    return bool(token) and str(token).startswith(f"{KIND}:")


def reason_label(reason: str, language: str) -> str:
    return say(f"reason_{reason}", language)


class ReasonFlow:
    """The exchange after a ✗, over the adapter's services and port."""

    def __init__(self, services: ChatServices, platform: str, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.s = services
        self.platform = platform
        self.clock = clock
        self._anyone, self._asked_until = True, float("-inf")  # whether any note is pending

    def _user(self, user_id: str) -> str:
        return f"{self.platform}:{user_id}"

    async def after_rejection(self, turn_id: str, user_id: str, chat: str,
                              port: ReasonPort) -> None:
        """A ✗ was recorded on `turn_id`: ask why, when nobody was asked about it yet."""
        store = self.s.reasons
        if store is None:
            return
        try:
            asked = await self.s.run_store(store.claim, turn_id, chat, self._user(user_id),
                                     window=WINDOW)
        except StorageError as exc:  # the verdict stands; only the question is skipped
            log.warning("cannot open a reason prompt: %s", exc)
            return
        if not asked:
            return
        language = await port.language()
        buttons = [(reason_label(r, language), self.s.signer.sign(KIND, turn_id, r))
                   for r in REASONS]
        await port.prompt(say("reason_ask", language), buttons)

    async def tap(self, token: str | None, user_id: str, port: ReasonPort) -> None:
        """A reason (then: anything to add?) or "nothing to add"; only the asked user's first
        tap counts, a forged or stale one is "expired"."""
        store = self.s.reasons
        fields = self.s.signer.verify(token, KIND)
        language = await port.language()
        if store is None or fields is None or len(fields) != 2 or fields[1] not in (
                *REASONS, SKIP):
            await port.note(say("expired", language), alert=True)
            return
        turn_id, reason = fields
        user = self._user(user_id)
        if reason == SKIP:
            if await self.s.run_store(store.close, turn_id, user):
                await port.settle(say("reason_thanks", language))
            else:
                await port.note(say("expired", language), alert=True)
            return
        if not await self.s.run_store(store.choose, turn_id, user, reason):
            await port.note(say("expired", language), alert=True)
            return
        self._anyone = True  # a note may follow, here at once
        await port.settle(say("reason_noted", language, reason=reason_label(reason, language)))
        await port.prompt(say("reason_more", language, minutes=int(WINDOW.total_seconds() // 60)),
                          [(say("reason_skip", language), self.s.signer.sign(KIND, turn_id, SKIP))])

    async def note(self, chat: str, user_id: str, text: str, port: ReasonPort) -> bool:
        """True when this message (meant for the bot) is the note a user was invited to add
        (stored, thanked); False: an ordinary message, answered as usual."""
        store = self.s.reasons
        text = text.strip()
        if store is None or not text:
            return False
        user = self._user(user_id)
        try:
            if not await self._may_be_pending(store):
                return False
            turn_id = await self.s.run_store(store.pending_note, chat, user, window=WINDOW)
            if turn_id is None:
                return False
            if not await self.s.run_store(store.add_note, turn_id, user, text[:NOTE_CHARS]):
                return False
        except StorageError as exc:  # a note that cannot be kept is answered as a question
            log.warning("cannot store a feedback note: %s", exc)
            return False
        await port.reply(say("reason_thanks", await port.language()))
        return True

    async def _may_be_pending(self, store: ReasonStore) -> bool:
        """Whether any note may be pending anywhere, as the store said at most QUIET_S ago:
        asked once a second, not once a message (most messages are questions)."""
        if self.clock() >= self._asked_until:
            self._anyone = await self.s.run_store(store.any_pending, window=WINDOW)
            self._asked_until = self.clock() + QUIET_S
        return self._anyone
