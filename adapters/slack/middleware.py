"""Cross-cutting filters that run before any listener: noise and redeliveries are acked and
dropped here, so listeners only ever see a fresh event a person caused.

Slack redelivers an event (with `X-Slack-Retry-Num`) when the ack was late or failed; every
replica behind the load balancer may see a copy. The event id is claimed in the shared delivery
log, so exactly one replica, once, handles it.

An event that gets an answer (a mention, a DM, a reaction) is also stored in the delivery inbox
in the same commit, before bolt acks it: a process that dies before answering leaves it there,
and another process (or this one, restarted) takes it over once its lease runs out
(adapters/inbox.py). Its listener removes it when it finished (`finished` in application.py).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.context.async_context import AsyncBoltContext
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse

from adapters.inbox import DeliveryInbox
from adapters.slack.addressing import is_direct, is_noise
from adapters.slack.services import SlackServices

log = logging.getLogger("ricorda.slack")
Next = Callable[[], Awaitable[None]]
STORED = "ricorda_inbox_id"  # context key: this event is in the inbox under that id
TAKEN_OVER = "ricorda_taken_over"  # context key of a redispatch from the inbox


def ignore_noise() -> Callable[..., Awaitable[BoltResponse | None]]:
    async def ignore_noise(body: dict[str, Any], next: Next) -> BoltResponse | None:
        event = body.get("event") if body.get("type") == "event_callback" else None
        if isinstance(event, dict) and is_noise(event):
            return BoltResponse(status=200, body="")
        await next()
        return None

    return ignore_noise


def deduplicate(services: SlackServices, inbox: DeliveryInbox | None = None
                ) -> Callable[..., Awaitable[BoltResponse | None]]:
    async def deduplicate(req: AsyncBoltRequest, body: dict[str, Any], context: AsyncBoltContext,
                          next: Next) -> BoltResponse | None:
        if context.get(TAKEN_OVER):  # from the inbox: claimed and stored long ago
            context[STORED] = context[TAKEN_OVER]
            await next()
            return None
        event_id = body.get("event_id") if body.get("type") == "event_callback" else None
        event = body.get("event")
        if event_id and inbox is not None and isinstance(event, dict) and answered(event):
            fresh = await inbox.receive(str(event_id), json.dumps(body))
            context[STORED] = str(event_id)
        elif event_id:
            fresh = await services.first_time(str(event_id))
        else:
            fresh = True
        if not fresh:
            retry = (req.headers.get("x-slack-retry-num") or ["0"])[0]
            log.info("event %s delivered again (retry %s), ignored", event_id, retry)
            return BoltResponse(status=200, body="")
        await next()
        return None

    return deduplicate


def answered(event: dict[str, Any]) -> bool:
    """Events a listener acts on: stored in the inbox (others are only claimed)."""
    kind = event.get("type")
    return kind in ("app_mention", "reaction_added", "reaction_removed") or (
        kind == "message" and is_direct(event))
