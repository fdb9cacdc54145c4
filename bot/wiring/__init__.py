"""The composition root: settings -> storage -> core -> adapters, built in one explicit order
(bot.wiring.build), and a process opened on it (startup, logging, one `ask`).

The modules are imported by name; none is imported here, so importing one loads only what it
needs."""

__all__ = [
    "alerts",
    "ask_once",
    "build",
    "chat",
    "clock",
    "core_services",
    "disclosure_report",
    "document_services",
    "log_setup",
    "maintenance",
    "metrics",
    "startup",
    "storage_services",
    "turn_reports",
    "version",
    "withheld_guard",
]
