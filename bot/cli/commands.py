"""The `ricorda` command line (typer). A plain `ricorda ask` is answered by bot.entry without it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from bot.cli.output import fail as _fail
from bot.cli.output import fail_on as _fail_on
from bot.cli.output import open_app_or_exit as _open
from bot.cli.output import print_result as _print_result
from bot.cli.output import safe as _safe

if TYPE_CHECKING:
    pass

app = typer.Typer(
    name="ricorda",
    help="Question answering over your company's facts and documents, for Telegram, Slack, "
    "Microsoft Teams and the console.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

DataDir = Annotated[
    Path | None,
    typer.Option(
        "--data-dir",
        envvar="RICORDA_DATA_DIR",
        help="Folder holding all state (database, vectors). Created if missing.",
    ),
]


def _version(value: bool) -> None:
    if value:
        from bot.wiring.version import version

        typer.echo(f"ricorda {version()}")
        raise typer.Exit()


@app.callback()
def main_options(
    ctx: typer.Context,
    data_dir: DataDir = None,
    debug: Annotated[
        bool, typer.Option("--debug", help="Log at DEBUG, with tracebacks (RICORDA_LOG_LEVEL).")
    ] = False,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    ctx.obj = {"data_dir": data_dir, "debug": debug}


@app.command()
def ingest(
    ctx: typer.Context,
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            help="glossary.toml, fact tables (.csv/.xlsx) and document folders, in any order; "
            "none: reload the sources the stored glossary declares ([[facts]])."
        ),
    ] = None,
    prune: Annotated[bool, typer.Option(help="Delete documents no longer in the folder.")] = False,
    reindex: Annotated[
        bool, typer.Option(help="Re-embed every document (after changing the embedder).")
    ] = False,
) -> None:
    """Load a glossary, fact tables and document folders. Safe to run again."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from bot.kb.golden_ingest import declared_golden, golden_regressions
    from bot.kb.ingest import ingest_paths
    from core.contracts.errors import RicordaError

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        transient=True,
        disable=not sys.stderr.isatty(),
    ) as bar:
        tasks: dict[str, int] = {}

        def progress(label: str, done: int, total: int) -> None:
            if label not in tasks:
                tasks[label] = bar.add_task(label, total=total)
            bar.update(tasks[label], completed=done, total=total)

        app_ = None
        try:
            app_ = _open(ctx)
            summary = ingest_paths(app_, list(paths or []), progress=progress, prune=prune,
                                   reindex=reindex)
            golden = declared_golden(app_) if summary.ok else None  # bot.kb.golden_ingest
        except RicordaError as exc:
            _fail(str(exc))
            return
        finally:
            if app_ is not None:
                app_.close()
    for line in summary.lines:
        typer.echo(_safe(line))
    for problem in summary.problems:
        typer.echo(_safe(f"rejected: {problem}"), err=True)
    if not summary.ok:
        raise typer.Exit(1)
    if golden is not None:
        lines, regressions = golden_regressions(golden, ctx.obj.get("data_dir"))
        for line in lines:
            typer.echo(_safe(line))
        for regression in regressions:
            typer.echo(_safe(regression), err=True)
        if regressions:
            raise typer.Exit(1)


@app.command()
def ask(
    ctx: typer.Context,
    question: Annotated[str, typer.Argument(help="The question, in English, Italian or Chinese.")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the answer as one JSON object.")
    ] = False,
    chat: Annotated[
        str | None,
        typer.Option(
            help="Chat id the question comes from (clearance for "
            "restricted data), e.g. telegram:9001; asking again with the same --chat "
            "continues the conversation (follow-ups). Default console:local, standalone."
        ),
    ] = None,
    reference_date: Annotated[
        str | None, typer.Option(help="Answer as if today were this date (YYYY-MM-DD).")
    ] = None,
) -> None:
    """Ask one question and print the answer."""
    from bot.wiring.ask_once import ask_once

    code = ask_once(
        question,
        data_dir=ctx.obj.get("data_dir"),
        as_json=as_json,
        chat=chat,
        reference_date=reference_date,
        debug=bool(ctx.obj.get("debug")),
    )
    if code:
        raise typer.Exit(code)


