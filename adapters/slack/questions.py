"""Questions in, answers out: mentions in channels, DMs, and taps on narrowing buttons.

Every listener here works after the ack went out (events are acked by bolt before the listener
runs; a button tap acks first): the answer may take an LLM's time, the ack never does.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.context.async_context import AsyncBoltContext
from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.addressing import conversation_key, is_direct, question_text, reply_thread
from adapters.slack.blocks import (
    BUTTON_CHARS,
    OPTION_ACTION,
    OPTIONS_BLOCK,
    SlackMessage,
    answer_messages,
    text_message,
)
from adapters.slack.replies import ephemeral, post, post_answer, post_ephemeral
from adapters.slack.services import SlackServices, chat_key, user_key
from core.chat_replies import help_text, reply
from core.option_tap import chosen_label, tap_key, tap_request
from core.presentation import present
from core.types import Answer, Request

log = logging.getLogger("ricorda.slack")
Ack = Callable[..., Awaitable[Any]]
LANGUAGE = "en"  # Slack events carry no locale; asking users.info per event costs a call


class Questions:
    def __init__(self, services: SlackServices) -> None:
        self.s = services

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
        decoded = self.s.signer.decode_option(actions[0].get("value"))
        request = None
        if decoded is not None and channel and user:
            turn = await self.s.run(self.s.turns.get_turn, decoded[0])
            request = tap_request(turn, decoded[1], chat=chat_key(channel), user=user_key(user),
                                  today=self.s.today())
        message = body.get("message") or {}
        thread = message.get("thread_ts") or message.get("ts") or container.get("message_ts")
        if request is None:
            log.info("expired or forged option button from %s", user_key(user))
            if channel and user:
                await post_ephemeral(client, channel, user,
                                     text_message(reply("expired", LANGUAGE)), thread_ts=thread)
            return
        assert decoded is not None
        if not await self.s.use_once(tap_key(*decoded)):  # each option answered once
            await post_ephemeral(client, channel, user,
                                 text_message(reply("already_answered", LANGUAGE)),
                                 thread_ts=thread)
            return
        if not container.get("is_ephemeral"):
            await _mark_chosen(client, channel, message, decoded[1])
        answer = await self._ask(request)
        if answer is None:
            await post(client, channel, text_message(reply("failed", LANGUAGE)), thread_ts=thread)
        elif container.get("is_ephemeral"):  # a button under a /ricorda ask answer
            await ephemeral(client, respond, channel, user, self._ephemeral_answer(answer))
        else:
            await post_answer(self.s, client, channel, answer, thread_ts=thread)

    async def ephemeral_answer(self, channel: str, user: str, question: str) -> SlackMessage:
        """`/ricorda ask ...`: the answer only the asker sees (the caller posts it)."""
        request = Request(text=question, chat=chat_key(channel), user=user_key(user),
                          reference_date=self.s.today(),
                          conversation=f"slack:{channel}:user:{user}")  # each asker's own
        answer = await self._ask(request)
        return text_message(reply("failed", LANGUAGE)) if answer is None else (
            self._ephemeral_answer(answer))

    async def _answer_event(self, event: dict[str, Any], client: AsyncWebClient,
                            context: AsyncBoltContext) -> None:
        channel, user = event.get("channel") or "", event.get("user") or ""
        if not channel or not user:
            return
        question = question_text(event.get("text"), bot_user_id=context.bot_user_id)
        thread = reply_thread(event)
        if not question:
            await post(client, channel, text_message(help_text(LANGUAGE)), thread_ts=thread)
            return
        request = Request(text=question, chat=chat_key(channel), user=user_key(user),
                          reference_date=self.s.today(),
                          conversation=conversation_key(channel, thread))
        answer = await self._ask(request)
        if answer is None:
            await post(client, channel, text_message(reply("failed", LANGUAGE)), thread_ts=thread)
            return
        await post_answer(self.s, client, channel, answer, thread_ts=thread)

    async def _ask(self, request: Request) -> Answer | None:
        """The core's answer, or None after logging why it failed (the user gets a sentence)."""
        try:
            return await self.s.run(self.s.ask, request)
        except Exception as exc:  # one failing question must not take the listener down
            log.error("answering failed: %s", exc.__class__.__name__, exc_info=exc)
            return None

    def _ephemeral_answer(self, answer: Answer) -> SlackMessage:
        """The whole answer in one ephemeral message (its first part if it is very long)."""
        shown = present(answer, show_footer=self.s.show_footer)
        messages = answer_messages(shown, signer=self.s.signer, turn_id=answer.turn_id)
        return messages[0] if messages else text_message(answer.text)


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
                    text["text"] = chosen_label(str(text.get("text", "")))[:BUTTON_CHARS]
                    element["text"] = text
            block = {**block, "elements": elements}
        marked.append(block)
    try:
        await client.chat_update(channel=channel, ts=ts, blocks=marked,
                                 text=message.get("text") or "")
    except SlackApiError as exc:  # cosmetic: the answer matters, not the mark
        log.info("cannot mark the chosen option: %s", exc.response.get("error"))
