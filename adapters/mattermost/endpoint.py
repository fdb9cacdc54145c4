"""How Mattermost reaches the bot: its WebSocket (posts, reactions; reconnected with a growing
pause), and HTTP posts from the server: `/mattermost/actions` (button taps) and
`/mattermost/command` (the slash command), answered at once, the work on its own task.

Mattermost signs neither post, so each carries its own proof: the slash command the token the
server generated for it (compared in constant time), a button the channel it was posted in,
signed, in the action's context (which the server never shows a client). A tap from another
channel, or with a context nobody signed, is "expired".
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging

import aiohttp
from aiohttp import web

from adapters.background import Background
from adapters.mattermost.app import MattermostBot
from adapters.mattermost.render import CHANNEL
from adapters.web_site import HEALTH_PATH, healthy, json_object

log = logging.getLogger("ricorda.mattermost")
ACTIONS_PATH, COMMAND_PATH = "/mattermost/actions", "/mattermost/command"


class Endpoint(Background):
    def __init__(self, bot: MattermostBot, command_token: str | None) -> None:
        super().__init__()
        self.bot, self._command_token = bot, command_token or ""

    def application(self) -> web.Application:
        application = web.Application(client_max_size=256 * 1024)
        application.add_routes([web.post(ACTIONS_PATH, self.actions),
                                web.post(COMMAND_PATH, self.command),
                                web.get(HEALTH_PATH, healthy)])
        return application

    async def actions(self, request: web.Request) -> web.Response:
        raw = json_object(await request.read())
        payload = raw[1] if raw else {}
        context = payload.get("context") or {}
        if raw is None or not isinstance(context, dict):
            return web.json_response({"error": "bad request"}, status=400)
        signed = self.bot.s.signer.verify(str(context.get("channel") or ""), CHANNEL)
        token = str(context.get("token") or "") or None
        if signed != [str(payload.get("channel_id") or "")]:
            log.info("button from another channel, or unsigned: refused")
            token = None
        self.run(self.bot.on_action(payload, token))
        return web.json_response({})

    async def command(self, request: web.Request) -> web.Response:
        form = dict(await request.post())
        token = str(form.get("token") or "")
        if not self._command_token or not hmac.compare_digest(token, self._command_token):
            log.warning("slash command refused: its token is not the configured one")
            return web.json_response({"error": "Unauthorized"}, status=401)
        self.run(self.bot.on_command({k: str(v) for k, v in form.items()}))
        return web.json_response({})

    async def listen(self, url: str, token: str, stop: asyncio.Event) -> None:
        """The WebSocket until `stop`: each event handled on its own task."""
        ws_url = url.rstrip("/").replace("http", "ws", 1) + "/api/v4/websocket"
        pause = 0.5
        async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {token}"}) as http:
            while not stop.is_set():
                try:
                    async with http.ws_connect(ws_url, heartbeat=30) as ws:
                        pause = 0.5
                        async for frame in ws:
                            if frame.type == aiohttp.WSMsgType.TEXT:
                                self.run(self.bot.on_event(json.loads(frame.data)))
                except (aiohttp.ClientError, OSError, ValueError) as exc:
                    log.warning("Mattermost WebSocket: %s; reconnecting in %.1f s",
                                exc.__class__.__name__, pause)
                await asyncio.sleep(pause)
                pause = min(pause * 2, 30.0)
