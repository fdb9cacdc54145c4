"""`/ricorda ask|help|fastpaths|purge|autopaths|stats` and the purge-all confirmation.

Every reply is ephemeral. Help is the ack itself (no core call); everything else is acked
empty first and answered afterwards with chat.postEphemeral, falling back to the command's
response_url where the bot is not a member (`ask` included). The command's text is decoded as
event text is (`&amp;` is `&`, `<#C1|name>` is `name`). Replies are in the user's Slack locale
(users.info, cached per user: adapters/slack/locales.py), English when the bot does not speak
it; the answer to `ask` follows the question's language, as every answer does.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.addressing import question_text
from adapters.slack.blocks import purge_prompt, text_message
from adapters.slack.questions import Questions
from adapters.slack.replies import ephemeral
from adapters.slack.services import SlackServices, chat_key, user_key
from adapters.slack.words import COMMAND, ask_usage, how_to_ask
from core.catalog.lookup import say
from core.chat.admin_commands import COMMANDS, description, is_admin

log = logging.getLogger("ricorda.slack")
Ack = Callable[..., Awaitable[Any]]


def slack_help(language: str, *, admin: bool = False, usage: str | None = None) -> str:
    """What to ask (`usage`: the loaded knowledge base's examples) and how to ask it in Slack;
    admins also see their subcommands."""
    lines = [usage or say("usage", language), "",
             how_to_ask(language)]
    if admin:
        lines += ["", *(f"`{COMMAND} {name}` {description(name, language)}" for name in COMMANDS)]
    return "\n".join(lines)


def parse(text: str | None) -> tuple[str, str]:
    """("purge", "all") from "purge all"; ("help", "") from nothing."""
    head, _, args = (text or "").strip().partition(" ")
    return (head.lower() or "help"), args.strip()


class Commands:
    def __init__(self, services: SlackServices, questions: Questions) -> None:
        self.s = services
        self.questions = questions

    async def on_command(self, ack: Ack, command: dict[str, Any], client: AsyncWebClient,
                         respond: AsyncRespond) -> None:
        """Help and malformed commands are answered in the ack; the rest after an empty ack."""
        name, args = parse(question_text(command.get("text"), bot_user_id=None))
        channel, user_id = command.get("channel_id") or "", command.get("user_id") or ""
        user = user_key(user_id)
        admin = is_admin(user, self.s.admins)
        if name == "ask" and args:
            await ack()
            await self.questions.ask_privately(channel, user_id, args, client=client,
                                               respond=respond)
            return
        language = await self.s.language(client, user_id)
        if name == "ask":
            await ack(text=ask_usage(language),
                      response_type="ephemeral")
            return
        if name not in COMMANDS:
            usage = await self.s.usage_text(language)
            await ack(text=slack_help(language, admin=admin, usage=usage),
                      response_type="ephemeral")
            return
        await ack()
        shown = await self.questions.turns.admin(name, args, user_id=user_id,
                                                 chat=chat_key(channel), language=language)
        if shown.buttons:
            (confirm, yes), (cancel, no) = shown.buttons
            message = purge_prompt(shown.text, (yes, no), confirm=confirm, cancel=cancel)
        else:
            message = text_message(shown.text, monospace=shown.monospace)
        await ephemeral(client, respond, channel, user_id, message)

    async def on_purge_choice(self, ack: Ack, body: dict[str, Any], client: AsyncWebClient,
                              respond: AsyncRespond) -> None:
        """Confirm / Cancel under a purge-all prompt: only the admin who asked, only soon."""
        await ack()
        action = (body.get("actions") or [{}])[0]
        tapper = (body.get("user") or {}).get("id") or ""
        channel = (body.get("channel") or {}).get("id") or ""
        language = await self.s.language(client, tapper)
        text = await self.questions.turns.purge_tap(action.get("value"), tapper_id=tapper,
                                                    chat=chat_key(channel), language=language)
        await ephemeral(client, respond, channel, tapper,
                        text_message(say("expired", language) if text is None else text))
