"""One dispatcher for every chat platform: a neutral inbound event in, the chat's flow decided
here, the reply handed back to the adapter's port to mark up and send.

An adapter parses its platform's payload into an `Inbound` (a message, a command, a button
tap, a reaction: who, where, what) and implements `ReplyPort` for the place the reply goes.
What happens next is written once: help and start, `/ask`, admin commands and the purge-all
prompt, the purge tap and its "expired" note, narrowing taps, reactions and ✓/✗ replies as
verdicts, the reason asked after a ✗ (core.chat.feedback_reasons), and the answer itself
(core.chat.chat_turn, core.chat.delivery). A new chat flow
(feedback reasons, subscriptions) is added here, and every platform has it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from core.catalog.lookup import say
from core.chat.admin_commands import COMMANDS, description, is_admin
from core.chat.chat_ports import ChatServices
from core.chat.chat_replies import help_text
from core.chat.chat_turn import CANCEL, PURGE, ChatPort, ChatTurns
from core.chat.delivery import Draw
from core.chat.feedback_reasons import ReasonFlow, owns
from core.chat.reactions import NEGATIVE
from core.chat.subscribe_flow import Inbound as SubscriptionEvent
from core.chat.subscribe_flow import SubscriptionFlow
from core.contracts.types import Request

log = logging.getLogger("ricorda.chat")

MESSAGE, COMMAND, TAP, REACTION = "message", "command", "tap", "reaction"
HELP = ("help", "start", "")


@dataclass(frozen=True)
class Inbound:
    """One platform event, parsed: `chat` is platform-qualified ("slack:C1", the key of
    clearance, taps and the message map), `user` the platform's own id ("U1")."""

    kind: str  # MESSAGE, COMMAND, TAP or REACTION
    chat: str
    user: str
    text: str = ""  # the question (the bot's mention removed), a command's arguments
    command: str = ""  # a command's name, lower case ("help", "purge")
    token: str | None = None  # a tapped button's signed data
    addressed: bool = True  # a message meant for the bot (a DM, a mention)
    conversation: str = ""  # which conversation a question continues ("" = the chat)
    reply_to: str | int | None = None  # the message this one replies to (✓/✗ replies)
    message: str | int | None = None  # the message reacted on
    old: tuple[str, ...] = ()  # the user's reactions on it before, and now
    new: tuple[str, ...] = ()
    turn_id: str | None = None  # the turn `message` shows, when the adapter looked it up
    address: str = ""  # how to write to `chat` first, later, when its id is not enough

    @classmethod
    def command_in(cls, chat: str, user: str, typed: str | None, **more: Any) -> Inbound:
        """A command as every platform types it: "/purge all" or "purge all" is purge with
        "all", Telegram's "/help@ricorda_bot" is help, and so is nothing."""
        head, _, args = (typed or "").strip().partition(" ")
        name = head.lstrip("/").split("@", 1)[0].lower() or "help"
        return cls(COMMAND, chat, user, text=args.strip(), command=name, **more)


@dataclass(frozen=True)
class PlatformWords:
    """What only the platform says: how to ask there, `/ask`'s usage line, how an admin
    command is typed ("/ricorda {name}") when help lists them, and its reactions that are a
    verdict (adapters/<platform>/words.py; an operator's configured sets stand)."""

    how_to_ask: Callable[[str], str]
    ask_usage: Callable[[str], str] | None = None
    admin_command: str | None = None
    positive: Collection[str] = ()
    negative: Collection[str] = ()


class ReplyPort(ChatPort, Protocol):
    """`ChatPort` (answers, notes, taps) plus the replies the dispatcher's other flows send."""

    async def reply(self, text: str, *, monospace: bool = False) -> None:
        """A plain reply where the event came from (help, an admin listing: monospace)."""
        ...

    async def prompt(self, text: str, buttons: Sequence[tuple[str, str]]) -> None:
        """A reply with (label, signed token) buttons (the purge-all prompt)."""
        ...

    async def settle(self, text: str) -> None:
        """The tapped prompt becomes `text`, its buttons gone (or `text` is sent)."""
        ...

    async def acknowledge(self, message: str | int, *, shown: bool,
                          verdict: str | None) -> None:
        """Show (or stop showing) that verdicts stand on `message`: a reaction of the bot's,
        or a short note where the bot cannot react."""
        ...


