"""Subscriptions (a question delivered to a chat on a schedule) and their deliveries: the
records and the store core reads them through (storage/subscription_store.py implements it).

Exactly once is the store's job: `plan_due` turns each due occurrence into one delivery row
(unique per subscription and due time, whichever replica gets there first), and
`claim_delivery` hands a delivery to one replica at a time (a row lock skipped by the others on
PostgreSQL, a conditional update on both), for a lease; a replica that dies holding it leaves
it to another once the lease has run out.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

ACTIVE, PAUSED, CANCELLED = "active", "paused", "cancelled"
PENDING, SENDING, SENT, FAILED, MISSED = "pending", "sending", "sent", "failed", "missed"


@dataclass(frozen=True)
class SubscriptionRecord:
    id: int
    platform: str  # "telegram": which runner delivers it
    chat: str  # "telegram:-100…": where it goes, whose clearance applies at delivery
    user: str  # who subscribed ("telegram:42")
    language: str  # the subscriber's, for the sentences around the answer
    schedule: str  # core.subscriptions.schedule.Schedule.spec()
    timezone: str  # the chat's zone when it was made (a later change applies on the next run)
    question: str
    status: str
    next_run_at: dt.datetime  # UTC


@dataclass(frozen=True)
class DeliveryRecord:
    id: int
    subscription: SubscriptionRecord
    due_at: dt.datetime  # UTC: the scheduled time this delivery is for
    late: bool  # planned after its time (a replica was down): sent with a note
    attempts: int
    status: str = PENDING
    error: str = ""


@dataclass(frozen=True)
class AlertRecord:
    id: int
    platform: str
    chat: str
    user: str
    language: str
    condition: str  # as the chat wrote it
    metric: str
    entity: str
    channel: str
    kind: str  # core.subscriptions.alert_rules: falls | rises | above | below
    threshold: str  # a Decimal, as written
    status: str
    triggered: bool  # the condition held when last checked


class SubscriptionStore(Protocol):
    def add(self, *, platform: str, chat: str, user: str, language: str, schedule: str,
            timezone: str, question: str, next_run_at: dt.datetime,
            limit: int) -> SubscriptionRecord | None:
        """The new subscription; None when the chat already holds `limit` active ones."""
        ...

    def get(self, subscription_id: int) -> SubscriptionRecord | None: ...

    def for_chat(self, chat: str) -> Sequence[SubscriptionRecord]:
        """A chat's active and paused subscriptions, oldest first."""
        ...

    def listing(self, limit: int) -> Sequence[SubscriptionRecord]:
        """Every active or paused subscription, oldest first, at most `limit`."""
        ...

    def cancel(self, chat: str, subscription_id: int) -> SubscriptionRecord | None:
        """Cancel one of `chat`'s subscriptions; None when the chat has no such one."""
        ...

    def pause(self, subscription_id: int) -> None: ...

    def chat_timezone(self, chat: str) -> str | None: ...

    def set_chat_timezone(self, chat: str, timezone: str) -> None: ...

    def plan_due(self, now: dt.datetime, *,
                 next_after: Callable[[SubscriptionRecord, dt.datetime], dt.datetime],
                 grace: dt.timedelta, late_after: dt.timedelta,
                 batch: int = 100) -> tuple[int, int]:
        """Every active subscription due at `now` gets one delivery row for its latest due
        time (one older than `grace` is recorded as `missed` and not sent) and its next run;
        (deliveries planned, deliveries missed) by this call."""
        ...

    def claim_delivery(self, now: dt.datetime, *, owner: str, lease: dt.timedelta,
                       platforms: Sequence[str]) -> DeliveryRecord | None:
        """One delivery to one of `platforms` due for sending (pending and due, or its
        holder's lease run out), now held by `owner`; None when there is none."""
        ...

    def delivered(self, delivery_id: int, now: dt.datetime) -> None: ...

    def failed(self, delivery_id: int, now: dt.datetime, error: str, *,
               retry_at: dt.datetime | None) -> None:
        """A send that failed: tried again at `retry_at`, or failed for good (None)."""
        ...

    def deliveries(self, subscription_id: int | None = None,
                   limit: int = 1000) -> Sequence[DeliveryRecord]:
        """The record of deliveries, newest first (admins and tests read it)."""
        ...

    # -- alerts --------------------------------------------------------------------------------

    def add_alert(self, *, platform: str, chat: str, user: str, language: str, condition: str,
                  metric: str, entity: str, channel: str, kind: str, threshold: str,
                  limit: int) -> AlertRecord | None:
        """The new alert; None when the chat already holds `limit` active ones."""
        ...

    def alerts(self, chat: str | None = None, limit: int = 1000) -> Sequence[AlertRecord]:
        """Active alerts (of one chat, or every chat's), oldest first."""
        ...

    def cancel_alert(self, chat: str, alert_id: int) -> AlertRecord | None: ...

    def flip(self, alert_id: int, holds: bool) -> bool:
        """Record whether the condition holds now; True only for the one caller that changed
        it (across replicas): the one that sends the message when it becomes true."""
        ...
