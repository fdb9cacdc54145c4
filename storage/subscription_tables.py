"""Tables of subscriptions (issue 36): what each chat subscribed to, each delivery's record,
and each chat's time zone.

- `subscriptions`: one row per subscription; `next_run_at` (UTC) is when it is next due and is
  advanced in the same transaction that plans the delivery, so a due time is planned once.
- `subscription_deliveries`: one row per (subscription, due time), unique: the queue replicas
  claim from (`status`, `next_try_at`, `lease_until`, `owner`) and the record an admin reads
  (sent, failed with the platform's error, missed after the grace period).
- `chat_settings`: a chat's own settings: its time zone, and where the platform takes the
  messages the bot writes first (Teams' service URL).
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import Boolean, Column, Index, Integer, String, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from storage.columns import UtcDateTime, utcnow


class SubscriptionRow(SQLModel, table=True):
    __tablename__ = "subscriptions"
    __table_args__ = (Index("ix_subscriptions_due", "status", "next_run_at"),)

    id: int | None = Field(default=None, primary_key=True)
    platform: str = Field(sa_column=Column(String(16), nullable=False))
    chat: str = Field(sa_column=Column(String(128), nullable=False, index=True))
    user: str = Field(sa_column=Column(String(128), nullable=False))
    language: str = Field(sa_column=Column(String(8), nullable=False))
    schedule: str = Field(sa_column=Column(String(32), nullable=False))
    timezone: str = Field(sa_column=Column(String(64), nullable=False))
    question: str = Field(sa_column=Column(Text, nullable=False))
    status: str = Field(sa_column=Column(String(16), nullable=False))
    next_run_at: dt.datetime = Field(sa_column=Column(UtcDateTime, nullable=False))
    created_at: dt.datetime = Field(default_factory=utcnow,
                                    sa_column=Column(UtcDateTime, nullable=False))


class SubscriptionDeliveryRow(SQLModel, table=True):
    __tablename__ = "subscription_deliveries"
    __table_args__ = (
        UniqueConstraint("subscription_id", "due_at", name="uq_subscription_delivery_due"),
        Index("ix_subscription_deliveries_queue", "status", "next_try_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    subscription_id: int = Field(sa_column=Column(Integer, nullable=False, index=True))
    due_at: dt.datetime = Field(sa_column=Column(UtcDateTime, nullable=False))
    planned_at: dt.datetime = Field(sa_column=Column(UtcDateTime, nullable=False))
    late: bool = Field(default=False, sa_column=Column(Boolean, nullable=False, default=False))
    status: str = Field(sa_column=Column(String(16), nullable=False))
    attempts: int = Field(default=0, sa_column=Column(Integer, nullable=False, default=0))
    next_try_at: dt.datetime = Field(sa_column=Column(UtcDateTime, nullable=False))
    lease_until: dt.datetime | None = Field(default=None,
                                            sa_column=Column(UtcDateTime, nullable=True))
    owner: str = Field(default="", sa_column=Column(String(64), nullable=False, default=""))
    sent_at: dt.datetime | None = Field(default=None, sa_column=Column(UtcDateTime, nullable=True))
    error: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))


class ChatSettingRow(SQLModel, table=True):
    __tablename__ = "chat_settings"

    chat: str = Field(sa_column=Column(String(128), primary_key=True))
    timezone: str | None = Field(default=None, sa_column=Column(String(64), nullable=True))
    # where the platform takes messages for this chat when the bot writes first (Teams: the
    # conversation's service URL, remembered when the chat subscribes)
    service_url: str | None = Field(default=None, sa_column=Column(String(512), nullable=True))


class AlertRow(SQLModel, table=True):
    """An alert: a condition on one metric of one entity, and whether it held when last
    checked (`triggered`): a message goes when that flips to true, by a conditional UPDATE
    that one replica wins."""

    __tablename__ = "alerts"

    id: int | None = Field(default=None, primary_key=True)
    platform: str = Field(sa_column=Column(String(16), nullable=False))
    chat: str = Field(sa_column=Column(String(128), nullable=False, index=True))
    user: str = Field(sa_column=Column(String(128), nullable=False))
    language: str = Field(sa_column=Column(String(8), nullable=False))
    condition: str = Field(sa_column=Column(Text, nullable=False))  # as the chat wrote it
    metric: str = Field(sa_column=Column(String(64), nullable=False))
    entity: str = Field(sa_column=Column(String(64), nullable=False))
    channel: str = Field(sa_column=Column(String(64), nullable=False))
    kind: str = Field(sa_column=Column(String(8), nullable=False))
    threshold: str = Field(sa_column=Column(String(40), nullable=False))  # a Decimal, exact
    status: str = Field(sa_column=Column(String(16), nullable=False))
    triggered: bool = Field(default=False, sa_column=Column(Boolean, nullable=False,
                                                             default=False))
    created_at: dt.datetime = Field(default_factory=utcnow,
                                    sa_column=Column(UtcDateTime, nullable=False))
