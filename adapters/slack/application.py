"""Build the slack-bolt `AsyncApp` for ricorda: Web API client (base URL, retry handlers),
middleware, and listeners. Nothing runs until a transport (HTTP or Socket Mode) serves it.

Every listener acknowledges first and works after: bolt acks events before a listener runs and
returns an action's or command's HTTP response as soon as `ack()` is called, while the listener
goes on as an asyncio task, so an ack never waits for the core, let alone an LLM. (bolt's lazy
listeners would do the same, but they deep-copy each request, which a client sharing one
aiohttp session for connection reuse cannot survive.)
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import aiohttp
from slack_bolt.async_app import AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
    AsyncServerErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient

from adapters.inbox import DeliveryInbox
from adapters.slack.blocks import CHOICE_ACTION, OPTION_ACTION, PURGE_CANCEL, PURGE_CONFIRM
from adapters.slack.feedback import Reactions
from adapters.slack.log_filter import bolt_logger
from adapters.slack.middleware import STORED, TAKEN_OVER, deduplicate, ignore_noise
from adapters.slack.questions import Questions
from adapters.slack.services import SlackServices
from adapters.slack.words import COMMAND

log = logging.getLogger("ricorda.slack")
SLACK_API = "https://slack.com/api/"


@dataclass(frozen=True)
class Retries:
    """How often a failed Web API call is retried (the handlers back off, and a ratelimited
    answer is retried after its Retry-After)."""

    ratelimited: int = 3
    server_errors: int = 2
    connection_errors: int = 2


def api_url(url: str | None) -> str:
    """The Web API base URL with the trailing slash slack_sdk appends method names to."""
    return (url or SLACK_API).rstrip("/") + "/"


def web_client(token: str, *, base_url: str | None = None, retries: Retries | None = None,
               session: aiohttp.ClientSession | None = None) -> AsyncWebClient:
    retries = retries or Retries()
    return AsyncWebClient(
        token=token, base_url=api_url(base_url), session=session,
        retry_handlers=[
            AsyncRateLimitErrorRetryHandler(max_retry_count=retries.ratelimited),
            AsyncServerErrorRetryHandler(max_retry_count=retries.server_errors),
            AsyncConnectionErrorRetryHandler(max_retry_count=retries.connection_errors),
        ])


def build_bolt_app(services: SlackServices, *, client: AsyncWebClient,
                   signing_secret: str | None, inbox: DeliveryInbox | None = None) -> AsyncApp:
    """The bolt app; `signing_secret` is required for HTTP mode, unused in Socket Mode.
    With an `inbox`, events that get an answer are stored before they are acked."""
    bolt = AsyncApp(client=client, signing_secret=signing_secret or "",
                    request_verification_enabled=bool(signing_secret),
                    logger=bolt_logger())
    add_listeners(bolt, services, inbox)
    return bolt


def add_listeners(bolt: AsyncApp, services: SlackServices,
                  inbox: DeliveryInbox | None = None) -> None:
    questions = Questions(services)
    reactions = Reactions(services, questions.dispatcher)
    bolt.use(ignore_noise())
    bolt.use(deduplicate(services, inbox))

    def finished(listener: Callable[..., Awaitable[None]]) -> Callable[..., Awaitable[None]]:
        """Run the listener, then remove its event from the inbox (bolt passes arguments by
        parameter name, so the wrapper names the ones every event listener here takes)."""

        async def run(event: dict[str, Any], client: AsyncWebClient,
                      context: AsyncBoltContext) -> None:
            try:
                await listener(event, client, context)
            finally:
                stored = context.get(STORED)
                if inbox is not None and stored:
                    await inbox.done(stored)

        return run

    bolt.event("app_mention")(finished(questions.on_mention))
    bolt.event("message")(finished(questions.on_message))
    bolt.event("reaction_added")(finished(lambda event, client, context: reactions.on_added(
        event, client, context.bot_user_id)))
    bolt.event("reaction_removed")(finished(lambda event, client, context: reactions.on_removed(
        event, client, context.bot_user_id)))
    bolt.action(re.compile(
        rf"^(?:{OPTION_ACTION}_\d+|{CHOICE_ACTION}_\d+|{PURGE_CONFIRM}|{PURGE_CANCEL})$"))(
        questions.on_tap)
    bolt.command(COMMAND)(questions.on_command)
    bolt.error(_on_error)


def redispatcher(bolt: AsyncApp) -> Callable[[str, str], Awaitable[None]]:
    """What the inbox keeper calls with an event taken over from a dead process: the stored
    body goes through bolt again (as a Socket Mode request: its signature was checked when it
    arrived, and its timestamp is old by now)."""

    async def redispatch(delivery_id: str, payload: str) -> None:
        request = AsyncBoltRequest(body=payload, headers={"content-type": "application/json"},
                                   context={TAKEN_OVER: delivery_id}, mode="socket_mode")
        await bolt.async_dispatch(request)

    return redispatch


async def _on_error(error: Exception, body: dict[str, Any]) -> None:
    """Log the cause, never the payload (it quotes users) nor any token."""
    log.error("Slack request %s failed: %s", body.get("event_id") or body.get("type"),
              error.__class__.__name__, exc_info=error)
