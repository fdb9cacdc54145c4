"""The composition root: settings -> storage -> core. The one place that wires ricorda together.

Heavy parts (vector store, embedders, LLMs) are built only when a code path needs them, so a
structured question never pays for importing chromadb or torch.
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass, field
from functools import cached_property

from sqlalchemy.engine import Engine

from bot.settings import Settings
from core.answering import Answerer
from core.errors import ConfigError
from core.glossary import Glossary, parse_glossary
from storage.db import open_database
from storage.fact_store import SqlFactStore
from storage.glossary_store import SqlGlossaryStore
from storage.turn_store import SqlTurnStore

log = logging.getLogger("ricorda")


@dataclass
class App:
    settings: Settings
    engine: Engine
    facts: SqlFactStore
    turns: SqlTurnStore
    glossaries: SqlGlossaryStore
    _glossary: Glossary | None = field(default=None, repr=False)

    @property
    def glossary(self) -> Glossary:
        """The ingested glossary; a clear error before the first `ricorda ingest glossary.toml`."""
        if self._glossary is None:
            stored = self.glossaries.load()
            if stored is None:
                raise ConfigError(
                    "no knowledge base yet: run `ricorda ingest glossary.toml facts.csv docs/` "
                    "or `ricorda demo` first"
                )
            self._glossary = parse_glossary(stored.text, source=stored.source_path or "glossary")
        return self._glossary

    def reload_glossary(self) -> None:
        self._glossary = None
        self.__dict__.pop("answerer", None)

    @cached_property
    def answerer(self) -> Answerer:
        return Answerer(
            glossary=self.glossary,
            facts=self.facts,
            turns=self.turns,
            narrative=None,
            today=self.today,
            max_question_chars=self.settings.max_question_chars,
        )

    def today(self) -> dt.date:
        if self.settings.reference_date:
            return dt.date.fromisoformat(self.settings.reference_date)
        return dt.date.today()

    def close(self) -> None:
        self.engine.dispose()


def build_app(settings: Settings, *, one_shot: bool = False) -> App:
    """Open (and create if needed) the data dir and database; fail fast on bad combinations.

    `one_shot` (a single `ricorda ask`) looks facts up one by one instead of loading them all.
    """
    if settings.reference_date:
        try:
            dt.date.fromisoformat(settings.reference_date)
        except ValueError as exc:
            raise ConfigError(
                f"reference date {settings.reference_date!r} is not YYYY-MM-DD"
            ) from exc
    if settings.max_question_chars < 1:
        raise ConfigError("max_question_chars must be at least 1")
    settings.ensure_data_dir()
    engine = open_database(settings.database)
    return App(
        settings=settings,
        engine=engine,
        facts=SqlFactStore(engine, preload=not one_shot),
        turns=SqlTurnStore(engine),
        glossaries=SqlGlossaryStore(engine),
    )
