"""Cross-cutting filters that run before any listener: noise and redeliveries are acked and
dropped here, so listeners only ever see a fresh event a person caused.

Slack redelivers an event (with `X-Slack-Retry-Num`) when the ack was late or failed; every
replica behind the load balancer may see a copy. The event id is claimed in the shared delivery
log, so exactly one replica, once, handles it.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse

from adapters.slack.addressing import is_noise
from adapters.slack.services import SlackServices

log = logging.getLogger("ricorda.slack")
Next = Callable[[], Awaitable[None]]


def ignore_noise() -> Callable[..., Awaitable[BoltResponse | None]]:
    async def ignore_noise(body: dict[str, Any], next: Next) -> BoltResponse | None:
        event = body.get("event") if body.get("type") == "event_callback" else None
        if isinstance(event, dict) and is_noise(event):
            return BoltResponse(status=200, body="")
        await next()
        return None

    return ignore_noise


def deduplicate(services: SlackServices) -> Callable[..., Awaitable[BoltResponse | None]]:
    async def deduplicate(req: AsyncBoltRequest, body: dict[str, Any],
                          next: Next) -> BoltResponse | None:
        event_id = body.get("event_id") if body.get("type") == "event_callback" else None
        if event_id and not await services.first_time(str(event_id)):
            retry = (req.headers.get("x-slack-retry-num") or ["0"])[0]
            log.info("event %s delivered again (retry %s), ignored", event_id, retry)
            return BoltResponse(status=200, body="")
        await next()
        return None

    return deduplicate
