"""`ricorda serve`: run the platform adapters configured in the settings.

Telegram runs when RICORDA_TELEGRAM_TOKEN is set: long polling by default, a webhook when
RICORDA_TELEGRAM_WEBHOOK_URL is set (then RICORDA_TELEGRAM_WEBHOOK_SECRET is required and
checked on every request by the webhook server, which answers 403 without it).
"""

from __future__ import annotations

import logging
import re
import threading
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from core.errors import ConfigError

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

    Telegram and Slack may run together: Slack on a background thread, Telegram on this one,
    both handing core calls to one shared worker thread (core is not written for concurrent
    use)."""
    s = app.settings
    if s.telegram_token is None and s.slack_bot_token is None:
        raise ConfigError(
            "no platform configured: set RICORDA_TELEGRAM_TOKEN and/or RICORDA_SLACK_BOT_TOKEN"
        )
    app.glossary  # noqa: B018  (fail now, not at the first question, without a knowledge base)
    logging.getLogger("httpx").setLevel(logging.WARNING)  # its request lines carry the token
    from bot.maintenance_schedule import start_nightly
    from bot.serve_slack import check_slack_settings, check_socket_mode, run_slack

    if s.slack_bot_token is not None and check_slack_settings(app) == "socket":
        check_socket_mode(app)  # every setting checked before anything starts
    start_nightly(app)  # nightly at maintenance_time; replicas coordinate through the database
    from bot.health import start_health_server

    start_health_server(app, metrics=app.metrics)  # GET /healthz, /metrics
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


def chat_services(
    app: App, platform_token: str, *, core_worker: Executor | None = None
) -> dict[str, Any]:
    """The arguments every adapter's services take, built once from the application."""
    import datetime as dt

    from core.callback_token import CallbackSigner, derive_key
    from storage.delivery_log import SqlDeliveryLog
    from storage.inbox import SqlInbox

    s = app.settings
    secret = s.callback_secret.get_secret_value() if s.callback_secret else None
    deliveries = SqlDeliveryLog(app.engine)
    if not s.inbox_lease_s > 0:
        raise ConfigError(f"RICORDA_INBOX_LEASE_S must be positive, not {s.inbox_lease_s!r}")
    return {
        "ask": app.cascade.answer,  # the one seam between an adapter and the request cascade
        "feedback": app.feedback,
        "admin": app.admin,
        "turns": app.turns,
        "signer": CallbackSigner(derive_key(secret, platform_token)),
        "deliveries": deliveries,
        "inbox": SqlInbox(app.engine, deliveries=deliveries,
                          lease=dt.timedelta(seconds=s.inbox_lease_s)),
        "admins": frozenset(s.admins),
        "show_footer": s.show_footer,
        "today": app.today,
        "core_worker": core_worker,
    }


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
    application = telegram_application(app, limits=limits, core_worker=core_worker)
    allowed = list(ALLOWED_UPDATES)
    if not s.telegram_webhook_url:
        log.info("Telegram: long polling")
        application.run_polling(allowed_updates=allowed)
        return
    secret = s.telegram_webhook_secret.get_secret_value() if s.telegram_webhook_secret else ""
    if not _SECRET_TOKEN.match(secret):
        raise ConfigError(
            "RICORDA_TELEGRAM_WEBHOOK_SECRET must be set (1-256 characters "
            "A-Z a-z 0-9 _ -) when RICORDA_TELEGRAM_WEBHOOK_URL is set"
        )
    url = urlsplit(s.telegram_webhook_url)
    listen = s.telegram_webhook_listen or DEFAULT_WEBHOOK_LISTEN
    port = s.telegram_webhook_port or url.port or DEFAULT_WEBHOOK_PORT
    log.info("Telegram: webhook on %s:%s", listen, port)
    application.run_webhook(
        listen=listen,
        port=port,
        url_path=url.path.lstrip("/"),
        webhook_url=s.telegram_webhook_url,
        secret_token=secret,
        allowed_updates=allowed,
    )


class _Redact(logging.Filter):
    """Replaces secrets in every log line: PTB logs its API URL (token inside) at DEBUG, and
    httpx logs each request URL at INFO."""

    def __init__(self, secrets: tuple[str, ...]) -> None:
        super().__init__()
        self.secrets = secrets

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if any(secret in message for secret in self.secrets):
            for secret in self.secrets:
                message = message.replace(secret, "[redacted]")
            record.msg, record.args = message, None
        return True


def redact_in_logs(*secrets: str) -> None:
    """Install the redacting filter on every root handler (once)."""
    values = tuple(x for x in secrets if x)
    for handler in logging.getLogger().handlers:
        if not any(isinstance(f, _Redact) for f in handler.filters):
            handler.addFilter(_Redact(values))
