"""Replies out: the Bot Connector REST API at the activity's serviceUrl (the SDK's ApiClient),
authorised with an app token from the token endpoint (client credentials, cached until shortly
before it expires). Both URLs are settings, so tests point them at 127.0.0.1."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import httpx
from microsoft_teams.api import ApiClient
from microsoft_teams.api.activities.message import MessageActivityInput
from microsoft_teams.api.activities.typing import TypingActivityInput
from microsoft_teams.api.models import Attachment
from microsoft_teams.common import ClientOptions

log = logging.getLogger("ricorda.teams")
TOKEN_URL = "https://login.microsoftonline.com/botframework.com/oauth2/v2.0/token"
SCOPE = "https://api.botframework.com/.default"
CARD = "application/vnd.microsoft.card.adaptive"


class AppToken:
    """The bot's bearer token for the Connector; the password never leaves this object."""

    def __init__(self, app_id: str, password: str, url: str | None = None) -> None:
        self._form = {"grant_type": "client_credentials", "client_id": app_id,
                      "client_secret": password, "scope": SCOPE}
        self.url = url or TOKEN_URL
        self._token, self._until = "", 0.0
        self._lock = asyncio.Lock()

    async def __call__(self) -> str:
        async with self._lock:
            if time.monotonic() >= self._until:
                async with httpx.AsyncClient(timeout=20) as http:
                    response = await http.post(self.url, data=self._form)
                response.raise_for_status()
                body = response.json()
                self._token = str(body["access_token"])
                self._until = time.monotonic() + max(0, int(body.get("expires_in", 0)) - 300)
            return self._token

    def __repr__(self) -> str:
        return "AppToken(<secret>)"


class Connector:
    """Send, update and read ids: what the ChatPort needs from Teams."""

    def __init__(self, token: AppToken) -> None:
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
