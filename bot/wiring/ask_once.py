"""`ricorda ask`: one question, one printed answer, from any process that wants one.

Both the typer command and the quick entry (bot.entry) call `ask_once`, so the two print
exactly the same thing and exit with the same code.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

# json.dumps escapes C0 controls but writes DEL, C1 controls (one-byte CSI/OSC), line
# separators and bidi overrides as they are; JSON's own \\u escapes keep them off the terminal.
_JSON_UNSAFE = re.compile(r"[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def ask_once(
    question: str,
    *,
    data_dir: Path | None = None,
    as_json: bool = False,
    chat: str | None = None,
    reference_date: str | None = None,
    debug: bool = False,
) -> int:
    """Answer `question` and print it (text or the JSON contract); 0, or `error: ...` and 2 for
    a configuration mistake, 1 for anything else.

    With `chat`, the question continues that chat's conversation (a follow-up such as "and
    Italy?" inherits the previous answer's slots, core.question.conversation); without, it stands
    alone
    in chat console:local, so scripted asks never depend on each other."""
    from bot.wiring.startup import open_app
    from core.contracts.errors import ConfigError, RicordaError
    from core.contracts.types import Request
    from core.question.conversation import STANDALONE

    bad_date = reference_date_problem(reference_date)
    if bad_date:  # the option, not the RICORDA_REFERENCE_DATE setting it overrides
        return _error(ConfigError(bad_date), 2)
    try:
        app = open_app(data_dir, one_shot=True, debug=debug, reference_date=reference_date)
    except RicordaError as exc:  # the settings or the database: exit 2 for a setting
        return _error(exc, 2 if isinstance(exc, ConfigError) else 1)
    try:
        answer = app.core.pipeline.answer(
            Request(text=question, chat=chat or "console:local", user="cli",
                    reference_date=app.core.today(), conversation="" if chat else STANDALONE)
        )
    except RicordaError as exc:
        return _error(exc, 1)
    finally:
        app.close()
    if as_json:
        print(_json_line(answer.to_dict()))
        return 0
    from adapters.console import render_answer

    print(render_answer(answer))
    return 0


def reference_date_problem(value: str | None) -> str | None:
    """What is wrong with a `--reference-date`, named as the option the user typed."""
    import datetime as dt

    if value is None:
        return None
    try:
        dt.date.fromisoformat(value)
    except ValueError:
        return f"--reference-date {value!r} is not a date: write it as YYYY-MM-DD"
    return None


def _error(exc: Exception, code: int) -> int:
    from adapters.console import terminal_safe
    from bot.wiring.log_setup import redact_known

    print(terminal_safe(f"error: {redact_known(str(exc))}"), file=sys.stderr)
    return code


def _json_line(obj: dict[str, Any]) -> str:
    """One JSON object, readable non-ASCII text kept, every control character escaped."""
    text = json.dumps(obj, ensure_ascii=False)
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
