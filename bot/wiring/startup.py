"""Settings -> logging -> application, shared by the typer CLI and the quick `ask` entry.

Kept free of typer so that a one-shot question does not import it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.settings.checks import CheckedSettings
    from bot.wiring.build import App


def configure(
    data_dir: Path | None, *, default_level: str = "WARNING", debug: bool = False,
    **overrides: object,
) -> CheckedSettings:
    """Settings, checked (the one check of every command, bot.settings.checks), then the
    redacting log handler (before anything can log a secret)."""
    from bot.settings.checks import check_settings
    from bot.settings.model import load_settings
    from bot.wiring.log_setup import configure_logging, secret_values

    if debug:
        overrides["log_level"] = "DEBUG"
    try:
        checked = check_settings(load_settings(data_dir=data_dir, **overrides))
    except Exception:
        configure_logging("DEBUG" if debug else default_level)  # shapes are still redacted
        raise
    settings = checked.settings
    level = settings.log_level.value if settings.log_level else default_level
    configure_logging(level, secrets=secret_values(settings))
    return checked


def open_app(
    data_dir: Path | None,
    *,
    one_shot: bool = False,
    default_level: str = "WARNING",
    debug: bool = False,
    **overrides: object,
) -> App:
    """The configured application; any configuration or storage problem is a RicordaError."""
    from bot.wiring.build import build_app

    checked = configure(data_dir, default_level=default_level, debug=debug, **overrides)
    return build_app(checked, one_shot=one_shot)
