"""Questions in, answers out: mentions in channels, DMs, and taps on narrowing buttons.

Every listener here works after the ack went out (events are acked by bolt before the listener
runs; a button tap acks first): the answer may take an LLM's time, the ack never does.
Notes (help, "expired", "already answered", "failed") are in the user's Slack locale, else the
question's language, else English (SlackServices.language); answers follow their question.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, nullcontext
from typing import Any

from slack_bolt.context.async_context import AsyncBoltContext
from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from adapters.charts import chart_for
from adapters.slack.addressing import conversation_key, is_direct, question_text, reply_thread
from adapters.slack.blocks import (
    OPTION_ACTION,
    OPTIONS_BLOCK,
    SECTION_CHARS,
    SlackMessage,
    answer_messages,
    button_label,
    choice_prompt,
    purge_prompt,
    text_message,
    unescape,
)
from adapters.slack.replies import (
    acknowledge,
    ephemeral,
    post,
    post_ephemeral,
    post_messages,
    update,
    upload_chart,
    upload_file,
)
from adapters.slack.services import PLATFORM, SlackServices, chat_key
from adapters.slack.words import COMMAND, NEGATIVE, POSITIVE, ask_usage, how_to_ask
from core.catalog.lookup import say
from core.catalog.presentation import Presentation, table_grid
from core.chat.admin_commands import COMMANDS
from core.chat.dispatch import MESSAGE, TAP, Dispatcher, Inbound, PlatformWords
from core.chat.feedback_reasons import owns
from core.chat.option_tap import chosen_label
from core.chat.oversized import Attachment
from core.chat.subscribe_flow import COMMANDS as SUBSCRIPTION_COMMANDS
from core.contracts.types import Answer, Table

log = logging.getLogger("ricorda.slack")
Ack = Callable[..., Awaitable[Any]]


class SlackPort:
    """Where one Slack reply goes: a channel's thread, or a note only the asker sees (a slash
    command's replies; before its ack, in the ack itself)."""

    def __init__(self, services: SlackServices, client: AsyncWebClient, channel: str,
                 user: str, *, thread: str | None = None, respond: AsyncRespond | None = None,
                 private: bool = False, tapped: dict[str, Any] | None = None,
                 ack: Ack | None = None) -> None:
        self.s, self.client, self.channel, self.user = services, client, channel, user
        self.thread, self.respond, self.private, self.tapped = thread, respond, private, tapped
        self.ack, self.charts = ack, not private  # an ephemeral answer is one message
        self.placeholder: str | None = None  # ts of "working it out…", replaced by the answer

    def count(self, answer: Answer, shown: Presentation) -> int:
        return len(answer_messages(shown, signer=self.s.signer, turn_id=answer.turn_id))

    def too_big(self, table: Table) -> bool:
        return len(table_grid(table)) > SECTION_CHARS - 6

    async def send_chart(self, table: Table, png: bytes) -> tuple[str | None, bool]:
        return await upload_chart(self.client, self.channel, table, png,
                                  thread_ts=self.thread), False

    async def send_file(self, attachment: Attachment) -> str | None:
        return await upload_file(self.client, self.channel, attachment.data,
                                 filename=attachment.filename, title=attachment.title,
                                 thread_ts=self.thread)

    async def send_messages(self, answer: Answer, shown: Presentation) -> list[str]:
        """The answer's messages in the thread (the first replaces the placeholder); an
        ephemeral answer is its first message alone, which nobody can react to."""
        messages = answer_messages(shown, signer=self.s.signer, turn_id=answer.turn_id)
        if self.private:
            await self._ephemeral(messages[0] if messages else text_message(answer.text))
            return []
        posted: list[str] = []
        placeholder = self.placeholder  # a failed update: posted as usual
        if placeholder is not None and messages and await update(
            self.client, self.channel, placeholder, messages[0]
        ):
            posted.append(placeholder)
            messages = messages[1:]
        return posted + await post_messages(self.client, self.channel, messages,
                                            thread_ts=self.thread)

    async def thinking(self) -> None:
        """A model is planning the answer: a placeholder in the thread, which the answer
        replaces (an ephemeral answer cannot replace anything: none then)."""
        if self.private or self.placeholder is not None:
            return
        language = await self.language()
        self.placeholder = await post(self.client, self.channel,
                                      text_message(say("thinking", language)),
                                      thread_ts=self.thread)

    async def note(self, text: str, *, alert: bool = False) -> None:
        if self.private or self.tapped is not None or alert:
            await self._ephemeral(text_message(text))
        else:
            await post(self.client, self.channel, text_message(text), thread_ts=self.thread)

    async def reply(self, text: str, *, monospace: bool = False) -> None:
        await self._say(text_message(text, monospace=monospace))

    async def prompt(self, text: str, buttons: Sequence[tuple[str, str]]) -> None:
        if owns(buttons[0][1]):  # the reasons after a ✗
            await self._say(choice_prompt(text, buttons))
            return
        (confirm, yes), (cancel, no) = buttons
        await self._say(purge_prompt(text, (yes, no), confirm=confirm, cancel=cancel))

    async def settle(self, text: str) -> None:
        await self._ephemeral(text_message(text))

    async def acknowledge(self, message: str | int, *, shown: bool,
                          verdict: str | None) -> None:
        await acknowledge(self.client, self.channel, str(message), shown=shown)

    async def language(self, question: str | None = None) -> str:
        return await self.s.language(self.client, self.user, question=question)

    def working(self) -> AbstractAsyncContextManager[object]:
        return nullcontext()

    async def chosen(self, index: int) -> None:
        if self.tapped is not None and not self.private:
            await _mark_chosen(self.client, self.channel, self.tapped, index)

    async def _say(self, message: SlackMessage) -> None:
        """Help in the ack when it is still due; else ephemeral or in the thread."""
        if self.ack is not None:
            ack, self.ack = self.ack, None
            await ack(text=message.text, blocks=message.blocks, response_type="ephemeral")
        elif self.private:
            await self._ephemeral(message)
        else:
            await post(self.client, self.channel, message, thread_ts=self.thread)

    async def _ephemeral(self, message: SlackMessage) -> None:
        if self.respond is not None:
            await ephemeral(self.client, self.respond, self.channel, self.user, message)
        else:
            await post_ephemeral(self.client, self.channel, self.user, message,
                                 thread_ts=self.thread)


