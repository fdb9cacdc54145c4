"""What keeps the bot up: duplicate updates dropped, Bot API calls retried, and one failing
update logged and apologised for instead of stopping anything."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from telegram import Update
from telegram.error import BadRequest, NetworkError, TimedOut
from telegram.ext import AIORateLimiter, ApplicationHandlerStop, ContextTypes

from adapters.telegram.services import PLATFORM, TelegramServices
from core.catalog.lookup import say
from core.chat.chat_replies import language_for

log = logging.getLogger("ricorda.telegram")


class RetryingRateLimiter(AIORateLimiter):
    """Telegram's flood limits, retry after `RetryAfter` (AIORateLimiter), and retry after a
    network error that happened before the request reached Telegram.

    A timeout is not retried: the message may already be delivered, and a duplicate answer is
    worse than a missing one the user can ask again. Nor is a 400 (PTB's BadRequest is a
    NetworkError): Telegram answered, and the same request would be refused again.
    """

    def __init__(self, *, network_retries: int = 2, backoff: float = 0.5, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.network_retries = network_retries
        self.backoff = backoff

    async def process_request(  # type: ignore[override]
        self,
        callback: Callable[..., Coroutine[Any, Any, Any]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> Any:
        for attempt in range(self.network_retries + 1):
            try:
                return await super().process_request(
                    callback, args, kwargs, endpoint, data, rate_limit_args)
            except (TimedOut, BadRequest):
                raise
            except NetworkError as exc:
                if attempt == self.network_retries:
                    raise
                log.warning("Bot API %s failed (%s), retrying", endpoint, exc.__class__.__name__)
                await asyncio.sleep(self.backoff * 2**attempt)
        raise AssertionError("unreachable")


class Deduplicate:
    """Group -1 handler: an update id seen before (a redelivery) stops here."""

    def __init__(self, services: TelegramServices) -> None:
        self.s = services

    async def __call__(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        if self.s.deliveries is None:
            return
        if not await self.s.run(self.s.deliveries.first_time, PLATFORM, update.update_id):
            log.info("update %s delivered again, ignored", update.update_id)
            raise ApplicationHandlerStop


async def on_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Log the cause (never the token: it is not in any exception text PTB raises for a
    handler), and tell the user in a sentence when the update was theirs to see."""
    error = context.error
    update_id = update.update_id if isinstance(update, Update) else None
    log.error("update %s failed: %s", update_id, error.__class__.__name__, exc_info=error)
    if not isinstance(update, Update):
        return
    user = update.effective_user
    language = language_for(user.language_code if user else None)
    try:
        if update.callback_query is not None:
            await update.callback_query.answer(say("failed", language), show_alert=True)
        elif update.effective_message is not None and update.message_reaction is None:
            await update.effective_message.reply_text(say("failed", language))
    except Exception as exc:  # the apology itself failed: log and move on
        log.warning("could not report the failure to the user: %s", exc.__class__.__name__)
