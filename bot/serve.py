"""`ricorda serve`: run the platform adapters configured in the settings.

Telegram runs when RICORDA_TELEGRAM_TOKEN is set: long polling by default, a webhook when
RICORDA_TELEGRAM_WEBHOOK_URL is set (then RICORDA_TELEGRAM_WEBHOOK_SECRET is required and
checked on every request by the webhook server, which answers 403 without it).
"""

from __future__ import annotations

import logging
import re
import socket
import threading
from collections.abc import Iterator
from concurrent.futures import Executor, ThreadPoolExecutor
from contextlib import contextmanager
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from bot.chat_wiring import chat_services, redact_in_logs
from core.errors import ConfigError, RicordaError

if TYPE_CHECKING:
    from telegram.ext import Application

    from adapters.telegram import Limits, TelegramServices
    from bot.app import App

log = logging.getLogger("ricorda.serve")

_SECRET_TOKEN = re.compile(r"^[A-Za-z0-9_-]{1,256}$")  # what Telegram accepts
DEFAULT_WEBHOOK_LISTEN = "0.0.0.0"  # a webhook server listens for Telegram
DEFAULT_WEBHOOK_PORT = 8443


def run_serve(app: App) -> None:
    """Block serving every configured platform until SIGINT/SIGTERM.

    Every setting is checked and every port tried first; then /healthz answers 503 `warming`
    while the models and indexes load (bot.warmup), and only then are updates taken. Telegram
    and Slack may run together: Slack on a background thread, Telegram on this one, both
    handing core calls to one shared worker thread (core is not written for concurrent use)."""
    s = app.settings
    if s.telegram_token is None and s.slack_bot_token is None:
        raise ConfigError(
            "no platform configured: set RICORDA_TELEGRAM_TOKEN and/or RICORDA_SLACK_BOT_TOKEN"
        )
    app.glossary  # noqa: B018  (fail now, not at the first question, without a knowledge base)
    from bot.maintenance_schedule import start_nightly
    from bot.serve_slack import (
        check_bot_token,
        check_slack_settings,
        check_socket_mode,
        listen_address,
        run_slack,
    )
    from bot.warmup import embedder_line, summary, warm

    # every local check (settings, ports) first, then the platforms' answers about the tokens
    if s.telegram_token is not None:
        check_telegram_settings(app)
    slack_mode = check_slack_settings(app) if s.slack_bot_token is not None else None
    if slack_mode == "http":
        check_port_free(*listen_address(app), "RICORDA_SLACK_PORT")
    check_port_free(s.metrics_host, s.metrics_port, "RICORDA_METRICS_PORT")
    if slack_mode == "socket":
        check_socket_mode(app)
    elif slack_mode == "http":
        check_bot_token(app)
    from bot.health import start_health_server

    ready = threading.Event()
    health = start_health_server(app, metrics=app.metrics, ready=ready)  # 503 warming
    for line in summary(app, thresholds=False, metrics_port=health.port):
        log.info("%s", line)
    warm(app)
    log.info("%s", embedder_line(app))  # now loaded, with its thresholds
    start_nightly(app)  # nightly at maintenance_time; replicas coordinate through the database
    ready.set()
    if s.telegram_token is None:
        run_slack(app)
        return
    worker = ThreadPoolExecutor(1, thread_name_prefix="ricorda-core")
    if s.slack_bot_token is not None:
        threading.Thread(
            target=run_slack,
            args=(app,),
            daemon=True,
            name="ricorda-slack",
            kwargs={"core_worker": worker, "handle_signals": False},
        ).start()
    run_telegram(app, core_worker=worker)


def check_port_free(host: str, port: int, variable: str) -> None:
    """ConfigError now, naming the variable, when `port` is taken: not a traceback later."""
    if port == 0:
        return
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise ConfigError(
                f"{variable}={port} cannot be used on {host} ({exc.strerror}): stop what "
                f"listens there or set {variable} to a free port"
            ) from None


