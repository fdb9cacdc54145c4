"""bolt's own log lines must not quote request bodies (they carry users' questions).

bolt logs a request with a bad signature at INFO with its whole body, and an unhandled request
with most of it. Every bolt logger takes its filters from the base logger the app is given, so
a filter there (and on the root handlers, for loggers bolt made earlier) cuts the payload off.
"""

from __future__ import annotations

import logging

BASE_LOGGER = "ricorda.slack.bolt"
_PAYLOAD_MARKERS = ("body", "{", "request (")


class NoPayloads(logging.Filter):
    """Keep the line, drop what follows its first parenthesis when it quotes a request."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not record.name.startswith(("slack_bolt", BASE_LOGGER)):
            return True
        message = record.getMessage()
        if any(marker in message for marker in _PAYLOAD_MARKERS):
            head = message.split(" (", 1)[0].split("\n", 1)[0]
            record.msg, record.args = f"{head} [request payload not logged]", None
        return True


def bolt_logger() -> logging.Logger:
    """The base logger for bolt apps, with the filter installed (once)."""
    logger = logging.getLogger(BASE_LOGGER)
    if not any(isinstance(f, NoPayloads) for f in logger.filters):
        logger.addFilter(NoPayloads())
    for handler in logging.getLogger().handlers:
        if not any(isinstance(f, NoPayloads) for f in handler.filters):
            handler.addFilter(NoPayloads())
    return logger
