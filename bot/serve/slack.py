"""The Slack runner (bot.serve.runner): `ricorda serve` runs it when RICORDA_SLACK_BOT_TOKEN is set.

Socket Mode when RICORDA_SLACK_APP_TOKEN is set (no public URL needed); otherwise HTTP mode:
`/slack/events` on RICORDA_SLACK_HOST:RICORDA_SLACK_PORT (default 0.0.0.0:3000), where every
request must carry a valid Slack signature (RICORDA_SLACK_SIGNING_SECRET, required). Before
anything starts, the mode's settings and port are checked and Slack is asked once about the
token (apps.connections.open in Socket Mode, auth.test in HTTP mode).
"""

from __future__ import annotations

import asyncio
import logging
import signal
from concurrent.futures import Executor
from typing import TYPE_CHECKING

from bot.serve.runner import Runner, check_port_free
from core.contracts.errors import ConfigError

if TYPE_CHECKING:
    from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler

    from adapters.slack import SlackServices
    from bot.settings.model import Settings
    from bot.wiring.build import App

log = logging.getLogger("ricorda.serve")

DEFAULT_HOST = "0.0.0.0"
DEFAULT_PORT = 3000
SHUTDOWN_GRACE_S = 10.0  # answers in flight get this long to finish after SIGTERM
# apps.connections.open errors no retry can fix (Slack's SDKs treat them as unrecoverable)
REFUSED = frozenset({
    "not_authed", "invalid_auth", "account_inactive", "token_revoked", "token_expired",
    "not_allowed_token_type", "access_denied", "forbidden_team", "missing_scope", "no_permission",
})  # fmt: skip


def slack_services(app: App, *, core_worker: Executor | None = None) -> SlackServices:
    from adapters.slack import SlackServices
    from bot.wiring.chat import chat_services

    token = app.settings.slack_bot_token
    if token is None:
        raise ConfigError("RICORDA_SLACK_BOT_TOKEN is not set")
    return chat_services(app, token.get_secret_value(), SlackServices, core_worker=core_worker)


def listen_address(app: App) -> tuple[str, int]:
    """(host, port) of the HTTP endpoint: RICORDA_SLACK_HOST / RICORDA_SLACK_PORT."""
    s = app.settings
    return s.slack_host or DEFAULT_HOST, s.slack_port


def slack_mode(app: App) -> str:
    """ "socket" or "http", as the settings checks found it (bot.settings.checks)."""
    mode = app.checked.slack_mode
    if mode is None:
        raise ConfigError("RICORDA_SLACK_BOT_TOKEN is not set")
    return mode


def check_slack(app: App) -> None:
    """The mode's settings and, in HTTP mode, the events port: locally, before anything starts."""
    if slack_mode(app) == "http":
        check_port_free(*listen_address(app), "RICORDA_SLACK_PORT")


def confirm_slack_tokens(app: App) -> None:
    """Slack asked once about the token the mode uses (after every local check)."""
    if slack_mode(app) == "socket":
        check_socket_mode(app)
    else:
        check_bot_token(app)


def check_socket_mode(app: App) -> None:
    """Ask Slack for a Socket Mode URL once, before anything starts.

    slack_sdk retries a failing connection forever, logging a traceback each time; a token
    Slack refuses is a configuration mistake to report now, in one line. Anything else (network
    down, Slack's 5xx) is left to those retries.
    """
    from slack_sdk import WebClient
    from slack_sdk.errors import SlackApiError, SlackClientError

    from adapters.slack import api_url

    token = app.settings.slack_app_token
    assert token is not None
    client = WebClient(base_url=api_url(app.settings.slack_api_url), timeout=10)
    try:
        client.apps_connections_open(app_token=token.get_secret_value())
    except SlackApiError as exc:
        error = str(exc.response.get("error", ""))
        if error in REFUSED:
            raise ConfigError(
                f"Slack refused RICORDA_SLACK_APP_TOKEN ({error}): use the app-level token "
                "(xapp-...) with the connections:write scope, and enable Socket Mode in the "
                "app's settings"
            ) from None
        log.warning("Slack Socket Mode check failed (%s); connecting anyway", error)
    except (SlackClientError, OSError) as exc:
        log.warning("cannot reach Slack (%s); connecting anyway", exc.__class__.__name__)


