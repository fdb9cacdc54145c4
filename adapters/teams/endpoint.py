"""The HTTP endpoint Teams posts activities to (`/api/messages`), and the durable receipt.

Every request must carry a Bot Framework JWT that the Teams SDK's validator accepts: signed by
a key of the OpenID metadata's JWKS, issued for this app id, and naming the activity's
serviceUrl (so replies only ever go where Microsoft signed for). Anything else is 401 and never
reaches a handler. An accepted activity is stored in the inbox before the 200 goes back, then
handled on its own task (Teams waits a few seconds at most; an answer may take longer); a
process that dies meanwhile leaves it for another replica to take over (adapters/inbox.py).
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from aiohttp import web
from microsoft_teams.api.auth.cloud_environment import PUBLIC, with_overrides
from microsoft_teams.apps.auth import InboundActivityTokenValidator

from adapters.inbox import DeliveryInbox
from adapters.teams.application import TeamsBot

log = logging.getLogger("ricorda.teams")
MESSAGES_PATH, HEALTH_PATH = "/api/messages", "/healthz"
MAX_BODY = 1024 * 1024  # activities are a few KB; refuse anything absurd early


def validator(app_id: str, openid_url: str | None = None) -> InboundActivityTokenValidator:
    """The SDK's validator, its OpenID metadata (and so its JWKS) at `openid_url` if given."""
    cloud = with_overrides(PUBLIC, openid_metadata_url=openid_url)
    return InboundActivityTokenValidator(app_id, cloud=cloud)


class Endpoint:
    def __init__(self, bot: TeamsBot, check: InboundActivityTokenValidator,
                 inbox: DeliveryInbox | None = None) -> None:
        self.bot, self.check, self.inbox = bot, check, inbox
        self._tasks: set[asyncio.Task[None]] = set()

    def application(self) -> web.Application:
        async def health(request: web.Request) -> web.Response:
            return web.Response(text="ok")

        application = web.Application(client_max_size=MAX_BODY)
        application.add_routes([web.post(MESSAGES_PATH, self.messages),
                                web.get(HEALTH_PATH, health)])
        return application

    async def messages(self, request: web.Request) -> web.Response:
        raw = await request.text()
        try:
            activity = json.loads(raw)
            assert isinstance(activity, dict)
        except (ValueError, AssertionError):
            return web.json_response({"error": "bad activity"}, status=400)
        auth = request.headers.get("Authorization", "")
        try:
            if not auth.startswith("Bearer "):
                raise ValueError("no bearer token")
            await self.check.validate_token(auth.removeprefix("Bearer "),
                                            activity.get("serviceUrl"))
        except Exception as exc:  # any doubt about the token: the activity is not read
            log.warning("activity refused: %s", exc.__class__.__name__)
            return web.json_response({"error": "Unauthorized"}, status=401)
        delivery = _delivery_id(activity)
        if self.inbox is not None and not await self.inbox.receive(delivery, raw):
            return web.Response(status=200)  # a redelivery: handled (or being handled) already
        task = asyncio.ensure_future(self.run(delivery, activity))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return web.Response(status=200)

    async def run(self, delivery: str, activity: dict[str, Any]) -> None:
        try:
            await self.bot.handle(activity)
        except Exception as exc:  # one bad activity must not take the listener down
            log.error("handling a %s activity failed: %s", activity.get("type"),
                      exc.__class__.__name__, exc_info=exc)
        finally:
            if self.inbox is not None:
                await self.inbox.done(delivery)

    async def redeliver(self, delivery: str, payload: str) -> None:
        """An activity a dead process stored and never finished."""
        await self.run(delivery, json.loads(payload))

    async def finish(self, timeout: float) -> None:
        """Let answers in flight finish, up to `timeout` seconds."""
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=timeout)


def _delivery_id(activity: dict[str, Any]) -> str:
    conversation = (activity.get("conversation") or {}).get("id") or ""
    return f"{conversation}|{activity.get('id') or ''}|{activity.get('type') or ''}"[:255]


async def start_site(application: web.Application, *, host: str, port: int) -> web.AppRunner:
    """Listen on host:port; the caller cleans the returned runner up on shutdown."""
    runner = web.AppRunner(application, access_log=None)  # access lines would quote users
    await runner.setup()
    await web.TCPSite(runner, host=host, port=port).start()
    return runner
