"""The Mattermost runner (bot.serve.runner): `ricorda serve` runs it when RICORDA_MATTERMOST_URL is
set. Posts and reactions come over the server's WebSocket; button taps and the slash command
are posted to RICORDA_MATTERMOST_HOST:RICORDA_MATTERMOST_PORT (default 0.0.0.0:3979), which the
server reaches at RICORDA_MATTERMOST_CALLBACK_URL. Before anything starts the server is asked
once who the token belongs to and which team RICORDA_MATTERMOST_TEAM is."""

from __future__ import annotations

import asyncio
import logging
import signal
from concurrent.futures import Executor
from typing import TYPE_CHECKING

from bot.serve.runner import Runner, check_port_free
from core.contracts.errors import ConfigError

if TYPE_CHECKING:
    from adapters.mattermost.client import MattermostClient
    from bot.settings.model import Settings
    from bot.wiring.build import App

log = logging.getLogger("ricorda.serve")
SHUTDOWN_GRACE_S = 10.0


def check_mattermost(app: App) -> None:
    s = app.settings
    check_port_free(s.mattermost_host, s.mattermost_port, "RICORDA_MATTERMOST_PORT")


def _client(app: App) -> MattermostClient:
    from adapters.mattermost.client import MattermostClient

    s = app.settings
    assert s.mattermost_url and s.mattermost_token
    return MattermostClient(s.mattermost_url, s.mattermost_token.get_secret_value())


async def _who(app: App) -> tuple[MattermostClient, str]:
    """The logged-in client and the team's id; ConfigError on a refused token or team."""
    import httpx

    client = _client(app)
    try:
        return client, await client.login(str(app.settings.mattermost_team))
    except httpx.HTTPStatusError as exc:
        await client.close()
        what = ("RICORDA_MATTERMOST_TEAM names no team the bot is in"
                if exc.request.url.path.count("/teams/") else
                "the server refused RICORDA_MATTERMOST_TOKEN")
        raise ConfigError(f"{what} ({exc.response.status_code}): see docs/mattermost.md, "
                          "steps 1-3") from None
    except httpx.HTTPError as exc:
        await client.close()
        raise ConfigError(f"cannot reach RICORDA_MATTERMOST_URL ({exc.__class__.__name__}): "
                          "check the address and that the server is up") from None


def confirm_mattermost(app: App) -> None:
    async def confirm() -> None:
        client, _ = await _who(app)
        await client.close()

    asyncio.run(confirm())


async def serve_mattermost(app: App, *, core_worker: Executor | None = None,
                           stop: asyncio.Event | None = None,
                           handle_signals: bool = True) -> None:
    from adapters.mattermost.app import MattermostBot
    from adapters.mattermost.endpoint import ACTIONS_PATH, Endpoint
    from adapters.web_site import start_site
    from bot.wiring.chat import chat_services, redact_in_logs
    from core.chat.chat_ports import ChatServices

    s = app.settings
    assert s.mattermost_token is not None and s.mattermost_url
    token = s.mattermost_token.get_secret_value()
    command = s.mattermost_command_token.get_secret_value() if s.mattermost_command_token else ""
    redact_in_logs(token, command)
    stop = stop or asyncio.Event()
    if handle_signals:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
    client, team = await _who(app)
    services = chat_services(app, token, ChatServices, core_worker=core_worker)
    base = (s.mattermost_callback_url or f"http://localhost:{s.mattermost_port}").rstrip("/")
    endpoint = Endpoint(MattermostBot(services, client, actions_url=base + ACTIONS_PATH,
                                      team_id=team), command)
    try:
        runner = await start_site(endpoint.application(), host=s.mattermost_host,
                                  port=s.mattermost_port)
        listening = asyncio.ensure_future(endpoint.listen(s.mattermost_url, token, stop))
        log.info("Mattermost: events from %s, callbacks on %s:%s", s.mattermost_url,
                 s.mattermost_host, s.mattermost_port)
        await stop.wait()
        listening.cancel()
        await runner.cleanup()
        await endpoint.finish(SHUTDOWN_GRACE_S)
    finally:
        await client.close()
        services.close()


def _serve(app: App, core_worker: Executor, on_main_thread: bool) -> None:
    asyncio.run(serve_mattermost(app, core_worker=core_worker, handle_signals=on_main_thread))


def _configured(settings: Settings) -> bool:
    return bool(settings.mattermost_url)


MATTERMOST = Runner(
    name="mattermost",
    switch="RICORDA_MATTERMOST_URL",
    configured=_configured,
    check=check_mattermost,
    confirm=confirm_mattermost,
    serve=_serve,
)
