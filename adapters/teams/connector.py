"""Replies out: the Bot Connector REST API at the activity's serviceUrl (the SDK's ApiClient),
with a bot token MSAL gets and caches for the SDK's credentials: `ClientCredentials` with the
app's tenant (single-tenant) or without (multi-tenant), or `ManagedIdentityCredentials`
(docs/teams.md). Not the SDK's TokenManager: it lets MSAL ask Microsoft's instance discovery
about a login host it does not know, and the login endpoint is a setting (a fake tenant on
127.0.0.1 in tests); here MSAL reads that authority's own metadata, nothing else."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from microsoft_teams.api import ApiClient, ClientCredentials
from microsoft_teams.api.activities.message import MessageActivityInput
from microsoft_teams.api.activities.typing import TypingActivityInput
from microsoft_teams.api.auth.cloud_environment import PUBLIC, CloudEnvironment
from microsoft_teams.api.auth.credentials import ManagedIdentityCredentials
from microsoft_teams.api.models import Attachment
from microsoft_teams.common import ClientOptions

CARD = "application/vnd.microsoft.card.adaptive"


class TokenRefused(Exception):
    """The token endpoint answered and said no (a wrong id, secret or tenant)."""

    def __init__(self, error: str, description: str) -> None:
        super().__init__(f"{error}: {description}")
        self.error, self.description = error, description


class BotToken:
    """The bot's bearer token for the Connector, cached by MSAL until shortly before it
    expires. The credentials (the secret) never leave this object: no repr shows them."""

    def __init__(self, credentials: ClientCredentials | ManagedIdentityCredentials,
                 cloud: CloudEnvironment = PUBLIC) -> None:
        self._credentials, self.cloud = credentials, cloud
        self._acquire: Callable[[], dict[str, Any]] | None = None
        self._lock = asyncio.Lock()

    def _client(self) -> Callable[[], dict[str, Any]]:
        """Built on first use: MSAL reads the tenant's OpenID metadata when it is built."""
        import msal
        import requests

        c, cloud = self._credentials, self.cloud
        if isinstance(c, ManagedIdentityCredentials):
            identity = msal.ManagedIdentityClient(msal.UserAssignedManagedIdentity(
                client_id=c.client_id), http_client=requests.Session())
            resource = cloud.bot_scope.removesuffix("/.default")
            return lambda: identity.acquire_token_for_client(resource=resource)
        app = msal.ConfidentialClientApplication(
            c.client_id, client_credential=c.client_secret, instance_discovery=False,
            authority=f"{cloud.login_endpoint}/{c.tenant_id or cloud.login_tenant}")
        return lambda: app.acquire_token_for_client([cloud.bot_scope])

    def _get(self) -> str:
        self._acquire = self._acquire or self._client()
        result = self._acquire()
        if "access_token" not in result:
            raise TokenRefused(str(result.get("error") or "no token"),
                               str(result.get("error_description") or "")[:300])
        return str(result["access_token"])

    async def __call__(self) -> str:
        async with self._lock:  # MSAL is blocking: on a worker thread
            return await asyncio.to_thread(self._get)

    def __repr__(self) -> str:
        return "BotToken(<secret>)"


class Connector:
    """Send, update, "typing…": what the ChatPort needs from Teams, at the service URL each
    conversation came from (the SDK scopes its client to it per call)."""

    def __init__(self, token: BotToken) -> None:
        self.token = token
        self.api = ApiClient("", ClientOptions(token=token)).conversations

    async def send(self, service_url: str, conversation: str, *, text: str = "",
                   card: dict[str, Any] | None = None, reply_to: str | None = None) -> str:
        """Post one message (text, or an Adaptive Card); the id Teams gave it."""
        sent = await self.api.create_activity(conversation, _message(text, card, reply_to),
                                              service_url=service_url)
        return sent.id

    async def update(self, service_url: str, conversation: str, activity_id: str, *,
                     card: dict[str, Any]) -> None:
        """Replace a message (a prompt by its outcome: the buttons go)."""
        await self.api.update_activity(conversation, activity_id, _message("", card, None),
                                       service_url=service_url)

    async def typing(self, service_url: str, conversation: str) -> None:
        await self.api.create_activity(conversation, TypingActivityInput(),
                                       service_url=service_url)


def _message(text: str, card: dict[str, Any] | None, reply_to: str | None
             ) -> MessageActivityInput:
    message = MessageActivityInput(text=text or None, reply_to_id=reply_to)
    if card is not None:
        message = message.add_attachments(Attachment(content_type=CARD, content=card))
    return message
