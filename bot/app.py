"""The composition root: settings -> storage -> core. The one place that wires ricorda together.

Heavy parts (vector store, embedders, LLMs) are built only when a code path needs them, so a
structured question never pays for importing chromadb or torch.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, cast

from sqlalchemy.engine import Engine

from bot.settings import Settings
from core.answering import Answerer
from core.errors import ConfigError
from core.glossary import Glossary, Term, parse_glossary
from core.names import NameIndex
from core.thresholds import CosineThresholds
from storage.db import open_database
from storage.fact_store import SqlFactStore
from storage.glossary_store import SqlGlossaryStore
from storage.turn_store import SqlTurnStore

if TYPE_CHECKING:
    from bot.maintenance_wiring import MaintenanceServices
    from bot.metrics import Metrics
    from core.admin import Admin
    from core.autopath import Autopaths
    from core.cascade import Cascade
    from core.catalog import Catalog
    from core.document_ingest import DocumentIngestReport
    from core.feedback import Feedback
    from core.narrative_channel import DocumentNarrative
    from core.ports import LLM, Embedder, VectorIndex
    from core.retrieval import HybridRetriever
    from storage.chunk_store import SqlChunkStore
    from storage.fastpath_store import SqlFastpathStore

log = logging.getLogger("ricorda")


@dataclass
class App:
    settings: Settings
    engine: Engine
    facts: SqlFactStore
    turns: SqlTurnStore
    glossaries: SqlGlossaryStore
    _glossary: Glossary | None = field(default=None, repr=False)
    _vectors: VectorIndex | None = field(default=None, repr=False)
    one_shot: bool = False  # a single `ricorda ask`: nothing loaded that the answer may not need

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
        for cached in ("answerer", "narrative", "cascade"):
            self.__dict__.pop(cached, None)

    # -- the fast path (L0 cache, L1 autopaths), feedback and admin ----------------------------

    @cached_property
    def fastpaths(self) -> SqlFastpathStore:
        from storage.fastpath_store import SqlFastpathStore

        return SqlFastpathStore(self.engine)

    def thresholds(self) -> CosineThresholds:
        """The embedder's calibrated thresholds, each overridable by a setting."""
        base = self.embedder.thresholds
        s = self.settings
        return CosineThresholds(
            l0=s.l0_cosine_threshold if s.l0_cosine_threshold is not None else base.l0,
            cluster=s.l1_cluster_threshold if s.l1_cluster_threshold is not None else base.cluster,
            floor=s.l1_floor_threshold if s.l1_floor_threshold is not None else base.floor,
            relevance=(
                s.retrieval_relevance_floor
                if s.retrieval_relevance_floor is not None
                else base.relevance
            ),
        )

    @cached_property
    def autopaths(self) -> Autopaths:
        from core.autopath import Autopaths
        from storage.autopath_store import SqlAutopathStore

        s = self.settings
        return Autopaths(
            SqlAutopathStore(self.engine),
            thresholds=self.thresholds(),
            min_confirmations=s.autopath_min_confirmations,
            anti_failures=s.anti_autopath_failures,
            anti_days=s.anti_autopath_days,
            clock=lambda: dt.datetime.now(dt.UTC),
        )

    @cached_property
    def metrics(self) -> Metrics:
        from bot.metrics import Metrics

        return Metrics(cache_size=lambda: self.fastpaths.count())

    @cached_property
    def cascade(self) -> Cascade:
        from core.cascade import Cascade

        return Cascade(
            answerer=self.answerer,
            fastpaths=self.fastpaths,
            autopaths=_Lazy(lambda: self.autopaths),
            embedder=lambda: self.embedder,
            thresholds=self.thresholds,
            exact_only=self.one_shot,
            # a one-shot process serves no /metrics: it does not pay for prometheus-client
            on_answer=None if self.one_shot else self.metrics.observe_answer,
        )

    @cached_property
    def feedback(self) -> Feedback:
        from core.feedback import Feedback

        return Feedback(
            turns=self.turns,
            fastpaths=self.fastpaths,
            autopaths=_Lazy(lambda: self.autopaths),
            observe=lambda turn: self.cascade.observe_turn(turn),
            on_feedback=self.metrics.observe_feedback,
        )

    @cached_property
    def admin(self) -> Admin:
        from core.admin import Admin

        return Admin(
            fastpaths=self.fastpaths,
            turns=self.turns,
            autopaths=_Lazy(lambda: self.autopaths),
            promotions=_Lazy(lambda: self.maintenance.promotions),
        )

    @cached_property
    def catalog(self) -> Catalog:
        """Built-in tools plus the composite executors admins approved (nightly promotion)."""
        from bot.maintenance_wiring import build_catalog

        return build_catalog(self.engine)

    @cached_property
    def maintenance(self) -> MaintenanceServices:
        from bot.maintenance_wiring import maintenance_services

        return maintenance_services(self.settings, self.engine, self.catalog)

    @cached_property
    def answerer(self) -> Answerer:
        return Answerer(
            glossary=self.glossary,
            facts=self.facts,
            turns=self.turns,
            narrative=_Lazy(lambda: self.narrative),  # built on the first "why" question
            today=self.today,
            max_question_chars=self.settings.max_question_chars,
            rerank=self.settings.llm.strip().lower() not in ("", "none", "off"),
            catalog=self.catalog,
        )

    # -- narrative channel (built on first use: heavy imports stay off the structured path) --

    @cached_property
    def chunks(self) -> SqlChunkStore:
        from storage.chunk_store import SqlChunkStore

        return SqlChunkStore(self.engine)

    @cached_property
    def embedder(self) -> Embedder:
        from bot.embedders import choose_embedder

        return choose_embedder(self.settings.embedder, bge_model_path=self.settings.bge_model_path)

    def vector_index(self, *, recreate: bool = False) -> VectorIndex:
        """Two Chroma collections (public, restricted) behind one index: an uncleared chat's
        search never touches a restricted vector, and needs no slow metadata filter."""
        if recreate or self._vectors is None:
            from storage.partitioned_vector_index import PartitionedVectorIndex
            from storage.vector_store import ChromaVectorIndex

            where = (
                {"url": self.settings.chroma_url}
                if self.settings.chroma_url
                else {"data_dir": self.settings.data_dir}
            )
            embedder = self.embedder
            parts = [
                ChromaVectorIndex(
                    embedder_name=embedder.name,
                    dimension=embedder.dimension,
                    collection=name,
                    recreate=recreate,
                    **where,
                )
                for name in ("ricorda_chunks", "ricorda_chunks_restricted")
            ]
            self._vectors = PartitionedVectorIndex(*parts)
        return self._vectors

    @cached_property
    def llm(self) -> LLM | None:
        from bot.llm_providers import build_llm

        return build_llm(self.settings)

    @cached_property
    def narrative(self) -> DocumentNarrative:
        from core.narrative_channel import DocumentNarrative

        return DocumentNarrative(
            names=NameIndex(self.glossary),
            build_retriever=self._build_retriever,
            fingerprint=self.chunks.fingerprint,
            llm=lambda: self.llm,
            llm_timeout=self.settings.llm_timeout_s,
        )

    def _build_retriever(self) -> HybridRetriever | None:
        from core.lexical import Bm25Index, Tokenizer
        from core.retrieval import HybridRetriever

        chunks = list(self.chunks.all_chunks())
        if not chunks:
            return None
        names = [n for t in self._all_terms() for n in t.names]
        bm25 = Bm25Index(chunks, Tokenizer(names))
        # connected on first search, again after a failure: a vector store that is down
        # leaves BM25 answering (the retriever logs it) until it is back
        vectors = cast("VectorIndex", _Lazy(self.vector_index))
        return HybridRetriever(
            self.chunks, bm25, vectors, self.embedder, relevance_floor=self.thresholds().relevance
        )

    def _all_terms(self) -> list[Term]:
        g = self.glossary
        return [*g.metrics.values(), *g.entities.values(), *g.channels.values()]

    def ingest_documents(
        self,
        folder: Path,
        *,
        prune: bool = False,
        reindex: bool = False,
        progress: Callable[[int, int, str], None] | None = None,
    ) -> DocumentIngestReport:
        from core.document_ingest import ingest_documents
        from core.narrative_channel import glossary_tagger
        from storage.document_readers import read_document

        if reindex:  # every file is embedded again into fresh collections
            for record in self.chunks.documents():
                self.chunks.delete_document(record.path)
        return ingest_documents(
            folder,
            chunk_store=self.chunks,
            vector_index=self.vector_index(recreate=reindex),
            embedder=self.embedder,
            prune=prune,
            progress=progress,
            tagger=glossary_tagger(NameIndex(self.glossary)),
            reader=read_document,
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
        one_shot=one_shot,
    )


class _Lazy:
    """Builds its target on first attribute access: autopaths load their observations and need
    the embedder's thresholds, which only a cache miss or a verdict should pay for."""

    def __init__(self, build: Callable[[], object]) -> None:
        self._build = build
        self._target: object | None = None

    def __getattr__(self, name: str) -> object:
        if self._target is None:
            self._target = self._build()
        return getattr(self._target, name)
