"""Activities -> neutral events for core.chat.dispatch (a question, a "/command", a card
button's tap, a reaction); its replies as Adaptive Cards through the Connector. Teams sends a
channel message only when the bot is mentioned (the mention is removed). Chats are named by
the channel's id (a thread's is the channel's plus ";messageid=…"), so one `restricted_chats`
entry covers every thread of a cleared channel. A bot cannot react in Teams, so a verdict is
acknowledged with a short reply instead.
"""

from __future__ import annotations

import html
import re
from contextlib import AbstractAsyncContextManager
from typing import Any

from adapters.charts import chart_for
from adapters.teams.cards import OPTION, PURGE, answer_cards, chart_card, purge_card, text_card
from adapters.teams.connector import Connector
from adapters.teams.words import NEGATIVE, POSITIVE, how_to_ask
from adapters.typing_action import typing_while
from core.catalog.lookup import say
from core.catalog.presentation import Presentation
from core.chat.chat_ports import ChatServices
from core.chat.chat_replies import reply_language, supported_language
from core.chat.dispatch import MESSAGE, REACTION, TAP, Dispatcher, Inbound, PlatformWords
from core.contracts.types import Answer, Table

PLATFORM = "teams"
Activity = dict[str, Any]
_AT = re.compile(r"<at>(.*?)</at>", re.S)
_TAGS = re.compile(r"<[^>]+>")


TeamsServices = ChatServices  # nothing of its own: its reactions are the dispatcher's words


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
        await (self.send(card=text_card(text, monospace=True)) if monospace
               else self.send(text=text))

    async def prompt(self, text: str, buttons: Any) -> None:
        await self.send(card=purge_card(text, tuple(buttons)))

    async def settle(self, text: str) -> None:
        """The tapped prompt becomes its outcome: its buttons go."""
        prompt = str(self.activity.get("replyToId") or "")
        await (self.bot.connector.update(self.service_url, self.conversation, prompt,
                                         card=text_card(text)) if prompt else self.send(text=text))

    async def acknowledge(self, message: str | int, *, shown: bool,
                          verdict: str | None) -> None:
        if shown and verdict is not None:
            await self.send(text=say(f"noted_{verdict}", await self.language()))

    async def language(self, question: str | None = None) -> str:
        return reply_language(supported_language(self.activity.get("locale")), question)

    def working(self) -> AbstractAsyncContextManager[object]:
        return typing_while(lambda: self.bot.connector.typing(self.service_url,
                                                              self.conversation),
                            delay=self.bot.s.typing_delay)

    async def chosen(self, index: int) -> None:
        """The card keeps its buttons."""

    async def send(self, *, text: str = "", card: dict[str, Any] | None = None) -> str:
        return await self.bot.connector.send(self.service_url, self.conversation, text=text,
                                             card=card, reply_to=self.activity.get("id"))


class TeamsBot:
    def __init__(self, services: TeamsServices, connector: Connector) -> None:
        self.s, self.connector = services, connector
        self.dispatcher = Dispatcher(services, PLATFORM, PlatformWords(
            how_to_ask, positive=POSITIVE, negative=NEGATIVE),
            draw=lambda answer: chart_for(answer, services.chart))

    async def handle(self, activity: Activity) -> None:
        """One authenticated activity; other kinds (installs, typing) are ignored."""
        if (event := inbound(activity)) is not None:
            await self.dispatcher.handle(event, TeamsPort(self, activity))


def inbound(activity: Activity) -> Inbound | None:
    """The neutral event an activity is, or None (not for the bot, or not a person's)."""
    conversation = str((activity.get("conversation") or {}).get("id") or "")
    sender = activity.get("from") or {}  # the Entra object id (admins find it), else Teams'
    user = str(sender.get("aadObjectId") or sender.get("id") or "")
    chat, reply_to = f"{PLATFORM}:{conversation.split(';', 1)[0]}", activity.get("replyToId")
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
    if not text or text.startswith("/"):  # its service URL: where a subscription writes
        return Inbound.command_in(chat, user, text, address=str(activity.get("serviceUrl") or ""))
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