@app.command()
def chat(
    ctx: typer.Context,
    chat_id: Annotated[
        str, typer.Option("--chat", help="Chat id for clearance.")
    ] = "console:local",
    reference_date: Annotated[str | None, typer.Option(help="YYYY-MM-DD")] = None,
) -> None:
    """Chat in the terminal: type a question; type an option's number to narrow it."""
    from adapters.console import ConsoleChat
    from bot.wiring.ask_once import reference_date_problem
    from core.contracts.errors import RicordaError

    bad_date = reference_date_problem(reference_date)
    if bad_date:
        _fail(bad_date, code=2)
    try:
        app_ = _open(ctx, reference_date=reference_date)
        app_.core.glossary  # noqa: B018  (fail now, not at the first question, without a knowledge base)
    except RicordaError as exc:
        _fail(str(exc))
        return
    try:
        ConsoleChat(app_.core.answering, chat=chat_id, today=app_.core.today).run()
    finally:
        app_.close()


@app.command()
def demo(
    ctx: typer.Context,
    chat_after: Annotated[
        bool, typer.Option("--chat/--no-chat", help="Start the console chat after loading.")
    ] = True,
) -> None:
    """Load the bundled demo knowledge base (fictional company Orbis), then chat with it."""
    from bot.kb.ingest import ingest_paths
    from core.contracts.errors import RicordaError

    demo_dir = Path(__file__).parents[1] / "demo"  # bot/demo
    paths = [demo_dir / "glossary.toml", demo_dir / "facts.csv", demo_dir / "docs"]
    try:
        app_ = _open(ctx)
        summary = ingest_paths(app_, paths)
    except RicordaError as exc:
        _fail(str(exc))
        return
    for line in summary.lines:
        typer.echo(_safe(line))
    for problem in summary.problems:
        typer.echo(_safe(f"rejected: {problem}"), err=True)
    typer.echo(f"demo knowledge base loaded into {app_.settings.data_dir}")
    if chat_after:
        from adapters.console import ConsoleChat

        ConsoleChat(app_.core.answering, chat="console:local", today=app_.core.today).run()
    app_.close()


def _serve_epilog() -> str:
    from bot.settings.help import settings_epilog

    return settings_epilog()


@app.command(epilog=_serve_epilog())
def serve(ctx: typer.Context) -> None:
    """Run the configured chat platforms (Telegram when RICORDA_TELEGRAM_TOKEN is set, Slack
    when RICORDA_SLACK_BOT_TOKEN is set, Microsoft Teams when RICORDA_TEAMS_APP_ID is set).
    Each needs its extra: pip install 'ricorda[telegram]', '[slack]', '[teams]' or '[all]'.
    Every setting is listed below."""
    from core.contracts.errors import RicordaError

    try:
        app_ = _open(ctx, default_level="INFO")
        from bot.serve.run import run_serve

        run_serve(app_)
    except RicordaError as exc:
        _fail_on(exc)


@app.command("teams-package")
def teams_package(
    app_id: Annotated[str, typer.Option("--app-id", help="The bot's Microsoft App ID "
                                        "(RICORDA_TEAMS_APP_ID).")],
    out: Annotated[Path, typer.Option("--out", help="The zip to write.")] = Path("ricorda.zip"),
    name: Annotated[str, typer.Option(help="The app's name in Teams.")] = "ricorda",
    website: Annotated[str, typer.Option(help="Your company's page, shown as the developer's "
                                         "website, privacy and terms links.")
                       ] = "https://example.com",
) -> None:
    """Write the Teams app package (manifest.json and icons) to upload in Teams."""
    import re

    from bot.serve.teams_package import write_package

    if not re.fullmatch(r"[0-9a-fA-F-]{36}", app_id):
        typer.echo("error: --app-id must be the bot's Microsoft App ID, a GUID like "
                   "00000000-0000-0000-0000-000000000000", err=True)
        raise typer.Exit(2)
    written = write_package(app_id, out, name=name, website=website)
    typer.echo(f"Teams app package written to {written}: upload it in Teams (Apps, Manage "
               "your apps, Upload an app) or the Teams admin center")


