"""The Microsoft Teams runner (bot.serve.runner): `ricorda serve` runs it when
RICORDA_TEAMS_APP_ID is set. Activities arrive at `/api/messages` on
RICORDA_TEAMS_HOST:RICORDA_TEAMS_PORT (default 0.0.0.0:3978); before anything starts the
settings and the port are checked and the token endpoint is asked once for a Connector token
(a wrong password is one line now, not a traceback at the first answer)."""

from __future__ import annotations

import asyncio
import logging
import signal
from concurrent.futures import Executor
from typing import TYPE_CHECKING

from bot.serve.runner import Runner, check_port_free
from core.contracts.errors import ConfigError

if TYPE_CHECKING:
    from adapters.teams import TeamsServices
    from adapters.teams.connector import BotToken
    from bot.settings.model import Settings
    from bot.wiring.build import App

log = logging.getLogger("ricorda.serve")
SHUTDOWN_GRACE_S = 10.0  # answers in flight get this long to finish after SIGTERM


def check_teams(app: App) -> None:
    """The port, locally, before anything starts (the id and password were checked with the
    settings, bot.settings.checks)."""
    s = app.settings
    check_port_free(s.teams_host, s.teams_port, "RICORDA_TEAMS_PORT")


def confirm_teams(app: App) -> None:
    """One bot token, the way the bot will get them: a refusal (a wrong id, secret or tenant)
    is a ConfigError; a token endpoint that cannot be reached is logged and left to the first
    reply."""
    from adapters.teams.connector import TokenRefused

    try:
        asyncio.run(_token(app)())
    except TokenRefused as exc:
        raise ConfigError(
            "the token endpoint refused RICORDA_TEAMS_APP_ID / RICORDA_TEAMS_APP_PASSWORD "
            f"({exc.error}): {_refusal_fix(app.settings)}") from None
    except Exception as exc:  # MSAL's network and metadata errors have no common base
        log.warning("cannot reach the Teams token endpoint (%s); starting anyway",
                    exc.__class__.__name__)


def _refusal_fix(s: Settings) -> str:
    from bot.settings.checks import teams_app_type

    kind = teams_app_type(s)
    if kind == "managed-identity":
        return ("RICORDA_TEAMS_APP_ID must be the client id of the user-assigned managed "
                "identity attached to this host")
    fix = "copy the app id and a current client secret from the bot's app registration"
    if kind == "multi-tenant":
        return fix + ("; a bot created since July 2025 is single-tenant: set "
                      "RICORDA_TEAMS_TENANT_ID to its Directory (tenant) ID")
    return fix + " and RICORDA_TEAMS_TENANT_ID from its Overview page"


def _token(app: App) -> BotToken:
    """The bot's token in the SDK's terms for its kind of Azure bot (docs/teams.md)."""
    from microsoft_teams.api import ClientCredentials
    from microsoft_teams.api.auth.credentials import ManagedIdentityCredentials

    from adapters.teams.connector import BotToken
    from bot.serve.teams_cloud import teams_cloud
    from bot.settings.checks import teams_app_type

    s = app.settings
    assert s.teams_app_id
    kind = teams_app_type(s)
    if kind == "managed-identity":
        return BotToken(ManagedIdentityCredentials(client_id=s.teams_app_id), teams_cloud(s))
    password = s.teams_app_password.get_secret_value() if s.teams_app_password else ""
    return BotToken(ClientCredentials(
        client_id=s.teams_app_id, client_secret=password,
        tenant_id=s.teams_tenant_id if kind == "single-tenant" else None), teams_cloud(s))


def teams_services(app: App, *, core_worker: Executor | None = None) -> TeamsServices:
    from adapters.teams import TeamsServices
    from bot.wiring.chat import chat_services

    s = app.settings
    assert s.teams_app_id
    secret = s.teams_app_password.get_secret_value() if s.teams_app_password else ""
    from storage.subscription_store import SqlSubscriptionStore

    store = SqlSubscriptionStore(app.storage.engine)
    return chat_services(app, secret, TeamsServices, core_worker=core_worker,
                         remember_address=store.set_chat_reference)


async def serve_teams(app: App, *, core_worker: Executor | None = None,
                      stop: asyncio.Event | None = None, handle_signals: bool = True) -> None:
    """Serve Teams until `stop` is set (or a signal arrives)."""
    from adapters.inbox import DeliveryInbox
    from adapters.teams import PLATFORM, TeamsBot
    from adapters.teams.connector import Connector
    from adapters.teams.endpoint import ChannelTokens, Endpoint
    from adapters.web_site import start_site
    from bot.serve.teams_cloud import teams_cloud
    from bot.wiring.chat import redact_in_logs

    check_teams(app)
    s = app.settings
    assert s.teams_app_id
    redact_in_logs(s.teams_app_password.get_secret_value() if s.teams_app_password else "",
                   s.callback_secret.get_secret_value() if s.callback_secret else "")
    stop = stop or asyncio.Event()
    if handle_signals:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
    services = teams_services(app, core_worker=core_worker)
    inbox = DeliveryInbox(services.inbox, PLATFORM) if services.inbox is not None else None
    endpoint = Endpoint(TeamsBot(services, Connector(_token(app))),
                        ChannelTokens(s.teams_app_id, teams_cloud(s)), inbox)
    try:
        if inbox is not None:  # activities a dead process stored and never answered
            inbox.start(endpoint.redeliver)
        runner = await start_site(endpoint.application(), host=s.teams_host, port=s.teams_port)
        log.info("Teams: activities on %s:%s/api/messages", s.teams_host, s.teams_port)
        await stop.wait()
        await runner.cleanup()
        if inbox is not None:
            await inbox.stop()
        await endpoint.finish(SHUTDOWN_GRACE_S)
    finally:
        if inbox is not None:
            inbox.close()
        endpoint.check.close()
        services.close()


def _serve(app: App, core_worker: Executor, on_main_thread: bool) -> None:
    asyncio.run(serve_teams(app, core_worker=core_worker, handle_signals=on_main_thread))


def _configured(settings: Settings) -> bool:
    return bool(settings.teams_app_id)


TEAMS = Runner(
    name="teams",
    switch="RICORDA_TEAMS_APP_ID",
    configured=_configured,
    check=check_teams,
    confirm=confirm_teams,
    serve=_serve,
)