class Questions:
    """Mentions, DMs, slash commands, button taps and reactions -> core.chat.dispatch."""

    def __init__(self, services: SlackServices) -> None:
        self.s = services
        self.dispatcher = Dispatcher(services, PLATFORM, PlatformWords(
            how_to_ask, ask_usage, f"{COMMAND} {{name}}", POSITIVE, NEGATIVE),
            draw=lambda answer: chart_for(answer, services.chart))

    async def on_mention(self, event: dict[str, Any], client: AsyncWebClient,
                         context: AsyncBoltContext) -> None:
        await self._answer_event(event, client, context)

    async def on_message(self, event: dict[str, Any], client: AsyncWebClient,
                         context: AsyncBoltContext) -> None:
        """Messages in DMs are questions; in channels only mentions are (`on_mention`)."""
        if is_direct(event):
            await self._answer_event(event, client, context)

    async def on_tap(self, ack: Ack, body: dict[str, Any], client: AsyncWebClient,
                     respond: AsyncRespond) -> None:
        """A narrowing button (re-asked in the thread) or a purge prompt's; a forged or stale
        value names nothing: the tapper gets an ephemeral note, nothing else."""
        await ack()
        channel = (body.get("channel") or {}).get("id") or ""
        user = (body.get("user") or {}).get("id") or ""
        container = body.get("container") or {}
        message = body.get("message") or {}
        thread = message.get("thread_ts") or message.get("ts") or container.get("message_ts")
        if not channel or not user:
            log.info("button without a channel or user")
            return
        private = bool(container.get("is_ephemeral"))  # under a /ricorda reply
        port = SlackPort(self.s, client, channel, user, thread=thread,
                         respond=respond if private else None, private=private, tapped=message)
        token = ((body.get("actions") or [{}])[0]).get("value")
        await self.dispatcher.handle(Inbound(TAP, chat_key(channel), user, token=token), port)

    async def on_command(self, ack: Ack, command: dict[str, Any], client: AsyncWebClient,
                         respond: AsyncRespond) -> None:
        """`/ricorda ask|help|fastpaths|purge|...`: every reply ephemeral; help and usage in
        the ack itself, the rest after an empty ack (an answer may take an LLM's time)."""
        channel, user = command.get("channel_id") or "", command.get("user_id") or ""
        event = Inbound.command_in(chat_key(channel), user, question_text(  # each asker's own
            command.get("text"), bot_user_id=None), conversation=f"slack:{channel}:user:{user}")
        # the database is asked first: acked empty, answered after (subscriptions too)
        name = event.command
        slow = name in COMMANDS or name in SUBSCRIPTION_COMMANDS or (name == "ask" and event.text)
        if slow:
            await ack()
        port = SlackPort(self.s, client, channel, user, respond=respond, private=True,
                         ack=None if slow else ack)
        await self.dispatcher.handle(event, port)

    async def _answer_event(self, event: dict[str, Any], client: AsyncWebClient,
                            context: AsyncBoltContext) -> None:
        channel, user = event.get("channel") or "", event.get("user") or ""
        if not channel or not user:
            return
        thread = reply_thread(event)
        await self.dispatcher.handle(Inbound(
            MESSAGE, chat_key(channel), user,
            text=question_text(event.get("text"), bot_user_id=context.bot_user_id),
            conversation=conversation_key(channel, thread)),
            SlackPort(self.s, client, channel, user, thread=thread))


async def _mark_chosen(
    client: AsyncWebClient, channel: str, message: dict[str, Any], index: int
) -> None:
    """The message's buttons show which option was answered (the others stay available)."""
    blocks = message.get("blocks")
    ts = message.get("ts")
    if not blocks or not ts:
        return
    marked = []
    for block in blocks:
        if block.get("type") == "actions" and str(block.get("block_id", "")).startswith(
                OPTIONS_BLOCK):
            elements = [dict(e) for e in block.get("elements", [])]
            for element in elements:
                if element.get("action_id") == f"{OPTION_ACTION}_{index}":
                    text = dict(element.get("text") or {})
                    shown = unescape(str(text.get("text", "")))  # as posted: escaped
                    text["text"] = button_label(chosen_label(shown))
                    element["text"] = text
            block = {**block, "elements": elements}
        marked.append(block)
    try:
        await client.chat_update(channel=channel, ts=ts, blocks=marked,
                                 text=message.get("text") or "")
    except SlackApiError as exc:  # cosmetic: the answer matters, not the mark
        log.info("cannot mark the chosen option: %s", exc.response.get("error"))
