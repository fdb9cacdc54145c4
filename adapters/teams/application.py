"""Activities in, flows out: a message is a question, an admin command or a card button's tap;
a messageReaction is a verdict. Everything after the parsing is core.chat.chat_turn.ChatTurns.

Teams sends a bot a channel message only when it is mentioned (personal chats: every message);
the mention is removed from the question. Admin commands are "/name args" as the message text.
"""

from __future__ import annotations

import html
import logging
import re
from contextlib import AbstractAsyncContextManager, nullcontext
from typing import Any

from adapters.charts import chart_for
from adapters.teams.cards import OPTION, PURGE, answer_card, purge_card, text_card
from adapters.teams.connector import Connector
from adapters.teams.services import PLATFORM, TeamsServices, chat_key
from adapters.teams.words import how_to_ask
from core.catalog.lookup import say
from core.chat.admin_commands import COMMANDS
from core.chat.chat_replies import help_text, supported_language
from core.chat.chat_turn import ChatTurns
from core.chat.presentation import Presentation
from core.contracts.types import Answer, Request
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

    async def deliver(self, answer: Answer, shown: Presentation) -> list[str]:
        """One Adaptive Card: the answer, its chart under it, sources, option buttons."""
        chart = await chart_for(answer, self.bot.s.chart)
        content = answer_card(shown, signer=self.bot.s.signer, turn_id=answer.turn_id,
                              chart=chart[1] if chart else None)
        return [await self.send(card=content)]

    async def note(self, text: str, *, alert: bool = False) -> None:
        await self.send(text=text)

    async def language(self, question: str | None = None) -> str:
        """The user's Teams locale when the bot speaks it, else the question's language."""
        known = supported_language(self.activity.get("locale"))
        return known or (detect_language(question) if question else "en")

    def working(self) -> AbstractAsyncContextManager[object]:
        return nullcontext()

    async def chosen(self, index: int) -> None:
        """The answer to the option follows at once; the card keeps its buttons."""

    async def send(self, *, text: str = "", card: dict[str, Any] | None = None) -> str:
        return await self.bot.connector.send(self.service_url, self.conversation, text=text,
                                             card=card, reply_to=self.activity.get("id"))


class TeamsBot:
    def __init__(self, services: TeamsServices, connector: Connector) -> None:
        self.s, self.connector = services, connector
        self.turns = ChatTurns(services, PLATFORM)

    async def handle(self, activity: Activity) -> None:
        """One activity, already authenticated; other kinds (installs, typing) are ignored."""
        kind = activity.get("type")
        if kind == "message":
            await self.on_message(activity)
        elif kind == "messageReaction":
            await self.on_reaction(activity)

    async def on_message(self, activity: Activity) -> None:
        port = TeamsPort(self, activity)
        chat, user_id = _chat(activity), _user_id(activity)
        if not port.conversation or not user_id:
            return
        value = activity.get("value")
        if isinstance(value, dict) and (OPTION in value or PURGE in value):
            await self.on_tap(activity, value, port)
            return
        text = question_text(activity)
        if text is None:  # a channel message not addressed to the bot
            return
        if not text or text.startswith("/"):
            name, _, args = text[1:].partition(" ")
            await self.on_command(name.lower(), args.strip(), port, chat=chat, user_id=user_id)
            return
        request = Request(text=text, chat=chat, user=self.turns.user_key(user_id),
                          reference_date=self.s.today(),
                          conversation=f"{PLATFORM}:{port.conversation}")
        await self.turns.answer(request, port)

    async def on_command(self, name: str, args: str, port: TeamsPort, *, chat: str,
                         user_id: str) -> None:
        language = await port.language()
        if name not in COMMANDS:  # help, start, nothing, or a command nobody knows
            usage = await self.s.usage_text(language)
            await port.send(text=help_text(language, how_to_ask(language), usage))
            return
        shown = await self.turns.admin(name, args, user_id=user_id, chat=chat,
                                       language=language)
        await port.send(card=purge_card(shown.text, shown.buttons) if shown.buttons
                        else text_card(shown.text, monospace=shown.monospace))

    async def on_tap(self, activity: Activity, value: dict[str, Any], port: TeamsPort) -> None:
        """A card button: a narrowing option, or Confirm/Cancel under a purge-all prompt."""
        chat, user_id = _chat(activity), _user_id(activity)
        if OPTION in value:
            await self.turns.tap(str(value[OPTION]), chat=chat,
                                 user=self.turns.user_key(user_id), port=port)
            return
        language = await port.language()
        text = await self.turns.purge_tap(str(value[PURGE]), tapper_id=user_id, chat=chat,
                                          language=language)
        prompt = activity.get("replyToId")
        if text is None:
            await port.note(say("expired", language))
        elif prompt:  # the prompt becomes its outcome: its buttons go
            await self.connector.update(port.service_url, port.conversation, str(prompt),
                                        card=text_card(text))
        else:
            await port.send(text=text)

    async def on_reaction(self, activity: Activity) -> None:
        """👍/👎 on one of the bot's answers (`replyToId`): a verdict, or its withdrawal."""
        message_id, user_id = activity.get("replyToId"), _user_id(activity)
        if not message_id or not user_id:
            return
        added = [str(r.get("type") or "") for r in activity.get("reactionsAdded") or []]
        removed = [str(r.get("type") or "") for r in activity.get("reactionsRemoved") or []]
        await self.turns.reaction(chat=_chat(activity), message_id=str(message_id),
                                  user=self.turns.user_key(user_id), old=removed, new=added)


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


def _chat(activity: Activity) -> str:
    return chat_key(str((activity.get("conversation") or {}).get("id") or ""))


def _user_id(activity: Activity) -> str:
    """The person's Entra object id (what an admin finds in the directory), else Teams' id."""
    sender = activity.get("from") or {}
    return str(sender.get("aadObjectId") or sender.get("id") or "")

