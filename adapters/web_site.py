"""Serving an aiohttp application on host:port, for the adapters that receive HTTP posts
(Slack's events, Mattermost's callbacks, Teams' activities), with the load balancer's check."""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web

HEALTH_PATH = "/healthz"


async def healthy(request: web.Request) -> web.Response:
    """`/healthz`: the listener is up."""
    return web.Response(text="ok")


def json_object(body: bytes) -> tuple[str, dict[str, Any]] | None:
    """A posted body as text and as a JSON object; None for anything else (bytes that are not
    UTF-8, JSON nested deeper than the parser goes, a list): a 400, never a traceback."""
    try:
        text = body.decode("utf-8")
        value = json.loads(text)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return (text, value) if isinstance(value, dict) else None


async def start_site(application: web.Application, *, host: str, port: int) -> web.AppRunner:
    """Listen on host:port; the caller cleans the returned runner up on shutdown."""
    runner = web.AppRunner(application, access_log=None)  # access lines would quote users
    await runner.setup()
    await web.TCPSite(runner, host=host, port=port).start()
    return runner
