"""Serving an aiohttp application on host:port, for the adapters that receive HTTP posts
(Slack's events, Mattermost's callbacks; Teams' endpoint has its own copy to fold in)."""

from __future__ import annotations

from aiohttp import web


async def start_site(application: web.Application, *, host: str, port: int) -> web.AppRunner:
    """Listen on host:port; the caller cleans the returned runner up on shutdown."""
    runner = web.AppRunner(application, access_log=None)  # access lines would quote users
    await runner.setup()
    await web.TCPSite(runner, host=host, port=port).start()
    return runner
