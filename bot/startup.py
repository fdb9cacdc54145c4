"""Settings -> logging -> application, shared by the typer CLI and the quick `ask` entry.

Kept free of typer so that a one-shot question does not import it.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.app import App


def open_app(data_dir: Path | None, *, one_shot: bool = False, **overrides: object) -> App:
    """The configured application; any configuration or storage problem is a RicordaError."""
    from bot.app import build_app
    from bot.settings import load_settings

    settings = load_settings(data_dir=data_dir, **overrides)
    logging.basicConfig(
        level=settings.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    return build_app(settings, one_shot=one_shot)
