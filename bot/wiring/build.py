"""The composition root: settings -> storage -> core -> adapters, in that order, once.

In the spirit of python-telegram-bot's `ApplicationBuilder`: `build_app` checks every setting
(bot.settings.checks) before anything opens or connects, opens storage
(bot.wiring.storage_services), then builds the core services (bot.wiring.core_services) in the
one order written below: the light parts at start (AT_START), the answer path as one unit on
the first question (ANSWER_PATH: it needs the ingested glossary), the heavy parts (HEAVY:
models, documents and the vector store) each on first use, so a structured question never pays
for chromadb or torch. The chat adapters are given what they need from the result by
bot.wiring.chat. `App` is only the record of the three.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.settings.checks import CheckedSettings, check_settings
from bot.settings.model import Settings
from bot.wiring.core_services import CoreServices
from bot.wiring.storage_services import Storage, open_storage

# The order the core services are built in (docs/architecture.md, "The wiring"). A one-shot
# `ricorda ask` builds only what its answer needs; what else it reads comes after, on use.
AT_START = ("catalog", "core_lock", "metrics", "maintenance", "admin")
AT_START_ONE_SHOT = ("catalog", "core_lock")
ANSWER_PATH = ("answerer", "pipeline", "answering", "feedback")
ANSWER_PATH_ONE_SHOT = ("answerer", "pipeline")
HEAVY = ("llm", "documents", "autopaths")  # each on first use, never at start


@dataclass
class App:
    """One process's ricorda: its settings (checked), its storage and its core services."""

    settings: Settings
    checked: CheckedSettings
    storage: Storage
    core: CoreServices

    def close(self) -> None:
        """The core first (the plan cache writes what it still has queued), then storage."""
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
    core = CoreServices(checked, storage, one_shot=one_shot,
                        answer_path=ANSWER_PATH_ONE_SHOT if one_shot else ANSWER_PATH)
    try:
        core.build(AT_START_ONE_SHOT if one_shot else AT_START)
    except BaseException:
        storage.close()
        raise
    return App(checked.settings, checked, storage, core)
