"""Logging for every ricorda process, with secrets redacted by construction.

One handler on the root logger, so every library's logger (python-telegram-bot, httpx,
slack_bolt, slack_sdk, aiohttp, uvicorn, chromadb) goes through it, and a formatter that
redacts the *whole formatted record*: the message, the arguments, the traceback and the
exception text (PTB's `InvalidToken` quotes the token it was refused). Two nets, both applied:

- the exact secret values from the settings (tokens, signing secrets, API keys, the database
  password), however they are spelled in a message;
- token shapes (Telegram `123:abc...`, Slack `xox?-`/`xapp-`, `Bearer ...`, a password in a
  URL), so a secret that reached a log line some other way is still not printed.

Uncaught exceptions (main thread and other threads) are logged through the same handler, with
the traceback only at DEBUG.
"""

from __future__ import annotations

import logging
import re
import sys
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from bot.settings.model import Settings

REDACTED = "[redacted]"
QUIET_BELOW_DEBUG = (
    "httpx", "httpcore", "urllib3", "chromadb.telemetry", "alembic.runtime.plugins",
)
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
SHAPES = (
    re.compile(r"\b\d{3,20}:[A-Za-z0-9_-]{20,}"),  # Telegram bot token
    re.compile(r"\bxox[abposre]-[A-Za-z0-9-]{4,}"),  # Slack bot/user tokens
    re.compile(r"\bxapp-[A-Za-z0-9-]{4,}"),  # Slack app-level token
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]{8,}"),  # Authorization headers
    re.compile(r"(?i)((?:api[_-]?key|token|secret|password)[\"']?\s*[=:]\s*[\"']?)[^\s\"'&,;]{6,}"),
    re.compile(r"(://[^/\s:@]*:)[^@\s/]+(?=@)"),  # a password inside a URL
)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` without any of `secrets` and without anything shaped like a token."""
    for secret in sorted({s for s in secrets if s and len(s) >= 4}, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    for shape in SHAPES:
        text = shape.sub(lambda m: (m.group(1) if m.groups() else "") + REDACTED, text)
    return text


class RedactingFormatter(logging.Formatter):
    """Formats as usual, then redacts the result: the traceback is part of the result."""

    def __init__(self, fmt: str = FORMAT, *, secrets: Iterable[str] = (), tracebacks: bool = False):
        super().__init__(fmt)
        self.secrets: set[str] = set(secrets)
        self.tracebacks = tracebacks

    def format(self, record: logging.LogRecord) -> str:
        if not self.tracebacks and (record.exc_info or record.exc_text or record.stack_info):
            record = logging.makeLogRecord(record.__dict__)
            exc = record.exc_info[1] if record.exc_info else None
            if exc is not None:  # the exception's one-line summary instead of its traceback
                record.msg = f"{record.getMessage()} ({type(exc).__name__}: {exc})"
                record.args = None
            record.exc_info, record.exc_text, record.stack_info = None, None, None
        return redact(super().format(record), self.secrets)


def secret_values(settings: Settings) -> set[str]:
    """Every secret the settings hold, the database password included."""
    from urllib.parse import unquote, urlsplit

    from bot.settings.model import SECRET_FIELDS

    values = {
        v.get_secret_value() for f in SECRET_FIELDS if (v := getattr(settings, f, None)) is not None
    }
    if settings.database_url:
        password = urlsplit(settings.database_url).password
        if password:
            values |= {password, unquote(password)}
    return {v for v in values if v}


_handler: logging.Handler | None = None


def configure_logging(
    level: str, *, secrets: Iterable[str] = (), stream: TextIO | None = None
) -> RedactingFormatter:
    """The one root handler (replacing any earlier one of ours), at `level`; tracebacks only
    at DEBUG. Also routes warnings and uncaught exceptions through it."""
    global _handler
    root = logging.getLogger()
    formatter = RedactingFormatter(secrets=secrets, tracebacks=level == "DEBUG")
    if _handler is not None:
        root.removeHandler(_handler)
    for other in list(root.handlers):  # e.g. an earlier basicConfig: it would not redact
        if isinstance(other, logging.StreamHandler) and other.stream in (sys.stderr, sys.stdout):
            root.removeHandler(other)
    _handler = logging.StreamHandler(stream or sys.stderr)
    _handler.setFormatter(formatter)
    root.addHandler(_handler)
    root.setLevel(level)
    logging.captureWarnings(True)
    if level != "DEBUG":  # libraries that log each request (or their set-up) at INFO
        for name in QUIET_BELOW_DEBUG:
            logging.getLogger(name).setLevel(logging.WARNING)
    threading.excepthook = _thread_excepthook
    return formatter


def add_secrets(*values: str | None) -> None:
    """More values to redact (e.g. derived at run time)."""
    if _handler is not None and isinstance(_handler.formatter, RedactingFormatter):
        _handler.formatter.secrets.update(v for v in values if v)


def _thread_excepthook(args: threading.ExceptHookArgs) -> None:
    if args.exc_type is SystemExit:
        return
    name = args.thread.name if args.thread else "?"
    logging.getLogger("ricorda").error(
        "thread %s stopped", name, exc_info=(args.exc_type, args.exc_value, args.exc_traceback)
    )


def redact_known(text: str) -> str:
    """`text` without the secrets the configured handler knows, nor token shapes."""
    known: set[str] = set()
    if _handler is not None and isinstance(_handler.formatter, RedactingFormatter):
        known = _handler.formatter.secrets
    return redact(text, known)


def report_unexpected(exc: BaseException) -> int:
    """The one line for an error nobody anticipated (exit 1); its traceback only at DEBUG."""
    debug = logging.getLogger().isEnabledFor(logging.DEBUG) and _handler is not None
    if debug:
        logging.getLogger("ricorda").error("unexpected error", exc_info=exc)
    line = f"error: {type(exc).__name__}: {exc}".splitlines()[0][:500]
    print(redact_known(line) + ("" if debug else " (run with --debug for details)"),
          file=sys.stderr)
    return 1
