"""The HTTP endpoint Teams posts activities to (`/api/messages`), and the durable receipt.

Every request must carry a Bot Framework channel token that the Teams SDK's service-token
validator accepts (adapters/teams/channel_tokens.py): signed by a key of the cloud's JWKS,
issued for this app id, and naming the activity's serviceUrl (so replies only ever go where
Microsoft signed for). A body that is not a JSON object is 400; a token that fails is 401 and
never reaches a handler; keys that cannot be fetched are 503 (Teams retries). An accepted
activity is stored in the inbox before the 200 goes back, then handled on its own task (Teams
waits a few seconds at most; an answer may take longer); a process that dies meanwhile leaves
it for another replica to take over (adapters/inbox.py).
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from aiohttp import web
from microsoft_teams.api.auth.cloud_environment import PUBLIC, CloudEnvironment

from adapters.inbox import DeliveryInbox
from adapters.teams.application import TeamsBot
from adapters.teams.channel_tokens import ChannelTokens, KeysUnreachable

log = logging.getLogger("ricorda.teams")
MESSAGES_PATH, HEALTH_PATH = "/api/messages", "/healthz"
MAX_BODY = 1024 * 1024  # activities are a few KB; refuse anything absurd early


def validator(app_id: str, cloud: CloudEnvironment | None = None) -> ChannelTokens:
    """The channel-token check for this app id in this cloud (default Microsoft's public)."""
    return ChannelTokens(app_id, cloud or PUBLIC)


class Endpoint:
    def __init__(self, bot: TeamsBot, check: ChannelTokens,
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
        raw = parse_activity(await request.read())
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
        delivery = _delivery_id(activity)
        if self.inbox is not None and not await self.inbox.receive(delivery, text):
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


def parse_activity(body: bytes) -> tuple[str, dict[str, Any]] | None:
    """The body as text and as a JSON object; None for anything else (bytes that are not
    UTF-8, JSON nested deeper than the parser goes, a list): a 400, never a traceback."""
    try:
        text = body.decode("utf-8")
        activity = json.loads(text)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return (text, activity) if isinstance(activity, dict) else None


def _delivery_id(activity: dict[str, Any]) -> str:
    conversation = (activity.get("conversation") or {}).get("id") or ""
    return f"{conversation}|{activity.get('id') or ''}|{activity.get('type') or ''}"[:255]


async def start_site(application: web.Application, *, host: str, port: int) -> web.AppRunner:
    """Listen on host:port; the caller cleans the returned runner up on shutdown."""
    runner = web.AppRunner(application, access_log=None)  # access lines would quote users
    await runner.setup()
    await web.TCPSite(runner, host=host, port=port).start()
    return runner
