"""The composition root: settings -> storage -> core -> adapters, in that order, once.

In the spirit of python-telegram-bot's `ApplicationBuilder`: `build_app` checks every setting
(bot.settings.checks) before anything opens or connects, opens storage
(bot.wiring.storage_services), then the core services (bot.wiring.core_services, each built on first use so
a structured question never pays for chromadb or torch). The chat adapters are given what they
need from the result by bot.wiring.chat. `App` is only the record of the three.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.settings.checks import CheckedSettings, check_settings
from bot.settings.model import Settings
from bot.wiring.core_services import CoreServices
from bot.wiring.storage_services import Storage, open_storage


@dataclass
class App:
    """One process's ricorda: its settings (checked), its storage and its core services."""

    settings: Settings
    checked: CheckedSettings
    storage: Storage
    core: CoreServices

    def close(self) -> None:
        """The core first (the cascade writes what it still has queued), then storage."""
        self.core.close()
        self.storage.close()


def build_app(settings: Settings | CheckedSettings, *, one_shot: bool = False) -> App:
    """Check the settings (unless the caller did: bot.wiring.startup checks them before the log
    handler learns the secrets), open storage, then the core; a ConfigError (one line naming
    the variable and the fix) before anything is opened when a setting cannot work.

    `one_shot` (a single `ricorda ask`) looks facts up one by one instead of loading them all
    and checks no knowledge-base versions (it read the database just now)."""
    checked = settings if isinstance(settings, CheckedSettings) else check_settings(settings)
    storage = open_storage(checked, one_shot=one_shot)
    core = CoreServices(checked, storage, one_shot=one_shot)
    return App(checked.settings, checked, storage, core)
