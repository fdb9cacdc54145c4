"""One chat turn, for every platform: ask, present, send through the adapter's port, link the
sent messages to the turn; and the two taps a chat answer can get (a narrowing option, a purge
confirmation).

An adapter translates its platform's event into a `Request` (or a tap's token) and implements
`ChatPort` for the place the reply goes: how a message is marked up and sent, how a short note
reaches the user, how a chosen option is shown. Everything else — which answer, which parts,
the option tokens and limits, answering each option once, the purge prompt's expiry and
single use, the failure sentence, the message-to-turn map that reactions rely on — is decided
here, once, so Telegram, Slack and any adapter written next behave alike.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Protocol

from core.catalog.lookup import say
from core.catalog.presentation import Presentation, present
from core.chat.admin_commands import confirmation_id, is_admin, needs_confirmation
from core.chat.chat_ports import ChatServices
from core.chat.delivery import AnswerSender, Draw, deliver_answer
from core.chat.option_tap import tap_key, tap_request
from core.contracts.errors import StorageError
from core.contracts.thinking import while_thinking
from core.contracts.types import Answer, Request

log = logging.getLogger("ricorda.chat")

PURGE, CANCEL = "p", "x"  # the two signed tokens under a purge-all prompt


class ChatPort(AnswerSender, Protocol):
    """Where one reply goes, as the adapter knows it (a chat and the message it answers, a
    Slack thread, an ephemeral note): the answer's pieces in its markup (`AnswerSender`), and
    the rest below."""

    async def note(self, text: str, *, alert: bool = False) -> None:
        """A short sentence for the user (a failure, an expired button)."""
        ...

    async def language(self, question: str | None = None) -> str:
        """The language to say a note in (the user's locale, else the question's)."""
        ...

    def working(self) -> AbstractAsyncContextManager[object]:
        """Shown while the answer is computed (a typing indicator), or nothing."""
        ...

    async def chosen(self, index: int) -> None:
        """A tap on option `index` was accepted: acknowledge it, show the choice."""
        ...


class ChatTurns:
    """The turn flow over the services an adapter was given."""

    def __init__(self, services: ChatServices, platform: str, *, draw: Draw | None = None
                 ) -> None:
        self.s = services
        self.platform = platform
        self.draw = draw  # the answer's chart (adapters.charts.chart_for), sent first

    async def answer(self, request: Request, port: ChatPort) -> Answer | None:
        """Ask, present, deliver, link. A failing question gets one sentence, never a trace."""
        try:
            async with port.working():
                answer = await self._ask(request, port)
        except Exception as exc:  # one failing question must not take the listener down
            log.error("answering failed: %s", exc.__class__.__name__, exc_info=exc)
            await port.note(say("failed", await port.language(request.text)))
            return None
        shown = present(answer, show_footer=self.s.show_footer)
        sent = await self.deliver(answer, shown, port)
        await self.link(request.chat, sent, answer.turn_id)
        return answer

    async def deliver(self, answer: Answer, shown: Presentation,
                      port: ChatPort) -> Sequence[str | int]:
        """Chart first, then the answer fitted to the platform's limit, then its files
        (core.chat.delivery); a port with `charts = False` (an ephemeral note) gets none."""
        return await deliver_answer(port, answer, shown, limit=self.s.max_messages,
                                    draw=self.draw, chart=getattr(port, "charts", True))

    async def _ask(self, request: Request, port: ChatPort) -> Answer:
        """Ask on the core worker; a port with `thinking()` (a placeholder, a typing action)
        is told as soon as a model starts planning, and has shown it before the answer goes."""
        thinking = getattr(port, "thinking", None)
        if thinking is None:
            return await self.s.run(self.s.ask, request)
        loop = asyncio.get_running_loop()
        shown: list[asyncio.Future[object]] = []

        def started() -> None:  # on the core worker thread
            loop.call_soon_threadsafe(lambda: shown.append(asyncio.ensure_future(thinking())))

        with while_thinking(started):
            context = contextvars.copy_context()  # the worker runs the ask inside it
        # the worker's callbacks reach the loop in order: `started`'s before the answer's
        # through Context.run the answer's type is lost (Callable[..., T] meets its ParamSpec)
        answer: Answer = await self.s.run(context.run, self.s.ask, request)
        for task in shown:
            try:
                await task
            except Exception as exc:  # a lost placeholder must never cost the answer
                log.debug("thinking indicator failed: %s", exc.__class__.__name__)
        return answer

    async def link(self, chat: str, sent: Sequence[str | int], turn_id: str) -> None:
        """Remember which messages show which turn, so reactions on them count after a
        restart too; the answer is out either way, only its feedback link can be lost."""
        def mapping() -> None:
            for message_id in sent:
                self.s.turns.map_message(self.platform, chat, message_id, turn_id)

        try:  # storage only, off the core worker (the turn was recorded before the answer)
            await self.s.run_store(mapping)
        except StorageError as exc:
            log.warning("cannot map messages to turn %s: %s", turn_id, exc)

    async def tap(self, token: str | None, *, chat: str, user: str,
                  port: ChatPort) -> Answer | None:
        """A narrowing option: the stored question re-asked with that slot fixed, each option
        answered once. A forged or stale token, or one from another chat, is "expired"."""
        decoded = self.s.signer.decode_option(token)
        request = None
        if decoded is not None:
            turn = await self.s.run(self.s.turns.get_turn, decoded[0])
            request = tap_request(turn, decoded[1], chat=chat, user=user, today=self.s.today())
        if request is None or decoded is None:
            log.info("expired or forged option button from %s", user)
            await port.note(say("expired", await port.language()), alert=True)
            return None
        if not await self.s.use_once(tap_key(*decoded)):
            await port.note(say("already_answered", await port.language()))
            return None
        await port.chosen(decoded[1])
        return await self.answer(request, port)

    def purge_tokens(self, user_id: str) -> tuple[str, str]:
        """(confirm, cancel) for a purge-all prompt: signed for this admin and this moment."""
        issued = str(int(self.s.clock()))
        return (self.s.signer.sign(PURGE, user_id, issued),
                self.s.signer.sign(CANCEL, user_id, issued))

    async def purge_choice(self, token: str | None, *, tapper_id: str, user: str) -> str | None:
        """PURGE or CANCEL when the tap is the prompt's admin's own, within its time and the
        first use of that prompt (across replicas); None otherwise ("expired")."""
        kind = (token or "")[:1]
        fields = self.s.signer.verify(token, kind) if kind in (PURGE, CANCEL) else None
        fresh = fields is not None and len(fields) == 2 and fields[1].isdigit() and (
            0 <= self.s.clock() - int(fields[1]) <= self.s.purge_prompt_ttl)
        if (not fresh or fields is None or fields[0] != tapper_id
                or not is_admin(user, self.s.admins)
                or not await self.s.use_once(confirmation_id(self.platform, *fields))):
            log.warning("purge confirmation refused for %s", user)
            return None
        return kind

    # --- the admin and feedback flows every platform shares (an adapter adds only markup) ---

    async def admin(self, name: str, args: str, *, user_id: str, chat: str,
                    language: str) -> AdminTurn:
        """An admin command's reply: a listing (monospace for admins), or, for purge-all, a
        prompt whose two buttons carry signed single-use tokens for this admin."""
        user = self.user_key(user_id)
        allowed = is_admin(user, self.s.admins)
        text = await self.s.admin_reply(name, args, user=user, is_admin=allowed, chat=chat,
                                        language=language)
        if allowed and needs_confirmation(name, args):
            confirm, cancel = self.purge_tokens(user_id)
            return AdminTurn(text, monospace=True, buttons=(
                (say("purge_confirm", language), confirm),
                (say("purge_cancel", language), cancel)))
        return AdminTurn(text, monospace=allowed)

    async def purge_tap(self, token: str | None, *, tapper_id: str, chat: str,
                        language: str) -> str | None:
        """What replaces a purge-all prompt after a tap on it: the purge's result, or
        "cancelled"; None when the tap is refused (say "expired")."""
        user = self.user_key(tapper_id)
        kind = await self.purge_choice(token, tapper_id=tapper_id, user=user)
        if kind is None:
            return None
        if kind == CANCEL:
            return say("purge_cancelled", language)
        return await self.s.admin_reply("purge", "all", user=user, is_admin=True,
                                        confirmed=True, chat=chat, language=language)

    async def reaction(self, *, chat: str, message_id: str | int, user: str,
                       old: Sequence[str], new: Sequence[str],
                       turn_id: str | None = None) -> bool | None:
        """A user's reactions on a message changed from `old` to `new`: the verdict recorded on
        the turn that message shows. True/False: set/clear the bot's acknowledgement; None:
        nothing to do (no meaningful change, or not one of the bot's answers)."""
        verdict, withdrawn = self.s.verdicts.for_reaction_change(self.platform, old, new)
        if verdict is None and not withdrawn:
            return None
        turn_id = turn_id or await self.answer_turn(chat, message_id)
        if turn_id is None:
            return None
        return await self.s.reaction_verdict(turn_id, user, verdict)

    async def answer_turn(self, chat: str, message_id: str | int) -> str | None:
        """The turn a message of the bot's shows, or None (a log line: not an answer)."""
        turn_id = await self.s.run(self.s.turns.turn_for_message, self.platform, chat,
                                   message_id)
        if turn_id is None:
            log.info("reaction on message %s in %s: not one of my answers, ignored",
                     message_id, chat)
        return turn_id

    def user_key(self, user_id: str | int) -> str:
        """"telegram:42": how a platform's user is named in admins and feedback."""
        return f"{self.platform}:{user_id}"


@dataclass(frozen=True)
class AdminTurn:
    """An admin reply as every platform shows it: text (a table when `monospace`) and, under a
    purge-all prompt, (label, token) buttons."""

    text: str
    monospace: bool = False
    buttons: tuple[tuple[str, str], ...] = ()
