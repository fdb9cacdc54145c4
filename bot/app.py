"""The composition root: settings -> storage -> core. The one place that wires ricorda together.

Heavy parts (vector store, embedders, LLMs) are built only when a code path needs them, so a
structured question never pays for importing chromadb or torch.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, cast

from sqlalchemy.engine import Engine

from bot.settings import Settings
from core.errors import ConfigError, IngestError
from core.fastpath.thresholds import CosineThresholds
from core.knowledge.glossary import Glossary, Term, parse_glossary
from core.knowledge.names import NameIndex
from core.planning.answering import Answerer
from core.planning.bounds import Bounds
from storage.db import open_database
from storage.document_adoption import adopt_legacy_documents
from storage.fact_store import SqlFactStore
from storage.fast_sql import close_kept
from storage.glossary_store import SqlGlossaryStore
from storage.kb_version import DOCUMENTS, FACTS, GLOSSARY, SqlKbVersions
from storage.turn_store import SqlTurnStore

if TYPE_CHECKING:
    from bot.maintenance_wiring import MaintenanceServices
    from bot.metrics import Metrics
    from core.chat.admin import Admin
    from core.documents.chunk_tokens import ChunkTokenizer
    from core.documents.document_ingest import DocumentIngestReport
    from core.documents.lexical_sync import LexicalSync
    from core.documents.narrative_channel import DocumentNarrative
    from core.documents.retrieval import HybridRetriever
    from core.fastpath.autopath import Autopaths
    from core.fastpath.cascade import Cascade
    from core.fastpath.feedback import Feedback
    from core.knowledge.document_sources import DocumentSource
    from core.knowledge.freshness import Freshness
    from core.planning.catalog import Catalog
    from core.planning.model_planner import ModelPlanner
    from core.ports import LLM, ConversationStore, Embedder, VectorIndex
    from core.types import Answer, Request
    from storage.chunk_store import SqlChunkStore
    from storage.fastpath_store import SqlFastpathStore
    from storage.wal_checkpoint import WalCheckpointer

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
    _lexical: LexicalSync | None = field(default=None, repr=False)  # BM25, updated per document
    one_shot: bool = False  # a single `ricorda ask`: nothing loaded that the answer may not need
    # long-running processes: checks the knowledge-base version before each answer
    freshness: Freshness | None = field(default=None, repr=False)
    kb_versions: SqlKbVersions | None = field(default=None, repr=False)
    # long-running processes on SQLite: WAL checkpoints on a thread, not in an answer's commit
    checkpointer: WalCheckpointer | None = field(default=None, repr=False)
    notices: list[str] = field(default_factory=list)  # one-time lines for the operator

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

    def reload_glossary(self, glossary: Glossary | None = None) -> None:
        """Swap in `glossary` (None: the stored one, read on next use) and rebuild everything
        built from it: names, gates, clearance (the answerer) and the narrative channel. A
        cascade already built keeps its identity (adapters and metrics hold it) and gets the
        new answerer, the one part of it that depends on the glossary."""
        self._glossary = glossary
        for cached in ("answerer", "narrative"):
            self.__dict__.pop(cached, None)
        cascade = self.__dict__.get("cascade")
        if cascade is not None:
            cascade.answerer = self.answerer

    # -- answering with the current knowledge base --------------------------------------------

    def answer(self, request: Request) -> Answer:
        """The entry every long-running adapter calls: bring the knowledge base up to date
        (one version read; see core.knowledge.freshness), then run the cascade."""
        self.ensure_fresh()
        return self.cascade.answer(request)

    def ensure_fresh(self) -> None:
        """Reload facts / glossary that another process (or replica) changed since the last
        check. A one-shot process has nothing to check: it read the database just now."""
        if self.freshness is not None:
            self.freshness.check()

    def _reload_glossary_if_valid(self) -> None:
        """Swap in the stored glossary; one that does not parse (written by another version)
        is logged and the one in use kept, rather than failing every question."""
        if self._glossary is None:
            return  # not loaded yet: the first use reads the current one
        stored = self.glossaries.load()
        if stored is None:
            return
        try:
            fresh = parse_glossary(stored.text, source=stored.source_path or "glossary")
        except ConfigError as exc:
            log.error("the stored glossary does not load, keeping the one in use: %s", exc)
            return
        self.reload_glossary(fresh)

    def _documents_stamp(self) -> str:
        """What the retriever was built for: in a serving process the documents version its
        last check saw (the retriever is rebuilt when it moves), else a read of the table."""
        if self.freshness is not None:
            return f"v{self.freshness.seen(DOCUMENTS)}"
        return self.chunks.fingerprint()

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
        from core.fastpath.autopath import Autopaths
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

        return Metrics(cache_size=self._stored_plans)

    @cached_property
    def cascade(self) -> Cascade:
        from core.fastpath.cascade import Cascade

        return Cascade(
            answerer=self.answerer,
            fastpaths=self.fastpaths,
            autopaths=_Lazy(lambda: self.autopaths),
            embedder=lambda: self.embedder,
            thresholds=self.thresholds,
            exact_only=self.one_shot,
            # a one-shot process serves no /metrics: it does not pay for prometheus-client
            on_answer=None if self.one_shot else self.metrics.observe_answer,
            # a long-running process learns off the answer path; a one-shot one exits next
            background=not self.one_shot,
            observe_on_feedback=True,  # self.feedback calls observe_turn before a verdict
        )

    def _stored_plans(self) -> int:
        """The L0 entries, counted once what the writer still holds is stored (a scrape right
        after an answer must count its plan)."""
        self.flush_learning()
        return self.fastpaths.count()

    def flush_learning(self) -> None:
        """Write what the cascade still has queued (plans, observations, use counts)."""
        cascade = self.__dict__.get("cascade")
        if cascade is not None:
            cascade.flush()

    @cached_property
    def feedback(self) -> Feedback:
        from core.fastpath.feedback import Feedback

        return Feedback(
            turns=self.turns,
            fastpaths=self.fastpaths,
            autopaths=_Lazy(lambda: self.autopaths),
            observe=lambda turn: self.cascade.observe_turn(turn),
            on_feedback=self.metrics.observe_feedback,
            clock=self.cascade.clock,
        )

    @cached_property
    def admin(self) -> Admin:
        from core.chat.admin import Admin

        return Admin(
            fastpaths=self.fastpaths,
            turns=self.turns,
            autopaths=_Lazy(lambda: self.autopaths),
            promotions=_Lazy(lambda: self.maintenance.promotions),
            sync=self.flush_learning,
        )

    @cached_property
    def catalog(self) -> Catalog:
        """Built-in tools plus the composite executors admins approved (nightly promotion)."""
        from bot.maintenance_wiring import build_catalog

        return build_catalog(self.engine)

    @cached_property
    def maintenance(self) -> MaintenanceServices:
        from bot.maintenance_wiring import maintenance_services

        return maintenance_services(
            self.settings, self.engine, self.catalog, sync=self.flush_learning
        )

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
            # a one-shot ask without --chat stands alone: it never opens the conversation store
            conversations=cast("ConversationStore", _Lazy(self._conversation_store)),
            conversation_ttl=dt.timedelta(minutes=self.settings.conversation_ttl_minutes),
            bounds=self.bounds,
            model_planner=self._model_planner(),
        )

    def _model_planner(self) -> ModelPlanner | None:
        """The last tier of the cascade when RICORDA_MODEL_PLANNER is on (needs RICORDA_LLM)."""
        if not self.settings.model_planner:
            return None
        from core.planning.model_planner import ModelPlanner

        return ModelPlanner(
            lambda: self.llm,
            self.glossary,
            timeout=self.settings.model_planner_timeout_s,
            max_tokens=self.settings.model_planner_max_tokens,
        )

    def _conversation_store(self) -> ConversationStore:
        from storage.conversation_store import SqlConversationStore

        return SqlConversationStore(self.engine)

    @property
    def bounds(self) -> Bounds:
        """The bounds of one question's work, from the settings (core.planning.bounds)."""
        s = self.settings
        return Bounds(max_lookups=s.max_lookups, max_table_cells=s.max_table_cells,
                      max_range_periods=s.max_range_periods,
                      max_answer_chars=s.max_answer_chars,
                      max_messages=s.max_messages_per_answer)

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
        from core.documents.narrative_channel import DocumentNarrative

        return DocumentNarrative(
            names=NameIndex(self.glossary),
            build_retriever=self._build_retriever,
            fingerprint=self._documents_stamp,
            llm=lambda: self.llm,
            llm_timeout=self.settings.llm_timeout_s,
        )

    def _build_retriever(self) -> HybridRetriever | None:
        from core.documents.lexical_sync import LexicalSync
        from core.documents.retrieval import HybridRetriever
        from storage.lexical_snapshot import LexicalSnapshots

        if self._lexical is None:  # kept in the data dir: a restart maps it, not re-tokenises
            self._lexical = LexicalSync(LexicalSnapshots(self.settings.data_dir / "lexical"))
        bm25 = self._lexical.current(self.chunks, self.chunk_tokenizer().words)
        if bm25 is None:
            return None
        # connected on first search, again after a failure: a vector store that is down
        # leaves BM25 answering (the retriever logs it) until it is back
        vectors = cast("VectorIndex", _Lazy(self.vector_index))
        return HybridRetriever(
            self.chunks, bm25, vectors, self.embedder, relevance_floor=self.thresholds().relevance
        )

    def chunk_tokenizer(self) -> ChunkTokenizer:
        """The BM25 tokenizer for the glossary's names (they shape the tokens of Chinese text:
        a glossary that changed them starts the index over). Ingest stores each chunk's tokens
        made with it; the serving index reads them back (core.documents.chunk_tokens)."""
        from core.documents.chunk_tokens import ChunkTokenizer

        return ChunkTokenizer(tuple(sorted({n for t in self._all_terms() for n in t.names})))

    def _all_terms(self) -> list[Term]:
        g = self.glossary
        return [*g.metrics.values(), *g.entities.values(), *g.channels.values()]

    def ingest_documents(
        self,
        folder: Path,
        *,
        source: DocumentSource | None = None,
        prune: bool = False,
        reindex: bool = False,
        progress: Callable[[int, int, str], None] | None = None,
    ) -> DocumentIngestReport:
        """Ingest `folder` into `source` (by default the source it belongs to; see
        `document_sources`, which also lists the declared sources nested in it)."""
        from core.documents.document_ingest import ingest_documents
        from core.documents.narrative_channel import glossary_tagger
        from core.knowledge.document_sources import nested_roots
        from storage.document_readers import read_document, read_title

        if source is None:
            source, skip = self.document_source(folder)
        else:
            skip = nested_roots(source, self.glossary.documents) if source.declared else set()
        if reindex:  # every file is embedded again into fresh collections
            for record in self.chunks.documents():
                self.chunks.delete_document(record.path)
        self.chunks.save_source(source)
        report = ingest_documents(
            folder,
            source=source,
            skip_roots=skip,
            chunk_store=self.chunks,
            vector_index=self.vector_index(recreate=reindex),
            embedder=self.embedder,
            prune=prune,
            progress=progress,
            tagger=glossary_tagger(NameIndex(self.glossary)),
            reader=read_document,
            titler=read_title,
            tokens_of=self.chunk_tokenizer().stored,
        )
        if self.freshness is not None:  # this process answers from what it just ingested
            self.freshness.check(force=True)
        return report

    def document_source(self, folder: Path) -> tuple[DocumentSource, set[Path]]:
        """The source a folder's documents belong to, and the roots of sources nested in it.

        Declared sources (the glossary's [[documents]]) decide alone when there are any. With
        none, a folder is an undeclared source of its own (or of the undeclared folder holding
        it), RESTRICTED when its resolved path has a `restricted` component.
        """
        from core.knowledge.document_sources import locate, nested_roots

        if not folder.is_dir():
            raise IngestError(f"{folder}: not a folder")
        declared = self.glossary.documents
        if declared:
            source = locate(folder, declared)
            return source, nested_roots(source, declared)
        return undeclared_source(folder, self.chunks.sources()), set()

    def document_sources(self, folder: Path) -> list[tuple[Path, DocumentSource]]:
        """What ingesting `folder` means: (folder, its source), then (root, source) for every
        declared source nested inside it, so `ricorda ingest docs/` ingests all of docs/."""
        source, nested = self.document_source(folder)
        by_root = {s.root: s for s in self.glossary.documents}
        inside = [r for r in nested if r == folder.resolve() or folder.resolve() in r.parents]
        return [(folder, source)] + [(r, by_root[r]) for r in sorted(inside)]

    def today(self) -> dt.date:
        if self.settings.reference_date:
            return dt.date.fromisoformat(self.settings.reference_date)
        return dt.date.today()

    def close(self) -> None:
        cascade = self.__dict__.get("cascade")
        if cascade is not None:
            cascade.close()  # what it still has queued is written first
        if self.kb_versions is not None:
            self.kb_versions.close()
        if self.checkpointer is not None:
            self.checkpointer.close()
        close_kept(self.engine)
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
    if settings.kb_check_interval_ms is not None and settings.kb_check_interval_ms < 0:
        raise ConfigError("kb_check_interval_ms must be 0 (every answer) or more")
    settings.ensure_data_dir()
    engine = open_database(settings.database)
    notices = []
    adopted = adopt_legacy_documents(engine)
    if adopted:
        notices.append(ADOPTION_NOTICE.format(n=adopted))
        log.warning("%s", notices[-1])
    app = App(
        settings=settings,
        engine=engine,
        facts=SqlFactStore(engine, preload=not one_shot),
        turns=SqlTurnStore(engine),
        glossaries=SqlGlossaryStore(engine),
        one_shot=one_shot,
        notices=notices,
    )
    if not one_shot:
        from core.knowledge.freshness import Freshness
        from storage.wal_checkpoint import WalCheckpointer

        app.checkpointer = WalCheckpointer.for_engine(engine)
        app.kb_versions = SqlKbVersions(engine)
        app.freshness = Freshness(
            app.kb_versions,
            {
                FACTS: app.facts.catch_up,  # the one change's rows, else the whole table
                GLOSSARY: app._reload_glossary_if_valid,
                DOCUMENTS: lambda: None,  # the retriever follows `_documents_stamp` lazily
            },
            interval_s=kb_check_interval_ms(settings, engine.dialect.name) / 1000,
        )
        app.freshness.baseline()  # before anything is loaded: what loads next is this fresh
    return app


