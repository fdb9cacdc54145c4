"""What the chat's subscription commands are handed (`ChatServices.subscriptions`): the store,
the bounds, the default zone and the clock, and how a schedule is said back to the chat."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field

from core.catalog.lookup import say
from core.catalog.subscriptions import WEEKDAY_NAMES
from core.contracts.subscriptions import SubscriptionRecord, SubscriptionStore
from core.subscriptions.schedule import MONTHLY, WEEKLY, Schedule, next_due, parse_spec, zone


@dataclass
class SubscriptionDesk:
    store: SubscriptionStore
    default_timezone: str = "UTC"
    limit: int = 20  # subscriptions one chat may hold
    max_chars: int = 2000  # a /subscribe request's length, checked before it is read
    # the scheduler's clock (UTC): a test's controllable one, else the machine's
    now: Callable[[], dt.datetime] = field(default=lambda: dt.datetime.now(dt.UTC))

    def zone_of(self, chat: str) -> str:
        """The chat's own zone (/timezone), else the default."""
        return self.store.chat_timezone(chat) or self.default_timezone


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
