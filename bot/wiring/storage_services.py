"""Storage opened for one process: the database and the stores every command uses.

Opened before anything in core is built; the knowledge-base versions are read before the fact
store loads, so what is loaded afterwards is at least that fresh (core.knowledge.freshness).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

from sqlalchemy.engine import Engine

from bot.settings.checks import CheckedSettings
from storage.db import open_database
from storage.document_adoption import adopt_legacy_documents
from storage.fact_store import SqlFactStore
from storage.fast_sql import close_kept
from storage.fastpath_store import SqlFastpathStore
from storage.glossary_store import SqlGlossaryStore
from storage.kb_version import SqlKbVersions
from storage.turn_store import SqlTurnStore
from storage.wal_checkpoint import WalCheckpointer

log = logging.getLogger("ricorda")

ADOPTION_NOTICE = (
    "{n} documents ingested before document sources existed were adopted into source "
    "'default' (declare their folder in the glossary as [[documents]] source = \"default\")"
)


@dataclass
class Storage:
    """The stores of one process. `kb_versions` and `kb_baseline` (the versions read before
    anything loaded) only in a long-running process, which checks them before each answer;
    `checkpointer` only there too (SQLite: WAL checkpoints on a thread, not in a commit)."""

    engine: Engine
    facts: SqlFactStore
    turns: SqlTurnStore
    glossaries: SqlGlossaryStore
    kb_versions: SqlKbVersions | None = None
    kb_baseline: Mapping[str, int] | None = None
    checkpointer: WalCheckpointer | None = None
    notices: list[str] = field(default_factory=list)  # one-time lines for the operator

    @cached_property
    def fastpaths(self) -> SqlFastpathStore:
        return SqlFastpathStore(self.engine)

    def close(self) -> None:
        if self.kb_versions is not None:
            self.kb_versions.close()
        if self.checkpointer is not None:
            self.checkpointer.close()
        close_kept(self.engine)
        self.engine.dispose()


def open_storage(checked: CheckedSettings, *, one_shot: bool = False) -> Storage:
    """Open (and create if needed) the data dir and database. `one_shot` (a single `ricorda
    ask`) looks facts up one by one instead of loading them all, and checks no versions."""
    settings = checked.settings
    settings.ensure_data_dir()
    engine = open_database(settings.database)
    notices = []
    adopted = adopt_legacy_documents(engine)
    if adopted:
        notices.append(ADOPTION_NOTICE.format(n=adopted))
        log.warning("%s", notices[-1])
    kb_versions = baseline = checkpointer = None
    if not one_shot:
        checkpointer = WalCheckpointer.for_engine(engine)
        kb_versions = SqlKbVersions(engine)
        baseline = dict(kb_versions.read())  # before anything is loaded
    return Storage(
        engine=engine,
        facts=SqlFactStore(engine, preload=not one_shot),
        turns=SqlTurnStore(engine),
        glossaries=SqlGlossaryStore(engine),
        kb_versions=kb_versions,
        kb_baseline=baseline,
        checkpointer=checkpointer,
        notices=notices,
    )
