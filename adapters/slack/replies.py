"""Posting to Slack: answers in threads (mapped to their turn for reactions) and ephemeral
notes. Web API failures that survive the client's retry handlers are logged, never raised
into bolt: the event is already acknowledged and there is nobody left to tell."""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.blocks import SlackMessage
from core.contracts.types import Table

log = logging.getLogger("ricorda.slack")
REACTION_ACK = "memo"  # the bot's reaction on an answer that carries verdicts
_SETTLED = {"reactions.add": "already_reacted", "reactions.remove": "no_reaction"}


async def post_messages(client: AsyncWebClient, channel: str, messages: list[SlackMessage], *,
                        thread_ts: str | None) -> list[str]:
    """Post an answer's messages in order (a failed one ends the answer); their timestamps."""
    posted: list[str] = []
    for message in messages:
        ts = await post(client, channel, message, thread_ts=thread_ts)
        if ts is None:
            break
        posted.append(ts)
    return posted


async def upload_file(client: AsyncWebClient, channel: str, data: bytes, *, filename: str,
                      title: str, thread_ts: str | None) -> str | None:
    """Upload a file (a table as CSV) into the thread, as a chart is; its share's ts or None.
    A refused upload is logged: the summary message already went out."""
    try:
        response = await client.files_upload_v2(
            channel=channel, thread_ts=thread_ts, file=data, filename=filename,
            title=title or filename)
    except SlackApiError as exc:
        log.warning("file upload to %s refused: %s", channel, _error(exc))
        return None
    except Exception as exc:  # the upload POST failing (network, 5xx) raises other errors
        log.warning("file upload to %s failed: %s", channel, exc.__class__.__name__)
        return None
    return _shared_ts(response.get("file") or {}, channel)


async def upload_chart(client: AsyncWebClient, channel: str, table: Table, png: bytes, *,
                       thread_ts: str | None) -> str | None:
    """Upload the chart into the thread (files.getUploadURLExternal, the upload itself,
    files.completeUploadExternal). Returns the file message's ts when Slack says it already
    (so a reaction on the chart counts too), else None. A refused upload is logged: the
    answer still goes out as text."""
    try:
        response = await client.files_upload_v2(
            channel=channel, thread_ts=thread_ts, file=png, filename="chart.png",
            title=table.title or "chart", alt_txt=table.title or None)
    except SlackApiError as exc:
        log.warning("chart upload to %s refused: %s", channel, _error(exc))
        return None
    except Exception as exc:  # the upload POST failing (network, 5xx) raises other errors
        log.warning("chart upload to %s failed: %s", channel, exc.__class__.__name__)
        return None
    return _shared_ts(response.get("file") or {}, channel)


def _shared_ts(file: dict[str, Any], channel: str) -> str | None:
    """The ts of the message that shows the file in `channel`, when the upload's answer has
    it (Slack fills `shares` once the file is shared, not always at once)."""
    shares = file.get("shares") or {}
    for kind in ("public", "private"):
        places = (shares.get(kind) or {}).get(channel) or []
        if places and places[0].get("ts"):
            return str(places[0]["ts"])
    return None


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


async def update(client: AsyncWebClient, channel: str, ts: str, message: SlackMessage) -> bool:
    """Replace a message the bot posted (a placeholder becomes the answer)."""
    try:
        await client.chat_update(channel=channel, ts=ts, text=message.text,
                                 blocks=message.blocks)
    except SlackApiError as exc:
        log.warning("chat.update in %s failed: %s", channel, _error(exc))
        return False
    return True


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


def _error(exc: SlackApiError) -> str:
    """The API's error code ("ratelimited", "channel_not_found"); never the request."""
    response = getattr(exc, "response", None)
    code = response.get("error") if response is not None else None
    return str(code or exc.__class__.__name__)


async def acknowledge(client: AsyncWebClient, channel: str, ts: str, *, shown: bool) -> None:
    """Add (or remove) the bot's reaction on an answer; a refusal is logged, never raised."""
    method = "reactions.add" if shown else "reactions.remove"
    call = client.reactions_add if shown else client.reactions_remove
    try:
        await call(channel=channel, timestamp=ts, name=REACTION_ACK)
    except SlackApiError as exc:  # the verdict is recorded already; the mark is a courtesy
        code = exc.response.get("error") if exc.response is not None else None
        if code != _SETTLED[method]:  # already there / already gone: nothing to say
            log.info("%s on %s in %s failed: %s", method, ts, channel,
                     code or exc.__class__.__name__)
    except Exception as exc:  # connection errors left after the client's retries
        log.info("%s on %s in %s failed: %s", method, ts, channel,
                 exc.__class__.__name__)
