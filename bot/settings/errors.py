"""How a settings problem is told: one line naming the variable and the fix.

Shared by bot.settings.model (pydantic's type errors, the data dir) and bot.settings.checks (every
other check), and importing neither, so the two do not import each other.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from bot.settings.choices import SECRET_FIELDS
from core.contracts.errors import ConfigError

if TYPE_CHECKING:
    from pydantic_settings import BaseSettings

# the fix for a value of the wrong type, by field (the rest get one from their type)
FIXES: dict[str, str] = {
    "log_level": "set it to DEBUG, INFO, WARNING or ERROR",
    "embedder": "set it to auto, use, bge-m3 or hashing",
    "llm": "set it to none, llama-cpp or openai",
    "data_dir": "set it to a folder path",
}
PORTS = ("slack_port", "metrics_port", "telegram_webhook_port", "teams_port", "mattermost_port")


def env_name(field: str) -> str:
    return f"RICORDA_{field.upper()}"


def _fix_for_type(field: str, settings_cls: type[BaseSettings]) -> str:
    if field in FIXES:
        return FIXES[field]
    if field in PORTS:
        return "set it to a port number from 1 to 65535 (0 picks a free one)"
    annotation = str(settings_cls.model_fields[field].annotation)
    if "bool" in annotation:
        return "set it to true or false"
    if "int" in annotation:
        return "set it to a whole number"
    if "float" in annotation:
        return "set it to a number"
    return "correct it in the environment or .env"


def describe_errors(
    exc: ValidationError, overrides: dict[str, Any], *, model: type[BaseSettings]
) -> str:
    """One line for pydantic's errors: the variable, the value (unless secret) and the fix.
    `model`: the settings class (passed in: bot.settings.model imports this module)."""

    parts = []
    for error in exc.errors():
        field = str(error["loc"][0]) if error["loc"] else "?"
        shown = ""
        value = error.get("input")
        if field not in SECRET_FIELDS and isinstance(value, str | int | float):
            shown = f"={str(value)[:60]!r}"
        fix = _fix_for_type(field, model) if field in model.model_fields else "remove it"
        parts.append(f"{env_name(field)}{shown} is not valid: {fix}")
    return "; ".join(parts)



def ensure_writable_dir(path: Path) -> Path:
    """`path` created if missing and writable, or a ConfigError naming RICORDA_DATA_DIR."""
    path = Path(os.path.expanduser(str(path)))
    fix = "set RICORDA_DATA_DIR (or --data-dir) to a folder this user can write"
    if path.exists() and not path.is_dir():
        raise ConfigError(f"RICORDA_DATA_DIR={str(path)!r} is a file, not a folder: {fix}")
    try:
        path.mkdir(parents=True, exist_ok=True, mode=0o700)  # its owner's only: it holds
    except OSError as exc:  # the company's figures and every question asked
        raise ConfigError(
            f"RICORDA_DATA_DIR={str(path)!r} cannot be created ({exc.strerror}): {fix}"
        ) from None
    try:  # os.access says yes to root even on a read-only file system: try it
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        raise ConfigError(
            f"RICORDA_DATA_DIR={str(path)!r} is not writable ({exc.strerror}): {fix}"
        ) from None
    return path


def create_private_file(path: Path) -> None:
    """Create `path` empty, readable and writable by its owner only (0600), unless it exists:
    SQLite then opens it and creates its WAL and shared-memory files with the same mode."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