class Dispatcher:
    """Every chat flow, over the services an adapter was given."""

    def __init__(self, services: ChatServices, platform: str, words: PlatformWords, *,
                 draw: Draw | None = None) -> None:
        if words.positive or words.negative:  # an operator's configured sets stand
            services.verdicts = services.verdicts.own_reactions(platform, words.positive,
                                                                words.negative)
        self.s = services
        self.words = words
        self.turns = ChatTurns(services, platform, draw=draw)
        self.reasons = ReasonFlow(services, platform)  # what was wrong, after a ✗
        self.subscriptions = SubscriptionFlow(services, platform)

    async def handle(self, event: Inbound, port: ReplyPort) -> None:
        if event.kind == REACTION:
            await self.reaction(event, port)
        elif event.kind == TAP:
            await self.tap(event, port)
        elif event.kind == COMMAND:
            await self.command(event, port)
        else:
            await self.message(event, port)

    async def message(self, event: Inbound, port: ReplyPort) -> None:
        """A ✓/✗ reply to an answer is a verdict; else, when meant for the bot, a question
        (nothing but the mention: help)."""
        if event.reply_to is not None and self.s.verdicts.for_reply(event.text) is not None:
            await self.verdict_reply(event, port)
            return
        if (event.addressed or event.reply_to is not None) and await self.reasons.note(
                event.chat, event.user, event.text, port):
            return
        if not event.addressed:
            return
        if not event.text.strip():
            await self.help(event, port)
            return
        await self.ask(event, port)

    async def ask(self, event: Inbound, port: ReplyPort) -> None:
        request = Request(text=event.text.strip(), chat=event.chat,
                          user=self.turns.user_key(event.user), reference_date=self.s.today(),
                          conversation=event.conversation)
        await self.turns.answer(request, port)

    async def command(self, event: Inbound, port: ReplyPort) -> None:
        """help/start, `ask <question>`, an admin command; anything else: help."""
        name = event.command.lower()
        if name == "ask" and event.text.strip():
            await self.ask(event, port)
        elif name == "ask" and self.words.ask_usage is not None:
            await port.reply(self.words.ask_usage(await port.language()))
        elif name in COMMANDS:
            await self.admin(name, event, port)
        elif self.subscriptions.handles(name):
            if event.address and self.s.remember_address is not None:  # for the deliveries
                await self.s.run_store(self.s.remember_address, event.chat, event.address)
            await self.subscriptions.command(name, _subscription_event(event), port)
        else:
            await self.help(event, port, greet=name == "start")

    async def help(self, event: Inbound, port: ReplyPort, *, greet: bool = False) -> None:
        """What to ask (the knowledge base's examples) and how to ask it here; admins also
        read their commands where the platform lists them in help."""
        language = await port.language()
        text = help_text(language, self.words.how_to_ask(language),
                         await self.s.usage_text(language))
        if self.s.subscriptions is not None:  # core.chat.subscribe_flow: written once, here
            text += "\n\n" + say("help_subscriptions", language)
        pattern = self.words.admin_command
        if pattern and is_admin(self.turns.user_key(event.user), self.s.admins):
            text += "\n\n" + "\n".join(
                f"`{pattern.format(name=name)}` {description(name, language)}"
                for name in COMMANDS)
        await port.reply(say("start", language) + "\n\n" + text if greet else text)

    async def admin(self, name: str, event: Inbound, port: ReplyPort) -> None:
        shown = await self.turns.admin(name, event.text, user_id=event.user, chat=event.chat,
                                       language=await port.language())
        if shown.buttons:
            await port.prompt(shown.text, shown.buttons)
        else:
            await port.reply(shown.text, monospace=shown.monospace)

    async def tap(self, event: Inbound, port: ReplyPort) -> None:
        """A purge prompt's Confirm/Cancel, else a narrowing option (a forged or stale token of
        either kind: "expired")."""
        token = event.token or ""
        if owns(token):
            await self.reasons.tap(token, event.user, port)
            return
        if await self.subscriptions.tap(_subscription_event(event), port):
            return
        if token[:2] not in (f"{PURGE}:", f"{CANCEL}:"):
            await self.turns.tap(token or None, chat=event.chat,
                                 user=self.turns.user_key(event.user), port=port)
            return
        language = await port.language()
        text = await self.turns.purge_tap(token, tapper_id=event.user, chat=event.chat,
                                          language=language)
        if text is None:
            await port.note(say("expired", language), alert=True)
        else:
            await port.settle(text)

    async def reaction(self, event: Inbound, port: ReplyPort) -> None:
        if event.message is None:
            return
        verdict, _ = self.s.verdicts.for_reaction_change(self.turns.platform, event.old,
                                                         event.new)
        shown = await self.turns.reaction(chat=event.chat, message_id=event.message,
                                          user=self.turns.user_key(event.user), old=event.old,
                                          new=event.new, turn_id=event.turn_id)
        if shown is not None:
            await port.acknowledge(event.message, shown=shown, verdict=verdict)
        if shown and verdict == NEGATIVE:
            turn_id = event.turn_id or await self.turns.answer_turn(event.chat, event.message)
            if turn_id is not None:
                await self.reasons.after_rejection(turn_id, event.user, event.chat, port)

    async def verdict_reply(self, event: Inbound, port: ReplyPort) -> None:
        """"✓" / "✗" as a reply to one of the bot's answers; noted with a short sentence."""
        assert event.reply_to is not None
        verdict = self.s.verdicts.for_reply(event.text)
        turn_id = await self.s.run(self.s.turns.turn_for_message, self.turns.platform,
                                   event.chat, event.reply_to)
        if verdict is None or turn_id is None:
            log.info("verdict reply to a message that is not an answer, ignored")
            return
        outcome = await self.s.run(self.s.feedback.record, turn_id,
                                   self.turns.user_key(event.user), verdict, via="reply")
        if getattr(outcome, "applied", True):
            await port.reply(say(f"noted_{verdict}", await port.language()))
            if verdict == NEGATIVE:
                await self.reasons.after_rejection(turn_id, event.user, event.chat, port)


def _subscription_event(event: Inbound) -> SubscriptionEvent:
    return SubscriptionEvent(event.chat, event.user, event.text, event.token)
