"""`ricorda test`: the admin's checks that the bot still answers right.

Registered on the main CLI by `register(app)` (bot.cli). Operator output, in English like the
other CLI reports; the answers it checks are the bot's own, made through core/catalog.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from bot.cli_output import fail, safe


def register(app: typer.Typer) -> None:
    app.command("test")(golden_test)


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

    from bot.golden import junit_xml, results_table, run_golden
    from bot.golden_file import load_golden
    from core.contracts.errors import ConfigError, RicordaError

    try:
        questions = load_golden(file)
    except ConfigError as exc:
        fail(str(exc), code=2)
        return
    try:
        results = run_golden(questions, ctx.obj.get("data_dir"))
    except RicordaError as exc:
        from bot.cli_output import fail_on

        fail_on(exc)
        return
    Console(highlight=False).print(results_table(results))
    if junit is not None:
        junit.write_text(junit_xml(results, suite=file.stem), encoding="utf-8")
    failed = [r for r in results if not r.passed]
    typer.echo(f"{len(results) - len(failed)} of {len(results)} golden questions passed")
    if failed:
        for r in failed:
            typer.echo(safe(f"FAILED {r.question.name}: {'; '.join(r.problems) or r.error}"),
                       err=True)
        raise typer.Exit(1)
