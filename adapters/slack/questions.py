"""Questions in, answers out: mentions in channels, DMs, and taps on narrowing buttons.

Every listener here works after the ack went out (events are acked by bolt before the listener
runs; a button tap acks first): the answer may take an LLM's time, the ack never does.
Notes (help, "expired", "already answered", "failed") are in the user's Slack locale, else the
question's language, else English (SlackServices.language); answers follow their question.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
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
    text_message,
    unescape,
)
from adapters.slack.replies import (
    ephemeral,
    post,
    post_ephemeral,
    post_messages,
    update,
    upload_chart,
    upload_file,
)
from adapters.slack.services import PLATFORM, SlackServices, chat_key, user_key
from adapters.slack.words import how_to_ask
from core.catalog.lookup import say
from core.chat.chat_replies import help_text
from core.chat.chat_turn import ChatTurns
from core.chat.option_tap import chosen_label
from core.chat.oversized import Attachment, fit
from core.chat.presentation import Presentation, table_grid
from core.contracts.types import Answer, Request

log = logging.getLogger("ricorda.slack")
Ack = Callable[..., Awaitable[Any]]


class SlackPort:
    """Where one Slack reply goes: a channel's thread, or a note only the asker sees."""

    def __init__(self, services: SlackServices, client: AsyncWebClient, channel: str,
                 user: str, *, thread: str | None = None, respond: AsyncRespond | None = None,
                 private: bool = False, tapped: dict[str, Any] | None = None) -> None:
        self.s, self.client, self.channel, self.user = services, client, channel, user
        self.thread, self.respond, self.private, self.tapped = thread, respond, private, tapped
        self.placeholder: str | None = None  # ts of "working it out…", replaced by the answer

    async def deliver(self, answer: Answer, shown: Presentation) -> list[str]:
        """The answer's chart first (uploaded into the thread, when it has one), then its
        messages; an ephemeral answer is one message, without a chart."""
        original, files = shown, []
        if not self.private:  # a chat gets at most max_messages (core.chat.oversized)
            shown, files = self._fitted(original, answer, self.s.max_messages)
            if files:  # each file is a message too
                shown, files = self._fitted(original, answer, self.s.max_messages - len(files))
        messages = answer_messages(shown, signer=self.s.signer, turn_id=answer.turn_id)
        if self.private:  # the whole answer in one ephemeral message (its first part if long)
            message = messages[0] if messages else text_message(answer.text)
            await self._ephemeral(message)
            return []  # nobody can react to an ephemeral message
        posted: list[str] = []
        chart = await chart_for(answer, self.s.chart)
        if chart is not None:
            ts = await upload_chart(self.client, self.channel, *chart, thread_ts=self.thread)
            if ts is not None:
                posted.append(ts)
        # the answer takes the placeholder's place (a failed update: posted as usual)
        placeholder = self.placeholder
        if placeholder is not None and messages and await update(
            self.client, self.channel, placeholder, messages[0]
        ):
            posted.append(placeholder)
            messages = messages[1:]
        posted += await post_messages(self.client, self.channel, messages,
                                      thread_ts=self.thread)
        for attachment in files:  # the whole table, after its summary
            ts = await upload_file(self.client, self.channel, attachment.data,
                                   filename=attachment.filename, title=attachment.title,
                                   thread_ts=self.thread)
            if ts is not None:
                posted.append(ts)
        return posted

    def _fitted(self, shown: Presentation, answer: Answer, limit: int
                ) -> tuple[Presentation, list[Attachment]]:
        def count(p: Presentation) -> int:
            return len(answer_messages(p, signer=self.s.signer, turn_id=answer.turn_id))

        return fit(shown, language=answer.language, limit=max(1, limit), count=count,
                   too_big=lambda t: len(table_grid(t)) > SECTION_CHARS - 6)

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

    async def language(self, question: str | None = None) -> str:
        return await self.s.language(self.client, self.user, question=question)

    def working(self) -> AbstractAsyncContextManager[object]:
        return nullcontext()

    async def chosen(self, index: int) -> None:
        if self.tapped is not None and not self.private:
            await _mark_chosen(self.client, self.channel, self.tapped, index)

    async def _ephemeral(self, message: SlackMessage) -> None:
        if self.respond is not None:
            await ephemeral(self.client, self.respond, self.channel, self.user, message)
        else:
            await post_ephemeral(self.client, self.channel, self.user, message,
                                 thread_ts=self.thread)


class Questions:
    def __init__(self, services: SlackServices) -> None:
        self.s = services
        self.turns = ChatTurns(services, PLATFORM)

    async def on_mention(self, event: dict[str, Any], client: AsyncWebClient,
                         context: AsyncBoltContext) -> None:
        await self._answer_event(event, client, context)

    async def on_message(self, event: dict[str, Any], client: AsyncWebClient,
                         context: AsyncBoltContext) -> None:
        """Messages in DMs are questions; in channels only mentions are (`on_mention`)."""
        if is_direct(event):
            await self._answer_event(event, client, context)

    async def on_option(self, ack: Ack, body: dict[str, Any], client: AsyncWebClient,
                        respond: AsyncRespond) -> None:
        """A narrowing button: re-ask the stored question with that slot fixed, in the thread.
        A forged or stale value names no turn: the tapper gets an ephemeral note, nothing else."""
        await ack()
        channel = (body.get("channel") or {}).get("id") or ""
        user = (body.get("user") or {}).get("id") or ""
        container = body.get("container") or {}
        actions = body.get("actions") or [{}]
        message = body.get("message") or {}
        thread = message.get("thread_ts") or message.get("ts") or container.get("message_ts")
        if not channel or not user:
            log.info("option button without a channel or user")
            return
        private = bool(container.get("is_ephemeral"))  # a button under a /ricorda ask answer
        port = SlackPort(self.s, client, channel, user, thread=thread,
                         respond=respond if private else None, private=private, tapped=message)
        await self.turns.tap(actions[0].get("value"), chat=chat_key(channel),
                             user=user_key(user), port=port)

    async def ask_privately(self, channel: str, user: str, question: str, *,
                            client: AsyncWebClient, respond: AsyncRespond) -> None:
        """`/ricorda ask ...`: the answer only the asker sees."""
        request = Request(text=question, chat=chat_key(channel), user=user_key(user),
                          reference_date=self.s.today(),
                          conversation=f"slack:{channel}:user:{user}")  # each asker's own
        port = SlackPort(self.s, client, channel, user, respond=respond, private=True)
        await self.turns.answer(request, port)

    async def _answer_event(self, event: dict[str, Any], client: AsyncWebClient,
                            context: AsyncBoltContext) -> None:
        channel, user = event.get("channel") or "", event.get("user") or ""
        if not channel or not user:
            return
        question = question_text(event.get("text"), bot_user_id=context.bot_user_id)
        thread = reply_thread(event)
        if not question:
            language = await self.s.language(client, user)
            usage = await self.s.usage_text(language)
            shown = help_text(language, how_to_ask(language), usage)
            await post(client, channel, text_message(shown), thread_ts=thread)
            return
        request = Request(text=question, chat=chat_key(channel), user=user_key(user),
                          reference_date=self.s.today(),
                          conversation=conversation_key(channel, thread))
        await self.turns.answer(request, SlackPort(self.s, client, channel, user, thread=thread))


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
