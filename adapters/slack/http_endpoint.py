"""The HTTP transport: an aiohttp application that hands `/slack/events` to bolt.

bolt sees only its own request/response objects; this module converts in and out (bolt's
aiohttp adapter) and adds a health check for load balancers. Signature and timestamp checks
(401 when wrong or older than five minutes) are bolt's request-verification middleware.
"""

from __future__ import annotations

from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response, to_bolt_request
from slack_bolt.async_app import AsyncApp

from adapters.web_site import HEALTH_PATH, healthy, start_site

__all__ = ["EVENTS_PATH", "start_site", "web_application"]

EVENTS_PATH = "/slack/events"
MAX_BODY = 1024 * 1024  # Slack payloads are a few KB; refuse anything absurd early


def web_application(bolt: AsyncApp, *, path: str = EVENTS_PATH) -> web.Application:
    async def events(request: web.Request) -> web.Response:
        response = await bolt.async_dispatch(await to_bolt_request(request))
        return await to_aiohttp_response(response)

    application = web.Application(client_max_size=MAX_BODY)
    application.add_routes([web.post(path, events), web.get(HEALTH_PATH, healthy)])
    return application

