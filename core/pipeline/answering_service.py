"""Answering with the current knowledge base: the one entry a long-running adapter calls.

A serving process holds facts, the glossary and the document index in memory. Before each
answer (and each admin command) it reads the knowledge-base versions through the `KbVersions`
port and reloads what moved (core.knowledge.freshness): the facts catch up, the glossary is
replaced and the pipeline gets an answerer built from it. A one-shot process has nothing to
check: it read the database just now.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

from core.contracts.ports import KbVersions
from core.contracts.types import Answer, Request
from core.knowledge.current_glossary import CurrentGlossary
from core.knowledge.freshness import DOCUMENTS, FACTS, GLOSSARY, Freshness
from core.pipeline.pipeline import Pipeline
from core.planning.answering import Answerer


class CatchingUp(Protocol):
    """A fact store that can bring what it holds to the current facts version."""

    def catch_up(self) -> None: ...


class AnsweringService:
    """Freshness first, then the pipeline. `answerer_for_glossary` builds the answerer of the
    current glossary (names, gates and clearance depend on it)."""

    def __init__(
        self,
        pipeline: Pipeline,
        *,
        glossary: CurrentGlossary,
        answerer_for_glossary: Callable[[], Answerer],
        facts: CatchingUp,
        versions: KbVersions | None,
        baseline: Mapping[str, int] | None = None,
        interval_s: float = 0.0,
    ) -> None:
        self.pipeline = pipeline
        self._glossary = glossary
        self._answerer = answerer_for_glossary
        self.freshness: Freshness | None = None
        if versions is not None:
            self.freshness = Freshness(
                versions,
                {
                    FACTS: facts.catch_up,  # the one change's rows, else the whole table
                    GLOSSARY: self._reload_glossary,
                    DOCUMENTS: lambda: None,  # the retriever follows `documents_seen` lazily
                },
                interval_s=interval_s,
            )
            self.freshness.baseline(baseline)

    def answer(self, request: Request) -> Answer:
        """Bring the knowledge base up to date (one version read), then run the pipeline."""
        self.ensure_fresh()
        return self.pipeline.answer(request)

    def ensure_fresh(self, *, force: bool = False) -> None:
        """Reload facts / glossary that another process (or replica) changed since the last
        check; `force`: now, whatever the interval (this process has just changed them)."""
        if self.freshness is not None:
            self.freshness.check(force=force)

    def documents_seen(self) -> int | None:
        """The documents version the last check saw (None: no checks in this process)."""
        return None if self.freshness is None else self.freshness.seen(DOCUMENTS)

    def _reload_glossary(self) -> None:
        if self._glossary.reload_if_valid():
            self.pipeline.answerer = self._answerer()