KB_CHECK_MS = {"sqlite": 0, "postgresql": 200}  # see Settings.kb_check_interval_ms


def kb_check_interval_ms(settings: Settings, dialect: str) -> int:
    """How often a serving process reads the knowledge-base version (0: every answer)."""
    if settings.kb_check_interval_ms is not None:
        return settings.kb_check_interval_ms
    return KB_CHECK_MS.get(dialect, 0)


ADOPTION_NOTICE = (
    "{n} documents ingested before document sources existed were adopted into source "
    "'default' (declare their folder in the glossary as [[documents]] source = \"default\")"
)


def undeclared_source(folder: Path, known: list[DocumentSource]) -> DocumentSource:
    """The implicit source of a folder named while no source is declared.

    The undeclared source already holding the folder, else a new one: `default` while that
    name is free (documents adopted from before sources existed live there), else the folder's
    name made unique. RESTRICTED follows the resolved path, never the spelling of `folder`.
    """
    from core.knowledge.document_sources import DEFAULT_SOURCE, DocumentSource, path_is_restricted

    resolved = folder.resolve()
    restricted = path_is_restricted(resolved)
    holders = [
        s for s in known if not s.declared and (s.root == resolved or s.root in resolved.parents)
    ]
    if holders:
        holder = max(holders, key=lambda s: len(s.root.parts))
        return DocumentSource(holder.name, holder.root, path_is_restricted(holder.root), False)
    taken = {s.name for s in known if not (s.name == DEFAULT_SOURCE and unrooted(s))}
    if DEFAULT_SOURCE not in taken:
        return DocumentSource(DEFAULT_SOURCE, resolved, restricted, False)
    base = re.sub(r"[^A-Za-z0-9_.-]", "-", resolved.name).strip(".-") or "documents"
    name, n = base[:60], 2
    while name in taken:
        name, n = f"{base[:56]}-{n}", n + 1
    return DocumentSource(name, resolved, restricted, False)


def unrooted(source: DocumentSource) -> bool:
    """The `default` source recorded by adoption, before any folder claimed it."""
    return str(source.root) in ("", ".")


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
