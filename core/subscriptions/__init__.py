"""Subscriptions and scheduled deliveries: schedules in plain words (en/it/zh), when one is
next due in the chat's time zone, and alert conditions; delivering them is core.scheduled.

The modules are imported by name (`from core.subscriptions.schedule import ...`); none is
imported here, so importing one loads only what it needs."""

__all__ = [
    "alert_rules",
    "desk",
    "schedule",
]
