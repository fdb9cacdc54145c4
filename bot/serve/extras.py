"""Which optional extra each chat platform needs (pyproject.toml: `ricorda[telegram]`,
`[slack]`, `[teams]`): `serve` with a platform configured whose SDK is not installed stops
with the `pip install` to run, before anything starts. Checked by module presence, without
importing the SDK."""

from __future__ import annotations

from collections.abc import Iterable
from importlib.util import find_spec

from core.contracts.errors import ConfigError

# runner name -> (what to call it, the modules its adapter imports, the extra)
EXTRAS: dict[str, tuple[str, tuple[str, ...], str]] = {
    "telegram": ("Telegram", ("telegram",), "telegram"),
    "slack": ("Slack", ("slack_bolt", "slack_sdk", "aiohttp"), "slack"),
    "teams": ("Microsoft Teams", ("microsoft_teams.apps", "msal", "aiohttp"), "teams"),
}


def _installed(module: str) -> bool:
    try:
        return find_spec(module) is not None
    except ModuleNotFoundError:  # a dotted name whose parent is missing
        return False


def require_extras(names: Iterable[str]) -> None:
    """ConfigError naming the command when a configured platform's SDK is missing."""
    for name in names:
        if name not in EXTRAS:
            continue
        label, modules, extra = EXTRAS[name]
        missing = [m for m in modules if not _installed(m)]
        if missing:
            raise ConfigError(
                f"{label} is configured but its SDK is not installed ({missing[0]}): run "
                f"pip install 'ricorda[{extra}]' (or 'ricorda[all]' for every platform)")
