"""`ricorda report`, `ricorda turns export` and `ricorda glossary add-name`: what people asked
and could not get, and the glossary name that fixes it (docs/keeping-right.md).

Registered on the main CLI by `register(app)` (bot.cli). The CLI is a cleared viewer: it shows
questions asked from cleared chats (marked "[restricted]"), as `ricorda fastpaths list` does.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
from typing import TYPE_CHECKING, Annotated

import typer

from bot.cli_output import fail, open_app_or_exit, safe

if TYPE_CHECKING:
    from bot.build import App
    from core.chat.turn_report import Report

SINCE_HELP = "How far back: 7d, 24h, 2w, a date (YYYY-MM-DD) or all."


def register(app: typer.Typer) -> None:
    app.command("report")(report)


def admin_report(app: App, since: dt.datetime | None, *, cleared: bool) -> Report:
    """The report over the turns kept since `since`, as a viewer of that clearance sees it
    (the CLI, and the `report` admin command in a chat)."""
    from core.chat.turn_report import ReportTurn, build_report
    from core.knowledge.names import NameIndex
    from core.question.no_figure import missing_subject
    from storage.turn_report_reader import turns_since

    app.core.flush_learning()  # the answers given so far are all in the turns table
    rows = [ReportTurn(*row) for row in turns_since(app.storage.engine, since)]
    names = NameIndex(app.core.glossary)

    def subject(question: str, day: dt.date, language: str) -> str:
        return missing_subject(question, names, day, language)

    return build_report(rows, cleared=cleared, since=since, subject=subject)


def report(
    ctx: typer.Context,
    since: Annotated[str, typer.Option("--since", help=SINCE_HELP)] = "7d",
    as_json: Annotated[bool, typer.Option("--json", help="The report as JSON.")] = False,
    as_csv: Annotated[bool, typer.Option("--csv", help="The report as CSV rows.")] = False,
) -> None:
    """Questions asked by outcome (each cache level and the planner, asked back, not
    understood, refused, no figure, rejected with ✗ and the reason given), the words the
    glossary lacks with the `glossary add-name` that adds one, the slowest answers, per chat."""
    from core.chat.turn_report import CSV_COLUMNS, parse_since, report_rows, report_text
    from core.contracts.errors import RicordaError

    if as_json and as_csv:
        fail("choose one of --json and --csv", code=2)
    try:
        start = parse_since(since, dt.datetime.now(dt.UTC))
    except ValueError as exc:
        fail(str(exc), code=2)
        return
    app_ = open_app_or_exit(ctx)
    try:
        result = admin_report(app_, start, cleared=True)
    except RicordaError as exc:
        fail(str(exc))
        return
    finally:
        app_.close()
    if as_json:
        typer.echo(json.dumps(result.as_json(), ensure_ascii=False, indent=2))
    elif as_csv:
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        writer.writerows(report_rows(result))
        typer.echo(out.getvalue(), nl=False)
    else:
        typer.echo(safe(report_text(result)))

