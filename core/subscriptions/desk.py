"""What the chat's subscription commands are handed (`ChatServices.subscriptions`): the store,
the bounds, the default zone and the clock, and how a schedule is said back to the chat."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from core.catalog.lookup import say
from core.catalog.subscriptions import WEEKDAY_NAMES
from core.contracts.subscriptions import (
    PAUSED,
    AlertRecord,
    SubscriptionRecord,
    SubscriptionStore,
)
from core.contracts.types import Answer
from core.subscriptions.alert_rules import Check
from core.subscriptions.schedule import MONTHLY, WEEKLY, Schedule, next_due, parse_spec, zone


@dataclass
class SubscriptionDesk:
    store: SubscriptionStore
    # the platforms `serve` delivers to (bot.serve.scheduler.TARGETS): elsewhere the commands
    # are not offered, rather than accepted and never delivered
    platforms: frozenset[str] = frozenset({"telegram", "slack", "mattermost", "teams"})
    default_timezone: str = "UTC"
    limit: int = 20  # subscriptions one chat may hold
    max_chars: int = 2000  # a /subscribe request's length, checked before it is read
    # the scheduler's clock (UTC): a test's controllable one, else the machine's
    now: Callable[[], dt.datetime] = field(default=lambda: dt.datetime.now(dt.UTC))
    # an alert's subject read by the question parser, for a chat: (metric, entity, channel),
    # or None when it names no one metric the chat may see (run on the core worker)
    read_subject: Callable[[str, str], tuple[str, str, str] | None] | None = None
    # an alert checked against the facts now (core.scheduled.alert_watch.AlertWatch)
    evaluate: Callable[[AlertRecord], Check | None] | None = None

    def zone_of(self, chat: str) -> str:
        """The chat's own zone (/timezone), else the default."""
        return self.store.chat_timezone(chat) or self.default_timezone


def unreadable(answer: Answer) -> bool:
    """The answer asks which metric is meant: the question names none the bot knows (a
    subscription to it would deliver only that question back)."""
    return not answer.succeeded and any(o.slot == "metric" for o in answer.options)


def describe(schedule: Schedule, language: str, zone_name: str) -> str:
    """"Every Monday at 09:00 Europe/Rome", in the reader's language."""
    fields = {"time": f"{schedule.at:%H:%M}", "zone": zone_name}
    if schedule.kind == WEEKLY:
        names = WEEKDAY_NAMES.get(language, WEEKDAY_NAMES["en"])
        return say("schedule_weekly", language, day=names[schedule.weekday or 0], **fields)
    if schedule.kind == MONTHLY:
        return say("schedule_monthly", language, day=schedule.day, **fields)
    return say(f"schedule_{schedule.kind}", language, **fields)


def describe_record(record: SubscriptionRecord, language: str) -> str:
    return describe(parse_spec(record.schedule), language, record.timezone)


def next_after(record: SubscriptionRecord, after: dt.datetime) -> dt.datetime:
    """When `record` is due next after `after`, in its own zone (the store's `next_after`)."""
    return next_due(parse_spec(record.schedule), after, zone(record.timezone))


def subscription_line(record: SubscriptionRecord, language: str, question: str) -> str:
    """"Every Monday at 09:00 Europe/Rome: <question>", "(paused)" after a paused one."""
    paused = f" {say('subscription_paused_mark', language)}" if record.status == PAUSED else ""
    return f"{describe_record(record, language)}: {question}{paused}"


def admin_listing(records: Sequence[SubscriptionRecord], language: str, *,
                  viewer_cleared: bool, is_cleared: Callable[[str], bool]) -> str:
    """Every subscription, for an admin: a question made in a cleared chat is shown only to a
    cleared viewer (everyone in the chat the listing is shown in reads it), marked
    "[restricted]"; to anyone else it is a placeholder."""
    lines = [say("subscriptions_all_header", language, n=len(records))]
    for r in records:
        restricted = is_cleared(r.chat)
        if restricted and not viewer_cleared:
            question = say("subscription_restricted", language)
        else:
            question = f"[restricted] {r.question}" if restricted else r.question
        lines.append(f"#{r.id} {r.chat} · {subscription_line(r, language, question)}")
    return "\n".join(lines)
