"""Who may post to /api/messages: the Bot Framework channel service, for this app id and cloud.

The Teams SDK's service-token validator does the checking (signature by a key of the cloud's
JWKS, issuer, audience = this app id, expiry, the `serviceurl` claim). Around it, what a public
endpoint needs and the SDK's inbound validator does not give:

- only the Bot Framework issuer is accepted, and before any key is looked up: a token naming an
  Entra tenant as its issuer (the SDK's Agent-ID path, which fetches that tenant's keys) is
  refused without an outbound request;
- the activity's serviceUrl is required and always compared with the signed claim;
- the checking runs on its own two threads, so a key download never stalls the event loop
  (health checks, replies in flight);
- the key cache is bounded (16 keys) and an unknown key id refreshes the key set at most once a
  minute, so forged key ids cannot make the bot fetch keys per request;
- keys that cannot be fetched are `KeysUnreachable` (the caller answers 503, Teams retries),
  never confused with a forged token (401).
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import jwt
from microsoft_teams.api.auth.cloud_environment import CloudEnvironment
from microsoft_teams.apps.auth import TokenValidator

MAX_KEYS = 16  # Microsoft publishes a handful; the LRU never holds more than this
KEYS_LIFESPAN_S = 3600.0  # the key set is fetched again after an hour
KEYS_TIMEOUT_S = 10.0
REFRESH_COOLDOWN_S = 60.0  # an unknown key id refreshes the set at most this often
WORKERS = 2


class KeysUnreachable(Exception):
    """The cloud's signing keys could not be fetched: the request may be genuine."""

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(f"{url}: {reason}")
        self.url, self.reason = url, reason


class ChannelTokens:
    """Checks the bearer token of one inbound activity (see the module docstring)."""

    def __init__(self, app_id: str, cloud: CloudEnvironment) -> None:
        self.issuer = cloud.token_issuer
        self._validator = TokenValidator.for_service(app_id, cloud=cloud)
        self.keys_url = self._validator.options.jwks_uri
        # the SDK builds an unbounded client with a 30 s timeout; the same client, bounded
        self._validator._jwks_client = jwt.PyJWKClient(
            self.keys_url, cache_keys=True, max_cached_keys=MAX_KEYS, lifespan=KEYS_LIFESPAN_S,
            timeout=KEYS_TIMEOUT_S, cooldown_duration=REFRESH_COOLDOWN_S)
        self._pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="teams-token")

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
