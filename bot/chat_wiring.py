"""What every chat adapter is given: the core services built once from the application, and
the secrets its logs must never show. Used by each platform's runner (bot.serve_telegram,
bot.serve_slack), which import this and not each other."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor
from typing import TYPE_CHECKING, Any

from core.errors import ConfigError

if TYPE_CHECKING:
    from bot.app import App


def chat_services(
    app: App, platform_token: str, *, core_worker: Executor | None = None
) -> dict[str, Any]:
    """The arguments every adapter's services take, built once from the application."""
    import datetime as dt

    from core.chat.callback_token import CallbackSigner, derive_key
    from storage.delivery_log import SqlDeliveryLog
    from storage.inbox import SqlInbox

    s = app.settings
    secret = s.callback_secret.get_secret_value() if s.callback_secret else None
    deliveries = SqlDeliveryLog(app.engine)
    if not s.inbox_lease_s > 0:
        raise ConfigError(f"RICORDA_INBOX_LEASE_S must be positive, not {s.inbox_lease_s!r}")
    return {
        "ask": app.answer,  # the one seam between an adapter and the cascade (freshness first)
        "feedback": app.feedback,
        "admin": CurrentAdmin(app.admin, app.ensure_fresh),
        "turns": app.turns,
        "signer": CallbackSigner(derive_key(secret, platform_token)),
        "deliveries": deliveries,
        "inbox": SqlInbox(app.engine, deliveries=deliveries,
                          lease=dt.timedelta(seconds=s.inbox_lease_s)),
        "admins": frozenset(s.admins),
        "show_footer": s.show_footer,
        "chart": chart_renderer() if s.charts else None,
        "max_messages": s.max_messages_per_answer,
        "today": app.today,
        "core_worker": core_worker,
        "is_cleared": lambda chat: app.glossary.is_cleared(chat),
        "usage": lambda language: app.answerer.usage(language),  # examples from the KB
    }


def chart_renderer() -> Callable[[Any], bytes]:
    """What draws a table's chart in the chat adapters (matplotlib, loaded on the first
    chart, not here: a bot that never shows a table never loads it)."""
    from adapters.charts import render_chart

    return render_chart


class CurrentAdmin:
    """Admin commands on the current knowledge base: what a listing may show depends on the
    glossary (clearance), so a glossary another process changed is loaded first, exactly as
    before an answer. Runs on the core worker, like every core call."""

    def __init__(self, admin: object, ensure_fresh: Callable[[], None]) -> None:
        self._admin = admin
        self._ensure_fresh = ensure_fresh

    def __getattr__(self, name: str) -> Any:
        target = getattr(self._admin, name)
        if not callable(target):
            return target

        def current(*args: Any, **kwargs: Any) -> Any:
            self._ensure_fresh()
            return target(*args, **kwargs)

        return current


def redact_in_logs(*secrets: str) -> None:
    """Make sure these values are redacted too (bot.log_setup redacts every setting's secret
    already, in messages and tracebacks alike)."""
    from bot.log_setup import add_secrets

    add_secrets(*secrets)
