"""How every typer command opens the application, prints and fails: one clear line (exit 2 for
a configuration mistake, 1 at run time), terminal-safe and redacted. Shared by bot.cli.commands and
bot.cli.maintenance, which import this and not each other."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from bot.wiring.build import App


def open_app_or_exit(  # type: ignore[no-untyped-def]
    ctx: typer.Context, *, one_shot: bool = False, default_level: str = "WARNING",
    **overrides: object,
):
    """Settings -> application; any configuration or storage problem ends with a clear line."""
    from bot.wiring.startup import open_app
    from core.contracts.errors import RicordaError

    try:
        return open_app(ctx.obj.get("data_dir"), one_shot=one_shot, debug=ctx.obj.get("debug"),
                        default_level=default_level, **overrides)
    except RicordaError as exc:
        fail_on(exc)


def print_result(ctx: typer.Context, action: Callable[[App], str]) -> None:
    """Open the app, print `action(app)` and close it; a problem ends with one clear line."""
    from core.contracts.errors import RicordaError

    app_ = open_app_or_exit(ctx)
    try:
        typer.echo(safe(action(app_)))
    except RicordaError as exc:
        fail(str(exc))
    finally:
        app_.close()


def safe(text: str) -> str:
    """Terminal-safe text: questions, file names and document text are anyone's input."""
    from adapters.console import terminal_safe

    return terminal_safe(text)


def fail(message: str, code: int = 1) -> None:
    from bot.wiring.log_setup import redact_known

    typer.echo(safe(f"error: {redact_known(message)}"), err=True)
    raise typer.Exit(code)


def fail_on(exc: Exception) -> None:
    """Exit 2 for a configuration mistake, 1 for anything that went wrong at run time; the
    traceback (redacted) only at DEBUG."""
    import logging

    from core.contracts.errors import ConfigError

    logging.getLogger("ricorda").debug("the error in full", exc_info=exc)

    fail(str(exc), code=2 if isinstance(exc, ConfigError) else 1)
