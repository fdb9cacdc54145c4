"""A fake Slack Socket Mode endpoint: a real WebSocket server on 127.0.0.1.

Slack's Socket Mode works like this: the app calls `apps.connections.open` with its app-level
token (xapp-...) and gets a wss:// URL; it connects, receives `hello`, then envelopes
(`events_api`, `slash_commands`, `interactive`) that it must acknowledge by sending back
`{"envelope_id": ...}` (with a `payload` for commands and interactions that answer in the
acknowledgement). Slack also asks apps to reconnect now and then (`disconnect`). The fake
Web API (tests/fake_slack.py) hands out `url` when `socket_url` is set on it.

The server runs its own event loop in a thread; tests call `send`, `wait_for`, `refresh`.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
from collections.abc import Callable
from typing import Any

from aiohttp import WSMsgType, web

from tests.loopback import wait_on


class FakeSocketMode:
    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._cond = threading.Condition()
        self._ids = itertools.count(1)
        self._sockets: list[web.WebSocketResponse] = []
        self._runner: web.AppRunner | None = None
        self.port = 0
        self.connections = 0  # every connection ever opened
        self.acks: dict[str, dict[str, Any]] = {}  # envelope id -> what the app sent back

    # -- lifecycle ---------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/link"

    def start(self) -> FakeSocketMode:
        self._thread.start()
        self._call(self._start())
        return self

    def stop(self) -> None:
        self._call(self._stop())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        self._loop.close()

    # -- what tests use ----------------------------------------------------------------

    @property
    def connected(self) -> int:
        with self._cond:
            return len(self._sockets)

    def send(
        self,
        kind: str,
        payload: dict[str, Any],
        *,
        envelope_id: str | None = None,
        retry_attempt: int = 0,
    ) -> str:
        """Push one envelope to every connected app; its envelope id."""
        envelope_id = envelope_id or f"env-{next(self._ids):06d}"
        envelope = {
            "envelope_id": envelope_id,
            "type": kind,
            "payload": payload,
            "accepts_response_payload": kind != "events_api",
            "retry_attempt": retry_attempt,
            "retry_reason": "timeout" if retry_attempt else "",
        }
        self._call(self._broadcast(envelope))
        return envelope_id

    def refresh(self) -> None:
        """What Slack does every few hours: ask the app to reconnect, then close."""
        self._call(self._broadcast({"type": "disconnect", "reason": "refresh_requested"}))

    def ack(self, envelope_id: str, timeout: float = 15.0) -> dict[str, Any]:
        return self.wait_for(lambda: self.acks.get(envelope_id), timeout)

    def wait_for(self, predicate: Callable[[], Any], timeout: float = 15.0) -> Any:
        return wait_on(self._cond, predicate, timeout)

    # -- the server --------------------------------------------------------------------

    def _call(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(10)

    async def _start(self) -> None:
        app = web.Application()
        app.router.add_get("/link", self._socket)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = self._runner.addresses[0][1]

    async def _stop(self) -> None:
        for ws in list(self._sockets):
            await ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    async def _broadcast(self, message: dict[str, Any]) -> None:
        for ws in list(self._sockets):
            await ws.send_str(json.dumps(message))

    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()  # answers the client's pings
        await ws.prepare(request)
        with self._cond:
            self._sockets.append(ws)
            self.connections += 1
            self._cond.notify_all()
        await ws.send_str(
            json.dumps(
                {"type": "hello", "num_connections": 1, "connection_info": {"app_id": "A0000001"}}
            )
        )
        try:
            async for message in ws:
                if message.type != WSMsgType.TEXT:
                    continue
                data = json.loads(message.data)
                if "envelope_id" in data:
                    with self._cond:
                        self.acks[data["envelope_id"]] = data
                        self._cond.notify_all()
        finally:
            with self._cond:
                self._sockets.remove(ws)
                self._cond.notify_all()
        return ws
