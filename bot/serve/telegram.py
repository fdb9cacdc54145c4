"""The Telegram runner (bot.serve.runner): `ricorda serve` runs it when
RICORDA_TELEGRAM_TOKEN is set.

Long polling by default, a webhook when RICORDA_TELEGRAM_WEBHOOK_URL is set (then
RICORDA_TELEGRAM_WEBHOOK_SECRET is required and checked on every request by the webhook server,
which answers 403 without it). Before anything starts, the webhook's secret and port are
checked and the Bot API is asked once (getMe) whether it accepts the token.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from concurrent.futures import Executor
from contextlib import contextmanager
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from bot.serve.runner import Runner, check_port_free
from bot.wiring.chat import chat_services, redact_in_logs
from core.contracts.errors import ConfigError, RicordaError

if TYPE_CHECKING:
    from telegram.ext import Application

    from adapters.telegram import Limits, TelegramServices
    from bot.settings.model import Settings
    from bot.wiring.build import App

log = logging.getLogger("ricorda.serve")

DEFAULT_WEBHOOK_LISTEN = "0.0.0.0"  # a webhook server listens for Telegram
DEFAULT_WEBHOOK_PORT = 8443


def _webhook_port(app: App) -> int:
    s = app.settings
    assert s.telegram_webhook_url is not None
    return s.telegram_webhook_port or urlsplit(s.telegram_webhook_url).port or DEFAULT_WEBHOOK_PORT


def check_telegram_settings(app: App) -> None:
    """The webhook's port, before anything starts (its secret was checked with the settings,
    bot.settings.checks)."""
    s = app.settings
    if not s.telegram_webhook_url:
        return
    check_port_free(
        s.telegram_webhook_listen or DEFAULT_WEBHOOK_LISTEN, _webhook_port(app),
        "RICORDA_TELEGRAM_WEBHOOK_PORT",
    )


def confirm_telegram_token(app: App) -> None:
    """Ask the Bot API who the token belongs to (getMe), once, before anything starts: a token
    Telegram refuses, or a Bot API that cannot be reached, is one line now, while no port is
    bound and no other platform connected."""
    from telegram import Bot

    from adapters.telegram import api_urls

    s = app.settings
    assert s.telegram_token is not None
    token = s.telegram_token.get_secret_value()
    redact_in_logs(token)
    base_url, file_url = api_urls(s.telegram_api_url)

    async def get_me() -> None:
        async with Bot(token, base_url=base_url, base_file_url=file_url):
            pass  # initialize() is the getMe call; leaving closes the connection pool

    with telegram_errors(s.telegram_api_url):
        asyncio.run(get_me())


def telegram_services(app: App, *, core_worker: Executor | None = None) -> TelegramServices:
    from adapters.telegram import TelegramServices

    token = app.settings.telegram_token
    assert token is not None
    return chat_services(app, token.get_secret_value(), TelegramServices, core_worker=core_worker)


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


def _serve(app: App, core_worker: Executor, on_main_thread: bool) -> None:
    """PTB installs its own SIGINT/SIGTERM handlers: the registry puts Telegram on the main
    thread (`needs_main_thread`)."""
    run_telegram(app, core_worker=core_worker)


def _configured(settings: Settings) -> bool:
    return settings.telegram_token is not None


TELEGRAM = Runner(
    name="telegram",
    switch="RICORDA_TELEGRAM_TOKEN",
    configured=_configured,
    check=check_telegram_settings,
    confirm=confirm_telegram_token,
    serve=_serve,
    needs_main_thread=True,
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
