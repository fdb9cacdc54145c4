"""What the bot says first: subscriptions delivered on time and alerts sent when they fire,
through the same chat turns as an answer (core.chat). The rules they follow -- schedules,
alert conditions, their wording -- are in core.subscriptions, below chat.

The modules are imported by name (`from core.scheduled.deliveries import ...`); none is
imported here, so importing one loads only what it needs."""

__all__ = [
    "alert_watch",
    "deliveries",
]
