"""The `ricorda` console script.

A plain `ricorda ask "..."` is the command scripts call in a loop, so it is answered here
without loading typer (whose option handling alone costs ~0.1 s) and without the interpreter's
module teardown (~0.1 s). Anything else, and any `ask` line this small parser does not fully
understand (--help, a typo, an unknown option), goes to the typer CLI in bot.cli.commands, which has
the help texts and the error messages.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import sys
from typing import NamedTuple


class QuickAsk(NamedTuple):
    question: str
    data_dir: str | None
    as_json: bool
    chat: str | None
    reference_date: str | None
    debug: bool = False


class _NotQuick(Exception):
    """The command line is not a plain `ask`: typer takes it."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise _NotQuick(message)


def _parser() -> argparse.ArgumentParser:
    """The same names and defaults as `ask` in bot.cli.commands (a test keeps the two in step)."""
    top = _Parser(prog="ricorda", add_help=False, allow_abbrev=False)
    top.add_argument("--data-dir")
    top.add_argument("--debug", action="store_true")
    top.add_argument("--version", action="store_true")
    commands = top.add_subparsers(dest="command", required=True, parser_class=_Parser)
    ask = commands.add_parser("ask", add_help=False, allow_abbrev=False)
    ask.add_argument("question")
    ask.add_argument("--json", dest="as_json", action="store_true")
    ask.add_argument("--chat", default=None)
    ask.add_argument("--reference-date")
    return top


def parse_quick_ask(argv: list[str]) -> QuickAsk | None:
    """A plain `ask` command line, or None when typer should handle it."""
    if "ask" not in argv or any(a in ("-h", "--help") for a in argv):
        return None
    try:
        ns = _parser().parse_args(argv)
    except _NotQuick:
        return None
    if ns.version:
        return None
    # without --data-dir, settings read RICORDA_DATA_DIR themselves, as on the typer path
    return QuickAsk(ns.question, ns.data_dir, ns.as_json, ns.chat, ns.reference_date, ns.debug)


def main() -> None:
    from bot.models.threads import limit_threads

    limit_threads()  # before numpy loads anywhere in this process (bot.models.threads says why)
    quick = parse_quick_ask(sys.argv[1:])
    if quick is None:
        from bot.cli.commands import app

        try:
            app()
        except Exception as exc:  # one line, never a traceback with a secret in it
            from bot.wiring.log_setup import report_unexpected

            _exit_now(report_unexpected(exc))
        return
    gc.disable()  # one short-lived process: collections only slow its imports (~35 ms)
    from pathlib import Path

    from bot.wiring.ask_once import ask_once

    try:
        code = ask_once(
            quick.question,
            data_dir=None if quick.data_dir is None else Path(quick.data_dir),
            as_json=quick.as_json,
            chat=quick.chat,
            reference_date=quick.reference_date,
            debug=quick.debug,
        )
        sys.stdout.flush()
    except BrokenPipeError:  # `ricorda ask ... | head -0`: the reader went away
        code = 1
    except KeyboardInterrupt:  # Ctrl-C while it answers: no traceback, as on typer's path
        print("Aborted!", file=sys.stderr)
        code = 1
    except Exception as exc:  # one line, never a traceback with a secret in it
        from bot.wiring.log_setup import report_unexpected

        code = report_unexpected(exc)
    _exit_now(code)


def _exit_now(code: int) -> None:
    """Exit without tearing every module down: the answer is out and the database closed."""
    import logging

    logging.shutdown()
    with contextlib.suppress(OSError):
        sys.stderr.flush()
    os._exit(code)