def check_bot_token(app: App) -> None:
    """Ask Slack who the bot token belongs to (auth.test), once, before anything starts: a
    token Slack refuses is a one-line configuration error now, not a traceback per message.
    Anything else (network down, Slack's 5xx, a garbled answer) is logged and left to the
    SDK's retries."""
    from slack_sdk import WebClient
    from slack_sdk.errors import SlackApiError, SlackClientError

    from adapters.slack import api_url

    token = app.settings.slack_bot_token
    assert token is not None
    # one try: a Slack that cannot be reached is reported in one line below, not retried here
    client = WebClient(base_url=api_url(app.settings.slack_api_url), timeout=10,
                       retry_handlers=[])
    try:
        client.auth_test(token=token.get_secret_value())
    except SlackApiError as exc:
        error = str(exc.response.get("error", "")) if isinstance(exc.response.data, dict) else ""
        if error in REFUSED:
            raise ConfigError(
                f"Slack refused RICORDA_SLACK_BOT_TOKEN ({error}): copy the Bot User OAuth "
                "Token (xoxb-...) again from the app's OAuth & Permissions page"
            ) from None
        log.warning("Slack token check failed (%s); starting anyway", error or "bad answer")
    except (SlackClientError, OSError, ValueError) as exc:
        log.warning("cannot reach Slack (%s); starting anyway", exc.__class__.__name__)


def run_slack(
    app: App, *, core_worker: Executor | None = None, handle_signals: bool = True
) -> None:
    """Block serving Slack until SIGINT/SIGTERM (or forever when `handle_signals` is False,
    e.g. on a background thread next to Telegram)."""
    asyncio.run(serve_slack(app, core_worker=core_worker, handle_signals=handle_signals))


def _serve(app: App, core_worker: Executor, on_main_thread: bool) -> None:
    run_slack(app, core_worker=core_worker, handle_signals=on_main_thread)


def _configured(settings: Settings) -> bool:
    return settings.slack_bot_token is not None


SLACK = Runner(
    name="slack",
    switch="RICORDA_SLACK_BOT_TOKEN",
    configured=_configured,
    check=check_slack,
    confirm=confirm_slack_tokens,
    serve=_serve,
)


async def serve_slack(
    app: App,
    *,
    core_worker: Executor | None = None,
    stop: asyncio.Event | None = None,
    handle_signals: bool = True,
) -> None:
    """Serve Slack until `stop` is set (or a signal arrives)."""
    import aiohttp

    from adapters.inbox import DeliveryInbox
    from adapters.slack import build_bolt_app, start_site, web_application, web_client
    from adapters.slack.application import redispatcher
    from adapters.slack.services import PLATFORM
    from bot.wiring.chat import redact_in_logs

    mode = slack_mode(app)
    s = app.settings
    assert s.slack_bot_token is not None
    token = s.slack_bot_token.get_secret_value()
    signing = s.slack_signing_secret.get_secret_value() if s.slack_signing_secret else None
    app_token = s.slack_app_token.get_secret_value() if s.slack_app_token else None
    redact_in_logs(
        token,
        signing or "",
        app_token or "",
        s.callback_secret.get_secret_value() if s.callback_secret else "",
    )
    stop = stop or asyncio.Event()
    if handle_signals:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
    services = slack_services(app, core_worker=core_worker)
    inbox = DeliveryInbox(services.inbox, PLATFORM) if services.inbox is not None else None
    try:
        async with aiohttp.ClientSession() as session:
            client = web_client(token, base_url=s.slack_api_url, session=session)
            bolt = build_bolt_app(
                services, client=client, signing_secret=None if mode == "socket" else signing,
                inbox=inbox,
            )
            if inbox is not None:  # events a dead process stored and never answered
                inbox.start(redispatcher(bolt))
            if mode == "socket":
                from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler

                handler = AsyncSocketModeHandler(bolt, app_token)
                if await _connected(handler, stop):
                    log.info("Slack: Socket Mode connected")
                    await stop.wait()
                await handler.close_async()
            else:
                host, port = listen_address(app)
                runner = await start_site(web_application(bolt), host=host, port=port)
                log.info("Slack: HTTP events on %s:%s", host, port)
                await stop.wait()
                await runner.cleanup()
            if inbox is not None:
                await inbox.stop()
            await _finish_in_flight()
    finally:
        if inbox is not None:
            inbox.close()
        services.close()


async def _connected(handler: AsyncSocketModeHandler, stop: asyncio.Event) -> bool:
    """Connect, unless asked to stop first: while Slack is unreachable slack_sdk keeps
    retrying inside connect, and SIGTERM must still end the process."""
    connecting = asyncio.ensure_future(handler.connect_async())
    stopping = asyncio.ensure_future(stop.wait())
    done, _ = await asyncio.wait({connecting, stopping}, return_when=asyncio.FIRST_COMPLETED)
    if connecting in done:
        stopping.cancel()
        connecting.result()
        return True
    connecting.cancel()  # ends slack_sdk's retry loop
    return False


async def _finish_in_flight() -> None:
    """Let lazy listeners already running (answers being posted) finish, up to a limit."""
    pending = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    if pending:
        await asyncio.wait(pending, timeout=SHUTDOWN_GRACE_S)