@app.command()
def migrate(ctx: typer.Context) -> None:
    """Bring the database schema up to date (also done by every command at start)."""
    from bot.wiring.startup import configure
    from core.contracts.errors import RicordaError
    from storage.migrations import upgrade

    try:
        settings = configure(ctx.obj.get("data_dir"), default_level="INFO",
                             debug=ctx.obj.get("debug")).settings
        settings.ensure_data_dir()
        before, after = upgrade(settings.database)
    except RicordaError as exc:
        _fail_on(exc)
        return
    typer.echo(f"database schema: {before or 'none'} -> {after}" if before != after
               else f"database schema up to date ({after})")


@app.command()
def feedback(
    ctx: typer.Context,
    turn_id: Annotated[str, typer.Argument(help="The turn id printed with an answer.")],
    verdict: Annotated[str, typer.Argument(help="up (confirm) or down (reject).")],
    user: Annotated[str, typer.Option(help="Who gives the verdict.")] = "cli",
) -> None:
    """Confirm (up) or reject (down) an answer: down forgets its cached plan."""
    from core.contracts.errors import RicordaError

    mapped = {"up": "positive", "down": "negative", "+1": "positive", "-1": "negative"}
    if verdict.lower() not in mapped:
        _fail(f"verdict must be up or down, not {verdict!r}", code=2)
    try:
        app_ = _open(ctx)
        outcome = app_.core.feedback.record(turn_id, user, mapped[verdict.lower()], via="cli")
        app_.close()
    except RicordaError as exc:
        _fail(str(exc))
        return
    if not outcome.applied:
        _fail(outcome.message)
    typer.echo(outcome.message + (
        " (cached plan set aside: the question is worked out afresh until an answer to it is"
        " confirmed)" if outcome.removed_fastpath else ""
    ))


fastpaths_app = typer.Typer(
    help="Inspect and purge the learned fast paths (L0 cache, L1).", no_args_is_help=True
)
app.add_typer(fastpaths_app, name="fastpaths")


@fastpaths_app.command("list")
def fastpaths_list(
    ctx: typer.Context,
    n: Annotated[int, typer.Option("-n", help="How many, most used first.")] = 20,
) -> None:
    """Cached plans, most used first: id, uses, origin, last use, question.

    The CLI is a cleared viewer: questions asked from cleared chats are shown, marked
    [restricted] (a chat that is not cleared sees "(restricted question)" instead)."""
    _print_result(ctx, lambda app_: app_.core.admin.fastpaths_text(n, cleared=True))


@fastpaths_app.command("purge")
def fastpaths_purge(
    ctx: typer.Context,
    target: Annotated[str, typer.Argument(help="An id, the question text, or 'all'.")],
) -> None:
    """Forget one cached plan (by id or question text) or all of them."""
    _print_result(ctx, lambda app_: app_.core.admin.purge(target))


@fastpaths_app.command("stats")
def fastpaths_stats(
    ctx: typer.Context,
    last: Annotated[int, typer.Option(help="Over the last N turns.")] = 500,
) -> None:
    """Hit rate and p50 latency per serving level (L0a, L0b, L1, planner)."""
    _print_result(ctx, lambda app_: app_.core.admin.stats_text(last, cleared=True))


@fastpaths_app.command("autopaths")
def fastpaths_autopaths(ctx: typer.Context) -> None:
    """L1 autopaths with their scores, and the anti-autopaths in force."""
    _print_result(ctx, lambda app_: app_.core.admin.autopaths_text(cleared=True))


from bot.cli.maintenance import register as _register_maintenance  # noqa: E402

_register_maintenance(app)

from bot.cli.kb import register as _register_kb  # noqa: E402

_register_kb(app)

from bot.cli.admin import register as _register_admin  # noqa: E402

_register_admin(app)

from bot.cli.report import register as _register_report  # noqa: E402

_register_report(app)

from bot.cli.subscriptions import register as _register_subscriptions  # noqa: E402

_register_subscriptions(app)
