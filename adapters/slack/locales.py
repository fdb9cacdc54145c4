"""Which language a Slack user reads: their Slack locale, asked once per user.

Slack events, commands and button taps carry no locale (Telegram's updates carry the user's
`language_code`), so the locale comes from `users.info` with `include_locale=true`. Asking on
every message would cost a Web API call each (Tier 4 rate limit); the answer is cached per
user, bounded in size and for `ttl` seconds, and concurrent first asks for one user share one
call. A failed call (no `users:read` scope, a network error) is remembered for a short while
too, so an outage does not turn into one call per message; the caller falls back (to the
question's language, else English).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Callable

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from core.chat.chat_replies import supported_language

log = logging.getLogger("ricorda.slack")


class UserLocales:
    """user id -> one of the bot's languages, or None when Slack did not say one it speaks."""

    def __init__(self, *, max_users: int = 4096, ttl: float = 24 * 3600.0,
                 failure_ttl: float = 300.0, timeout: float = 1.5,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """`timeout` bounds how long a reply waits for a first lookup (a slash command's ack
        must go out within 3 s); the lookup itself goes on and fills the cache."""
        self.max_users = max_users
        self.ttl = ttl
        self.failure_ttl = failure_ttl
        self.timeout = timeout
        self.clock = clock
        self._cache: OrderedDict[str, tuple[str | None, float]] = OrderedDict()
        self._pending: dict[str, asyncio.Future[str | None]] = {}

    async def language(self, client: AsyncWebClient, user: str) -> str | None:
        if not user:
            return None
        cached = self._cache.get(user)
        if cached is not None and cached[1] > self.clock():
            self._cache.move_to_end(user)
            return cached[0]
        pending = self._pending.get(user)
        if pending is None:
            pending = asyncio.ensure_future(self._fetch(client, user))
            self._pending[user] = pending
            pending.add_done_callback(lambda _: self._pending.pop(user, None))
        try:
            return await asyncio.wait_for(asyncio.shield(pending), self.timeout)
        except TimeoutError:
            log.info("users.info for %s is slow: answering in the fallback language", user)
            return None

    async def _fetch(self, client: AsyncWebClient, user: str) -> str | None:
        try:
            response = await client.users_info(user=user, include_locale=True)
        except SlackApiError as exc:
            code = exc.response.get("error") if exc.response is not None else None
            log.warning("users.info failed (%s): %s's language falls back",
                        code or "error", user)
            self._remember(user, None, self.failure_ttl)
            return None
        except Exception as exc:  # connection errors left after the client's retries
            log.warning("users.info failed (%s): %s's language falls back",
                        exc.__class__.__name__, user)
            self._remember(user, None, self.failure_ttl)
            return None
        locale = (response.get("user") or {}).get("locale")
        language = supported_language(locale)
        self._remember(user, language, self.ttl)
        return language

    def _remember(self, user: str, language: str | None, ttl: float) -> None:
        self._cache[user] = (language, self.clock() + ttl)
        self._cache.move_to_end(user)
        while len(self._cache) > self.max_users:
            self._cache.popitem(last=False)