def _webhook_port(app: App) -> int:
    s = app.settings
    assert s.telegram_webhook_url is not None
    return s.telegram_webhook_port or urlsplit(s.telegram_webhook_url).port or DEFAULT_WEBHOOK_PORT


def check_telegram_settings(app: App) -> None:
    """The webhook's secret and port, before anything starts."""
    s = app.settings
    if not s.telegram_webhook_url:
        return
    secret = s.telegram_webhook_secret.get_secret_value() if s.telegram_webhook_secret else ""
    if not _SECRET_TOKEN.match(secret):
        raise ConfigError(
            "RICORDA_TELEGRAM_WEBHOOK_SECRET must be set (1-256 characters "
            "A-Z a-z 0-9 _ -) when RICORDA_TELEGRAM_WEBHOOK_URL is set"
        )
    check_port_free(
        s.telegram_webhook_listen or DEFAULT_WEBHOOK_LISTEN, _webhook_port(app),
        "RICORDA_TELEGRAM_WEBHOOK_PORT",
    )


def telegram_services(app: App, *, core_worker: Executor | None = None) -> TelegramServices:
    from adapters.telegram import TelegramServices

    token = app.settings.telegram_token
    assert token is not None
    return TelegramServices(**chat_services(app, token.get_secret_value(), core_worker=core_worker))


def telegram_application(
    app: App, *, limits: Limits | None = None, core_worker: Executor | None = None
) -> Application:
    from adapters.telegram import build_application

    s = app.settings
    assert s.telegram_token is not None
    services = telegram_services(app, core_worker=core_worker)
    return build_application(
        services,
        token=s.telegram_token.get_secret_value(),
        api_url=s.telegram_api_url,
        limits=limits,
    )


def run_telegram(
    app: App, *, limits: Limits | None = None, core_worker: Executor | None = None
) -> None:
    from adapters.telegram import ALLOWED_UPDATES

    s = app.settings
    assert s.telegram_token is not None
    redact_in_logs(
        s.telegram_token.get_secret_value(),
        *(x.get_secret_value() for x in (s.telegram_webhook_secret,) if x),
    )
    check_telegram_settings(app)
    application = telegram_application(app, limits=limits, core_worker=core_worker)
    allowed = list(ALLOWED_UPDATES)
    with telegram_errors(s.telegram_api_url):
        if not s.telegram_webhook_url:
            log.info("Telegram: long polling")
            application.run_polling(allowed_updates=allowed)
            return
        secret = s.telegram_webhook_secret.get_secret_value() if s.telegram_webhook_secret else ""
        listen = s.telegram_webhook_listen or DEFAULT_WEBHOOK_LISTEN
        port = _webhook_port(app)
        log.info("Telegram: webhook on %s:%s", listen, port)
        application.run_webhook(
            listen=listen,
            port=port,
            url_path=urlsplit(s.telegram_webhook_url).path.lstrip("/"),
            webhook_url=s.telegram_webhook_url,
            secret_token=secret,
            allowed_updates=allowed,
        )


@contextmanager
def telegram_errors(api_url: str | None) -> Iterator[None]:
    """PTB's start-up failures as one sentence with the fix (its messages may quote the
    token: none is repeated)."""
    from telegram.error import InvalidToken, NetworkError, TelegramError

    where = api_url or "api.telegram.org"
    try:
        yield
    except InvalidToken:
        raise ConfigError(
            "Telegram rejected RICORDA_TELEGRAM_TOKEN: copy the bot's token again from "
            "BotFather (/mybots, API Token) into the data dir's .env"
        ) from None
    except NetworkError as exc:
        raise RicordaError(
            f"cannot reach the Telegram Bot API at {where} ({type(exc).__name__}): check the "
            "network and RICORDA_TELEGRAM_API_URL, then start again"
        ) from None
    except TelegramError as exc:
        raise RicordaError(
            f"the Telegram Bot API at {where} answered something unexpected "
            f"({type(exc).__name__}): check RICORDA_TELEGRAM_API_URL points at a Bot API server"
        ) from None
