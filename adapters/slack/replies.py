"""Posting to Slack: answers in threads (mapped to their turn for reactions) and ephemeral
notes. Web API failures that survive the client's retry handlers are logged, never raised
into bolt: the event is already acknowledged and there is nobody left to tell."""

from __future__ import annotations

import logging

from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.blocks import SlackMessage, answer_messages
from adapters.slack.services import PLATFORM, SlackServices, chat_key
from core.errors import StorageError
from core.presentation import present
from core.types import Answer

log = logging.getLogger("ricorda.slack")


async def post_answer(services: SlackServices, client: AsyncWebClient, channel: str,
                      answer: Answer, *, thread_ts: str | None) -> list[str]:
    """Post the answer and remember which messages show which turn, so reactions on them
    count after a restart too. Returns the posted message timestamps."""
    shown = present(answer, show_footer=services.show_footer)
    messages = answer_messages(shown, signer=services.signer, turn_id=answer.turn_id)
    posted: list[str] = []
    for message in messages:
        ts = await post(client, channel, message, thread_ts=thread_ts)
        if ts is None:
            break
        posted.append(ts)
    try:
        await services.run(_map, services, channel, posted, answer.turn_id)
    except StorageError as exc:  # the answer is out; only its feedback link is lost
        log.warning("cannot map messages to turn %s: %s", answer.turn_id, exc)
    return posted


async def post(client: AsyncWebClient, channel: str, message: SlackMessage, *,
               thread_ts: str | None = None) -> str | None:
    try:
        response = await client.chat_postMessage(
            channel=channel, thread_ts=thread_ts, text=message.text, blocks=message.blocks,
            unfurl_links=False, unfurl_media=False)
    except SlackApiError as exc:
        log.error("chat.postMessage in %s failed: %s", channel, _error(exc))
        return None
    return str(response.get("ts") or "") or None


async def post_ephemeral(client: AsyncWebClient, channel: str, user: str,
                         message: SlackMessage, *, thread_ts: str | None = None) -> bool:
    """A note only `user` sees (slash command replies, expired buttons)."""
    try:
        await client.chat_postEphemeral(channel=channel, user=user, text=message.text,
                                        blocks=message.blocks, thread_ts=thread_ts)
    except SlackApiError as exc:
        log.warning("chat.postEphemeral in %s failed: %s", channel, _error(exc))
        return False
    return True


async def ephemeral(client: AsyncWebClient, respond: AsyncRespond, channel: str, user: str,
                    message: SlackMessage) -> None:
    """A reply to a slash command or a button only `user` sees: chat.postEphemeral, else the
    request's response URL, which reaches the user where the bot is no member (a DM between
    two people, a private channel it was not invited to)."""
    if channel and await post_ephemeral(client, channel, user, message):
        return
    try:
        await respond(text=message.text, blocks=message.blocks, response_type="ephemeral",
                      replace_original=False)
    except Exception as exc:  # a lost note is logged, never raised into bolt
        log.warning("could not reply through the response URL: %s", exc.__class__.__name__)


def _map(services: SlackServices, channel: str, posted: list[str], turn_id: str) -> None:
    for ts in posted:
        services.turns.map_message(PLATFORM, chat_key(channel), ts, turn_id)


def _error(exc: SlackApiError) -> str:
    """The API's error code ("ratelimited", "channel_not_found"); never the request."""
    response = getattr(exc, "response", None)
    code = response.get("error") if response is not None else None
    return str(code or exc.__class__.__name__)
