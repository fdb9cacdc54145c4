"""Activities -> neutral events for core.chat.dispatch (a question, a "/command", a card
button's tap, a reaction); its replies as Adaptive Cards through the Connector. Teams sends a
channel message only when the bot is mentioned (the mention is removed). A bot cannot react in
Teams, so a verdict is acknowledged with a short reply instead.
"""

from __future__ import annotations

import asyncio
import html
import logging
import re
from contextlib import AbstractAsyncContextManager
from typing import Any

from adapters.charts import chart_for
from adapters.teams.cards import OPTION, PURGE, answer_cards, chart_card, purge_card, text_card
from adapters.teams.connector import Connector
from adapters.teams.services import PLATFORM, TeamsServices, chat_key
from adapters.teams.words import how_to_ask
from adapters.typing_action import typing_while
from core.catalog.lookup import say
from core.catalog.presentation import Presentation
from core.chat.chat_replies import supported_language
from core.chat.dispatch import COMMAND, MESSAGE, REACTION, TAP, Dispatcher, Inbound, PlatformWords
from core.contracts.types import Answer, Table
from core.language import detect_language

log = logging.getLogger("ricorda.teams")
Activity = dict[str, Any]
_AT = re.compile(r"<at>(.*?)</at>", re.S)
_TAGS = re.compile(r"<[^>]+>")


class TeamsPort:
    """Where one reply goes: the conversation (a personal chat, a channel thread) it came from."""

    def __init__(self, bot: TeamsBot, activity: Activity) -> None:
        self.bot, self.activity = bot, activity
        self.service_url = str(activity.get("serviceUrl") or "")
        self.conversation = str((activity.get("conversation") or {}).get("id") or "")

    def count(self, answer: Answer, shown: Presentation) -> int:
        return len(answer_cards(shown, signer=self.bot.s.signer, turn_id=answer.turn_id))

    def too_big(self, table: Table) -> bool:
        return False  # a long table is split between cards, never sent as a file

    async def send_chart(self, table: Table, png: bytes) -> tuple[str | None, bool]:
        return (await self.send(card=card) if (card := chart_card(png, table.title)) else None
                ), False

    async def send_messages(self, answer: Answer, shown: Presentation) -> list[str]:
        return [await self.send(card=content) for content in answer_cards(
            shown, signer=self.bot.s.signer, turn_id=answer.turn_id)]

    async def send_file(self, attachment: object) -> None:
        """Unreachable: `too_big` is never true."""

    async def note(self, text: str, *, alert: bool = False) -> None:
        await self.send(text=text)

    async def reply(self, text: str, *, monospace: bool = False) -> None:
        card = text_card(text, monospace=True) if monospace else None
        await self.send(text="" if card else text, card=card)

    async def prompt(self, text: str, buttons: Any) -> None:
        await self.send(card=purge_card(text, tuple(buttons)))

    async def settle(self, text: str) -> None:
        """The purge prompt becomes its outcome: its buttons go."""
        prompt = str(self.activity.get("replyToId") or "")
        await (self.bot.connector.update(self.service_url, self.conversation, prompt,
                                         card=text_card(text)) if prompt else self.send(text=text))

    async def acknowledge(self, message: str | int, *, shown: bool,
                          verdict: str | None) -> None:
        if shown and verdict is not None:
            await self.send(text=say(f"noted_{verdict}", await self.language()))

    async def language(self, question: str | None = None) -> str:
        """The user's Teams locale when the bot speaks it, else the question's language."""
        known = supported_language(self.activity.get("locale"))
        return known or (detect_language(question) if question else "en")

    def working(self) -> AbstractAsyncContextManager[object]:
        return typing_while(self.thinking, delay=self.bot.s.typing_delay)

    async def thinking(self) -> None:
        await self.bot.connector.typing(self.service_url, self.conversation)

    async def chosen(self, index: int) -> None:
        """The card keeps its buttons."""

    async def send(self, *, text: str = "", card: dict[str, Any] | None = None) -> str:
        return await self.bot.connector.send(self.service_url, self.conversation, text=text,
                                             card=card, reply_to=self.activity.get("id"))


class TeamsBot:
    def __init__(self, services: TeamsServices, connector: Connector) -> None:
        self.s, self.connector = services, connector
        self.dispatcher = Dispatcher(services, PLATFORM, PlatformWords(how_to_ask),
                                     draw=lambda answer: chart_for(answer, services.chart))

    async def handle(self, activity: Activity) -> None:
        """One authenticated activity; other kinds (installs, typing) are ignored."""
        event = inbound(activity)
        if event is None:
            return
        service_url = str(activity.get("serviceUrl") or "")
        if (event.kind == COMMAND and event.command == "subscribe" and service_url
                and self.s.remember_service is not None):  # where to write first, later
            await asyncio.get_running_loop().run_in_executor(
                None, self.s.remember_service, event.chat, service_url)
        await self.dispatcher.handle(event, TeamsPort(self, activity))


def inbound(activity: Activity) -> Inbound | None:
    """The neutral event an activity is, or None (not for the bot, or not a person's)."""
    conversation = str((activity.get("conversation") or {}).get("id") or "")
    sender = activity.get("from") or {}  # the Entra object id (admins find it), else Teams'
    user = str(sender.get("aadObjectId") or sender.get("id") or "")
    chat, reply_to = chat_key(conversation), activity.get("replyToId")
    if not conversation or not user:
        return None
    if activity.get("type") == "messageReaction":  # 👍/👎 on one of the bot's answers
        added = tuple(str(r.get("type") or "") for r in activity.get("reactionsAdded") or [])
        removed = tuple(str(r.get("type") or "") for r in activity.get("reactionsRemoved") or [])
        return Inbound(REACTION, chat, user, message=reply_to or None, old=removed, new=added)
    if activity.get("type") != "message":
        return None
    value = activity.get("value")
    if isinstance(value, dict) and (OPTION in value or PURGE in value):
        return Inbound(TAP, chat, user, token=str(value.get(OPTION) or value.get(PURGE)))
    text = question_text(activity)
    if text is None:  # a channel message not addressed to the bot
        return None
    if not text or text.startswith("/"):
        name, _, args = text[1:].partition(" ")
        return Inbound(COMMAND, chat, user, text=args.strip(), command=name.lower())
    return Inbound(MESSAGE, chat, user, text=text, conversation=f"{PLATFORM}:{conversation}",
                   reply_to=str(reply_to) if reply_to else None)


def question_text(activity: Activity) -> str | None:
    """The message without the bot's mention; None in a channel when the bot is not
    mentioned (nothing to answer)."""
    bot = str((activity.get("recipient") or {}).get("id") or "")
    mentioned = any(e.get("type") == "mention" and (e.get("mentioned") or {}).get("id") == bot
                    for e in activity.get("entities") or [] if isinstance(e, dict))
    personal = (activity.get("conversation") or {}).get("conversationType") in (None, "personal")
    if not personal and not mentioned:
        return None
    text = _AT.sub("", str(activity.get("text") or "")) if mentioned else str(
        activity.get("text") or "")
    return " ".join(html.unescape(_TAGS.sub(" ", text)).split())
