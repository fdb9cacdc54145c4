"""Subscriptions and scheduled deliveries: schedules in plain words (en/it/zh), when one is
next due in the chat's time zone, and the delivery of a subscribed question on time.

The modules are imported by name (`from core.subscriptions.schedule import ...`); none is
imported here, so importing one loads only what it needs."""

__all__ = [
    "alert_rules",
    "alert_watch",
    "delivery",
    "desk",
    "schedule",
]
