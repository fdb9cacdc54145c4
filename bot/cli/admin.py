"""`ricorda test`, `ricorda backup` and `ricorda restore`: the admin's checks that the bot still
answers right, and its data dir kept safe.

Registered on the main CLI by `register(app)` (bot.cli.commands). Operator output, in English like
the other CLI reports; the answers it checks are the bot's own, made through core/catalog.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from bot.cli.output import fail, safe


def register(app: typer.Typer) -> None:
    app.command("test")(golden_test)
    app.command("backup")(backup)
    app.command("restore")(restore)


def golden_test(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="The golden questions (YAML).")],
    junit: Annotated[
        Path | None, typer.Option("--junit", help="Also write the results as JUnit XML here.")
    ] = None,
) -> None:
    """Ask the company's golden questions, each from its chat, and check every answer against
    what it should be. Exit 0 when all pass, 1 naming each failure, 2 for a mistake in the file.
    Questions are asked as `ricorda ask --json` asks them (docs/keeping-right.md)."""
    from rich.console import Console

    from bot.kb.golden import junit_xml, results_table, run_golden
    from bot.kb.golden_file import load_golden
    from core.contracts.errors import ConfigError, RicordaError

    try:
        questions = load_golden(file)
    except ConfigError as exc:
        fail(str(exc), code=2)
        return
    try:
        results = run_golden(questions, ctx.obj.get("data_dir"))
    except RicordaError as exc:
        from bot.cli.output import fail_on

        fail_on(exc)
        return
    Console(highlight=False).print(results_table(results))
    if junit is not None:
        junit.write_text(junit_xml(results, suite=file.stem), encoding="utf-8")
    failed = [r for r in results if not r.passed]
    typer.echo(f"{len(results) - len(failed)} of {len(results)} golden questions passed")
    verified = [r.question.name for r in results if r.verified]
    if verified:
        typer.echo(safe(f"verified answers: {', '.join(verified)}"))
    unverified = [r.question.name for r in results if r.question.verified and not r.verified]
    if unverified:
        typer.echo(safe(f"not verified (failed, or not a cached answer): "
                        f"{', '.join(unverified)}"), err=True)
    if failed:
        for r in failed:
            typer.echo(safe(f"FAILED {r.question.name}: {'; '.join(r.problems) or r.error}"),
                       err=True)
        raise typer.Exit(1)


def _settings(ctx: typer.Context):  # type: ignore[no-untyped-def]
    from bot.cli.output import fail_on
    from bot.wiring.startup import configure
    from core.contracts.errors import RicordaError

    try:
        return configure(ctx.obj.get("data_dir"), debug=ctx.obj.get("debug")).settings
    except RicordaError as exc:
        fail_on(exc)


def backup(
    ctx: typer.Context,
    dest: Annotated[Path, typer.Argument(help="A new or empty folder for the backup.")],
) -> None:
    """Back up the data dir while `serve` keeps answering: the SQLite database (online backup),
    the vector store and the lexical index. Tokens (.env) are not copied. PostgreSQL: use
    pg_dump for the database (docs/keeping-right.md)."""
    from bot.cli.output import fail_on
    from bot.kb.backup import backup_data_dir
    from core.contracts.errors import RicordaError

    settings = _settings(ctx)
    try:
        report = backup_data_dir(settings, dest)
    except RicordaError as exc:
        fail_on(exc)
        return
    for line in report.lines:
        typer.echo(safe(line))


def restore(
    ctx: typer.Context,
    src: Annotated[Path, typer.Argument(help="A folder written by `ricorda backup`.")],
    force: Annotated[
        bool, typer.Option(help="Replace the database and indexes of a data dir in use.")
    ] = False,
) -> None:
    """Restore a backup into the data dir (empty, unless --force) and migrate its schema to
    this version. Stop `serve` first."""
    from bot.cli.output import fail_on
    from bot.kb.backup import restore_data_dir
    from core.contracts.errors import RicordaError

    settings = _settings(ctx)
    try:
        report = restore_data_dir(settings, src, force=force)
    except RicordaError as exc:
        fail_on(exc)
        return
    for line in report.lines:
        typer.echo(safe(line))
