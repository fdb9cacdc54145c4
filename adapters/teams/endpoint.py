"""`/api/messages`, where Teams posts activities: only the Bot Framework channel service's, for
this app id and cloud. The SDK's TokenValidator checks the bearer token (JWKS signature,
issuer, audience, expiry, the `serviceurl` claim: replies go only where Microsoft signed for);
around it, what a public endpoint needs (docs/teams.md, Security): the issuer checked before any
key is fetched (no tenant's keys on a stranger's say), serviceUrl always required, the checks on
their own threads, a bounded key cache refreshed at most once a minute, unreachable keys a 503
(Teams retries), never a 401. Not a JSON object: 400; a failed token: 401, never handled. An
accepted activity is stored in the inbox before its 200, then handled on its own task."""

from __future__ import annotations

import asyncio
import json
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import jwt
from aiohttp import web
from microsoft_teams.api.auth.cloud_environment import PUBLIC, CloudEnvironment
from microsoft_teams.apps.auth import TokenValidator

from adapters.background import Background
from adapters.inbox import DeliveryInbox
from adapters.teams.application import TeamsBot
from adapters.web_site import HEALTH_PATH, healthy, json_object

log = logging.getLogger("ricorda.teams")
MESSAGES_PATH = "/api/messages"
MAX_BODY = 1024 * 1024  # activities are a few KB; refuse anything absurd early
MAX_KEYS = 16  # Microsoft publishes a handful; the LRU never holds more than this
KEYS_LIFESPAN_S, KEYS_TIMEOUT_S = 3600.0, 10.0
REFRESH_COOLDOWN_S = 60.0  # an unknown key id refreshes the set at most this often


class KeysUnreachable(Exception):
    """The cloud's signing keys could not be fetched: the request may be genuine."""

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(f"{url}: {reason}")
        self.url, self.reason = url, reason


class ChannelTokens:
    """Checks the bearer token of one inbound activity (see the module docstring)."""

    def __init__(self, app_id: str, cloud: CloudEnvironment = PUBLIC) -> None:
        self.issuer = cloud.token_issuer
        self._validator = TokenValidator.for_service(app_id, cloud=cloud)
        self.keys_url = self._validator.options.jwks_uri
        # the SDK builds an unbounded client with a 30 s timeout; the same client, bounded
        self._validator._jwks_client = jwt.PyJWKClient(
            self.keys_url, cache_keys=True, max_cached_keys=MAX_KEYS, lifespan=KEYS_LIFESPAN_S,
            timeout=KEYS_TIMEOUT_S, cooldown_duration=REFRESH_COOLDOWN_S)
        self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="teams-token")

    async def check(self, token: str, service_url: Any) -> dict[str, Any]:
        """The token's claims; jwt.InvalidTokenError when it is not the channel's for this
        activity, KeysUnreachable when that cannot be known now."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, self._check, token, service_url)

    def _check(self, token: str, service_url: Any) -> dict[str, Any]:
        if not isinstance(service_url, str) or not service_url:
            raise jwt.InvalidTokenError("the activity has no serviceUrl to check")
        unverified = jwt.decode(token, options={"verify_signature": False})  # routing only
        if unverified.get("iss") != self.issuer:
            raise jwt.InvalidIssuerError("not issued by the Bot Framework channel service")
        try:
            return asyncio.run(self._validator.validate_token(token, service_url))
        except jwt.PyJWKClientConnectionError as exc:
            raise KeysUnreachable(self.keys_url, str(exc)[:200]) from None

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


class Endpoint(Background):
    def __init__(self, bot: TeamsBot, check: ChannelTokens,
                 inbox: DeliveryInbox | None = None) -> None:
        super().__init__(inbox)
        self.bot, self.check = bot, check

    def application(self) -> web.Application:
        application = web.Application(client_max_size=MAX_BODY)
        application.add_routes([web.post(MESSAGES_PATH, self.messages),
                                web.get(HEALTH_PATH, healthy)])
        return application

    async def messages(self, request: web.Request) -> web.Response:
        raw = json_object(await request.read())
        if raw is None:
            return web.json_response({"error": "bad activity"}, status=400)
        text, activity = raw
        auth = request.headers.get("Authorization", "")
        try:
            if not auth.startswith("Bearer "):
                raise ValueError("no bearer token")
            await self.check.check(auth.removeprefix("Bearer "), activity.get("serviceUrl"))
        except KeysUnreachable as exc:  # maybe genuine: Teams retries a 503
            log.error("cannot check a Teams request: the Bot Framework signing keys at %s "
                      "cannot be fetched (%s); answered 503", exc.url, exc.reason)
            return web.json_response({"error": "signing keys unavailable"}, status=503)
        except Exception as exc:  # any doubt about the token: the activity is not read
            log.warning("activity refused (401): %s: %s", exc.__class__.__name__,
                        str(exc)[:200])
            return web.json_response({"error": "Unauthorized"}, status=401)
        await self.receive(_delivery_id(activity), text, lambda: self.bot.handle(activity))
        return web.Response(status=200)

    async def redeliver(self, delivery: str, payload: str) -> None:
        """An activity a dead process stored and never finished."""
        await self.handled(delivery, self.bot.handle(json.loads(payload)))


def _delivery_id(activity: dict[str, Any]) -> str:
    conversation = (activity.get("conversation") or {}).get("id") or ""
    return f"{conversation}|{activity.get('id') or ''}|{activity.get('type') or ''}"[:255]
