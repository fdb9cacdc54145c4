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
import os
from pathlib import Path
from typing import Annotated

import typer

from bot.cli.output import fail, open_app_or_exit, safe

SINCE_HELP = "How far back: 7d, 24h, 2w, a date (YYYY-MM-DD) or all."


glossary_app = typer.Typer(help="Edit the glossary file (then `ricorda ingest` it).",
                           no_args_is_help=True)


turns_app = typer.Typer(help="The questions people asked, as stored.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.command("report")(report)
    app.add_typer(glossary_app, name="glossary")
    app.add_typer(turns_app, name="turns")


def report(
    ctx: typer.Context,
    since: Annotated[str, typer.Option("--since", help=SINCE_HELP)] = "7d",
    as_json: Annotated[bool, typer.Option("--json", help="The report as JSON.")] = False,
    as_csv: Annotated[bool, typer.Option("--csv", help="The report as CSV rows.")] = False,
) -> None:
    """Questions asked by outcome (each cache level and the planner, asked back, not
    understood, refused, no figure, rejected with ✗ and the reason given), the words the
    glossary lacks with the `glossary add-name` that adds one, the slowest answers, per chat."""
    from bot.wiring.turn_reports import read_report
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
        app_.core.flush_learning()  # the answers given so far are all in the turns table
        result = read_report(app_.storage.engine, app_.core.glossary, start, cleared=True)
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


@glossary_app.command("add-name")
def glossary_add_name(
    ctx: typer.Context,
    metric: Annotated[str, typer.Argument(help="The metric's code, e.g. REVENUE.")],
    name: Annotated[str, typer.Argument(help="The name to add, e.g. tills.")],
    file: Annotated[Path | None, typer.Option(
        "--file", help="The glossary file (default: the one last ingested into the data "
        "dir, else ./glossary.toml).")] = None,
) -> None:
    """Add a name people use to a metric's names, in the glossary file itself (comments,
    order and layout kept). The bot reads it at the next `ricorda ingest`."""
    from bot.kb.add_name import add_metric_name
    from core.contracts.errors import ConfigError

    path = file or _ingested_glossary(ctx) or Path("glossary.toml")
    try:
        typer.echo(safe(add_metric_name(path, metric, name)))
    except ConfigError as exc:
        fail(str(exc), code=2)


def _ingested_glossary(ctx: typer.Context) -> Path | None:
    """Where the glossary loaded in the data dir was read from, when that file is still there."""
    app_ = open_app_or_exit(ctx)
    try:
        stored = app_.storage.glossaries.load()
    finally:
        app_.close()
    if stored is None or not stored.source_path:
        return None
    path = Path(stored.source_path)
    return path if path.is_file() else None


@turns_app.command("export")
def turns_export(
    ctx: typer.Context,
    since: Annotated[str, typer.Option("--since", help=SINCE_HELP)] = "all",
    as_json: Annotated[bool, typer.Option("--json", help="JSON (default: CSV).")] = False,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Write to this new file (made readable by you only), not stdout."
    )] = None,
    include_restricted: Annotated[bool, typer.Option(
        "--include-restricted", help="Also the text of questions asked from cleared chats "
        "(for cleared readers only); without it they are '(restricted question)'.")] = False,
) -> None:
    """Every turn kept (question, answer, who, which chat, outcome, ✗ and the reason given),
    as CSV or JSON. Questions asked from chats cleared for restricted data keep their counts
    and ids but not their text unless --include-restricted."""
    from bot.wiring.turn_reports import export_rows
    from core.chat.turn_report import EXPORT_COLUMNS, parse_since
    from core.contracts.errors import RicordaError

    try:
        start = parse_since(since, dt.datetime.now(dt.UTC))
    except ValueError as exc:
        fail(str(exc), code=2)
        return
    if out is not None and out.exists():
        fail(f"{out} exists: give a new file", code=2)
    app_ = open_app_or_exit(ctx)
    try:
        app_.core.flush_learning()
        rows = export_rows(app_.storage.engine, start, cleared=include_restricted)
    except RicordaError as exc:
        fail(str(exc))
        return
    finally:
        app_.close()
    if as_json:
        text = json.dumps(rows, ensure_ascii=False, indent=2) + "\n"
    else:
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=EXPORT_COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
        text = buffer.getvalue()
    if out is None:
        typer.echo(text, nl=False)
        return
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as file:
        file.write(text)
    typer.echo(f"{len(rows)} turn(s) written to {safe(str(out))}", err=True)
