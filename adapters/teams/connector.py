"""Replies out: the Bot Connector REST API at the activity's serviceUrl (the SDK's ApiClient),
authorised with a bot token that MSAL gets and caches, in one of the three ways Azure creates
a bot (docs/teams.md):

- single-tenant (Azure's default since multi-tenant bot creation was deprecated): the app's
  client secret at its own tenant's token endpoint;
- multi-tenant: the client secret at the `botframework.com` tenant;
- user-assigned managed identity: no secret, the identity's token from the Azure host.

MSAL is blocking; it runs on a worker thread. The cloud's login endpoint is a setting, so tests
point it at a fake tenant on 127.0.0.1."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from microsoft_teams.api import ApiClient
from microsoft_teams.api.activities.message import MessageActivityInput
from microsoft_teams.api.activities.typing import TypingActivityInput
from microsoft_teams.api.auth.cloud_environment import PUBLIC, CloudEnvironment
from microsoft_teams.api.models import Attachment
from microsoft_teams.common import ClientOptions

log = logging.getLogger("ricorda.teams")
CARD = "application/vnd.microsoft.card.adaptive"
SINGLE_TENANT, MULTI_TENANT, MANAGED_IDENTITY = "single-tenant", "multi-tenant", "managed-identity"
APP_TYPES = (SINGLE_TENANT, MULTI_TENANT, MANAGED_IDENTITY)


class TokenRefused(Exception):
    """The token endpoint answered and said no (a wrong id, secret or tenant)."""

    def __init__(self, error: str, description: str) -> None:
        super().__init__(f"{error}: {description}")
        self.error, self.description = error, description


@dataclass(frozen=True)
class BotIdentity:
    """Who the bot is to Microsoft: the app (or managed identity) id, how it proves it, and
    where it asks."""

    app_id: str
    app_type: str = SINGLE_TENANT
    tenant_id: str | None = None
    password: str | None = None  # not for a managed identity
    cloud: CloudEnvironment = PUBLIC

    def __repr__(self) -> str:
        return f"BotIdentity({self.app_type}, {self.app_id})"


class BotToken:
    """The bot's bearer token for the Connector; MSAL caches it until shortly before it
    expires. The secret never leaves MSAL's client."""

    def __init__(self, identity: BotIdentity) -> None:
        self.identity = identity
        self._acquire: Callable[[], dict[str, Any]] | None = None
        self._lock = asyncio.Lock()

    @property
    def authority(self) -> str:
        i = self.identity
        tenant = i.cloud.login_tenant if i.app_type == MULTI_TENANT else i.tenant_id
        return f"{i.cloud.login_endpoint}/{tenant}"

    def _client(self) -> Callable[[], dict[str, Any]]:
        """Built on first use: MSAL reads the tenant's OpenID metadata when it is built."""
        import msal
        import requests

        i = self.identity
        if i.app_type == MANAGED_IDENTITY:
            identity = msal.ManagedIdentityClient(
                msal.UserAssignedManagedIdentity(client_id=i.app_id),
                http_client=requests.Session())
            resource = i.cloud.bot_scope.removesuffix("/.default")
            return lambda: identity.acquire_token_for_client(resource=resource)
        app = msal.ConfidentialClientApplication(
            i.app_id, client_credential=i.password, authority=self.authority,
            instance_discovery=False)  # the authority's own metadata, nothing else
        return lambda: app.acquire_token_for_client([i.cloud.bot_scope])

    def _get(self) -> str:
        if self._acquire is None:
            self._acquire = self._client()
        result = self._acquire()
        if "access_token" not in result:
            raise TokenRefused(str(result.get("error") or "no token"),
                               str(result.get("error_description") or "")[:300])
        return str(result["access_token"])

    async def __call__(self) -> str:
        async with self._lock:
            return await asyncio.to_thread(self._get)

    def __repr__(self) -> str:
        return "BotToken(<secret>)"


class Connector:
    """Send, update and read ids: what the ChatPort needs from Teams."""

    def __init__(self, token: BotToken) -> None:
        self.token = token
        self._clients: dict[str, ApiClient] = {}

    def _api(self, service_url: str) -> ApiClient:
        if service_url not in self._clients:
            self._clients[service_url] = ApiClient(service_url, ClientOptions(token=self.token))
        return self._clients[service_url]

    async def send(self, service_url: str, conversation: str, *, text: str = "",
                   card: dict[str, Any] | None = None, reply_to: str | None = None) -> str:
        """Post one message (text, or an Adaptive Card); the id Teams gave it."""
        sent = await self._api(service_url).conversations.activities(conversation).create(
            _message(text, card, reply_to))
        return sent.id

    async def update(self, service_url: str, conversation: str, activity_id: str, *,
                     text: str = "", card: dict[str, Any] | None = None) -> None:
        """Replace a message (a purge prompt by its outcome: the buttons go)."""
        await self._api(service_url).conversations.activities(conversation).update(
            activity_id, _message(text, card, None))

    async def typing(self, service_url: str, conversation: str) -> None:  # while it works
        await self._api(service_url).conversations.activities(conversation).create(
            TypingActivityInput())


def _message(text: str, card: dict[str, Any] | None, reply_to: str | None
             ) -> MessageActivityInput:
    message = MessageActivityInput(text=text or None, reply_to_id=reply_to)
    if card is not None:
        message = message.add_attachments(Attachment(content_type=CARD, content=card))
    return message
