"""What every chat adapter is given: the core services built once from the application, and
the secrets its logs must never show. Used by each platform's runner (bot.serve.telegram,
bot.serve.slack, bot.serve.teams), which import this and not each other."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor
from typing import TYPE_CHECKING, Any, TypeVar

from core.chat.chat_ports import ChatServices

if TYPE_CHECKING:
    from bot.wiring.build import App

S = TypeVar("S", bound=ChatServices)


def chat_services(
    app: App, platform_token: str, services: type[S], *, core_worker: Executor | None = None,
    **platform: Any,
) -> S:
    """The platform's services (`services`: TelegramServices, SlackServices ...), built once
    from the application with what every adapter shares; `platform`: its own fields."""
    from core.chat.callback_token import CallbackSigner, derive_key
    from storage.delivery_log import SqlDeliveryLog
    from storage.feedback_reasons import SqlFeedbackReasons
    from storage.inbox import SqlInbox

    s, core, storage = app.settings, app.core, app.storage
    secret = s.callback_secret.get_secret_value() if s.callback_secret else None
    deliveries = SqlDeliveryLog(storage.engine)
    answering = core.answering
    return services(
        ask=answering.answer,  # the one seam between an adapter and the pipeline (freshness first)
        ensure_fresh=answering.ensure_fresh,  # before an admin command, likewise
        feedback=core.feedback,
        admin=core.admin,
        turns=storage.turns,
        signer=CallbackSigner(derive_key(secret, platform_token)),
        deliveries=deliveries,
        inbox=SqlInbox(storage.engine, deliveries=deliveries, lease=app.checked.inbox_lease),
        admins=frozenset(s.admins),
        show_footer=s.show_footer,
        chart=chart_renderer() if s.charts else None,
        max_messages=s.max_messages_per_answer,
        today=core.today,
        core_worker=core_worker,
        is_cleared=lambda chat: core.glossary.is_cleared(chat),
        usage=lambda language: core.answerer.usage(language),  # examples from the KB
        reasons=SqlFeedbackReasons(storage.engine),  # why a ✗, asked once per answer
        subscriptions=subscription_desk(app),
        **platform,
    )


# the platforms bot.serve.scheduler writes to (its TARGETS)
DELIVERED = frozenset({"telegram", "slack", "mattermost", "teams"})


def subscription_desk(app: App) -> Any:
    """The subscription commands' store, bounds, default zone and clock (the scheduler's)."""
    from bot.wiring.alerts import alert_evaluator, subject_reader
    from bot.wiring.clock import delivery_clock
    from core.subscriptions.desk import SubscriptionDesk
    from storage.subscription_store import SqlSubscriptionStore

    s = app.settings
    return SubscriptionDesk(SqlSubscriptionStore(app.storage.engine),
                            platforms=DELIVERED, default_timezone=s.timezone,
                            limit=s.max_subscriptions_per_chat,
                            max_chars=s.max_question_chars, now=delivery_clock(),
                            read_subject=subject_reader(app), evaluate=alert_evaluator(app))


def chart_renderer() -> Callable[[Any], bytes]:
    """What draws a table's chart in the chat adapters (matplotlib, loaded on the first
    chart, not here: a bot that never shows a table never loads it)."""
    from adapters.charts import render_chart

    return render_chart


def redact_in_logs(*secrets: str) -> None:
    """Make sure these values are redacted too (bot.wiring.log_setup redacts every setting's secret
    already, in messages and tracebacks alike)."""
    from bot.wiring.log_setup import add_secrets

    add_secrets(*secrets)
