"""What every chat platform shares: the turn flow, taps, admin commands.

The modules are imported by name (`from core.chat.admin import ...`); none is
imported here, so importing one loads only what it needs."""

__all__ = [
    "admin",
    "admin_commands",
    "callback_token",
    "chat_ports",
    "chat_replies",
    "chat_turn",
    "delivery",
    "dispatch",
    "feedback_reasons",
    "option_tap",
    "oversized",
    "reactions",
    "subscribe_flow",
    "turn_report",
]
