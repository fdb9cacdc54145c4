"""The core services of one process, built from checked settings and opened storage.

The builder (bot.wiring.build) decides the order: it builds the light parts when the process
starts (`build`, in its AT_START order), the answer path as one unit in its ANSWER_PATH order
when the first question comes (it needs the ingested glossary), and the heavy parts (chat
model, documents with their embedder and vector store, autopaths, which need the embedder's
thresholds) each on first use. Every part's imports are inside the method that builds it, so a
structured `ricorda ask` imports only what its answer needs; `built` records the order parts
were built in. The document side lives in bot.wiring.document_services; the freshness check
before each answer in core.pipeline.answering_service.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

from bot.settings.checks import CheckedSettings
from bot.wiring.storage_services import Storage
from core.contracts.deferred import Deferred
from core.fastpath.thresholds import CosineThresholds
from core.knowledge.current_glossary import CurrentGlossary
from core.knowledge.glossary import Glossary
from core.knowledge.names import NameIndex
from core.planning.answering import Answerer
from core.planning.bounds import Bounds
from core.question.intent import RuleIntentParser
from core.question.security import SecurityGate

if TYPE_CHECKING:
    from bot.wiring.document_services import DocumentServices
    from bot.wiring.maintenance import MaintenanceServices
    from bot.wiring.metrics import Metrics
    from core.chat.admin import Admin
    from core.contracts.ports import LLM, ConversationStore
    from core.fastpath.autopath import Autopaths
    from core.fastpath.feedback import Feedback
    from core.pipeline.answering_service import AnsweringService
    from core.pipeline.pipeline import Pipeline
    from core.planning.catalog import Catalog
    from core.planning.core_lock import CoreLock
    from core.planning.model_planner import ModelPlanner


class part(cached_property):  # a decorator, named like cached_property
    """A service built once, its name added to the owner's `built` log when it is done (a part
    built inside another's construction is logged first: it was finished first)."""

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None or self.attrname in instance.__dict__:
            return super().__get__(instance, owner)
        value = super().__get__(instance, owner)
        instance.built.append(self.attrname)
        return value


class CoreServices:
    """`one_shot`: a single `ricorda ask`, nothing loaded that the answer may not need, no
    metrics, learning done before exit rather than on a thread.

    `answer_path`: the parts built together, in this order, on the first question
    (bot.wiring.build.ANSWER_PATH)."""

    def __init__(
        self, checked: CheckedSettings, storage: Storage, *, one_shot: bool,
        answer_path: Sequence[str] = ("answerer", "pipeline"),
    ) -> None:
        self.checked = checked
        self.settings = checked.settings
        self.storage = storage
        self.one_shot = one_shot
        self.answer_path = tuple(answer_path)
        self.built: list[str] = []  # the parts in the order they were built
        self.current_glossary = CurrentGlossary(storage.glossaries)
        self._answerer: tuple[int, Answerer] | None = None  # (glossary generation, it)
        self._path: dict[str, Any] = {}  # the answer path's parts built so far

    def build(self, parts: Sequence[str]) -> None:
        """Build `parts` now, in this order (the builder's AT_START)."""
        for name in parts:
            getattr(self, name)

    def _on_path(self, name: str) -> Any:
        """A part of the answer path: the first one asked for builds the whole path, in its
        order, whichever it is; a part outside a one-shot process's path comes after it."""
        if name not in self._path:
            for step in (*self.answer_path, name):
                if step == "answerer":
                    self.answerer  # noqa: B018 (built and logged by the property)
                elif step not in self._path:
                    self._path[step] = getattr(self, f"_build_{step}")()
                    self.built.append(step)
        return self._path[name]

    @property
    def pipeline(self) -> Pipeline:
        """The one order of an answer (core.pipeline.pipeline), with this process's plan
        cache."""
        return self._on_path("pipeline")

    @property
    def answering(self) -> AnsweringService:
        """The entry every long-running adapter calls: freshness first, then the pipeline."""
        return self._on_path("answering")

    @property
    def feedback(self) -> Feedback:
        return self._on_path("feedback")

    # -- the knowledge base ------------------------------------------------------------------

    @property
    def glossary(self) -> Glossary:
        """The ingested glossary; a clear error before the first `ricorda ingest`."""
        return self.current_glossary.get()

    def reload_glossary(self, glossary: Glossary | None = None) -> None:
        """Swap in `glossary` (None: the stored one, read on next use). Everything built from
        it is rebuilt on next use; a pipeline already built keeps its identity (adapters and
        metrics hold it) and gets the new answerer."""
        self.current_glossary.replace(glossary)
        pipeline = self._path.get("pipeline")
        if pipeline is not None:
            pipeline.answerer = self.answerer

    def today(self) -> dt.date:
        return self.checked.reference_date or dt.date.today()

    @property
    def bounds(self) -> Bounds:
        """The bounds of one question's work, from the settings (core.planning.bounds)."""
        s = self.settings
        return Bounds(max_lookups=s.max_lookups, max_table_cells=s.max_table_cells,
                      max_range_periods=s.max_range_periods,
                      max_answer_chars=s.max_answer_chars,
                      max_messages=s.max_messages_per_answer)

    # -- answering ---------------------------------------------------------------------------

    def _build_answering(self) -> AnsweringService:
        from core.pipeline.answering_service import AnsweringService

        return AnsweringService(
            self.pipeline,
            glossary=self.current_glossary,
            answerer_for_glossary=lambda: self.answerer,
            facts=self.storage.facts,
            versions=self.storage.kb_versions,
            baseline=self.storage.kb_baseline,
            interval_s=self.checked.kb_check_interval_s,
        )

    @property
    def answerer(self) -> Answerer:
        """The answerer of the current glossary (names, gates and clearance come from it)."""
        generation = self.current_glossary.generation
        if self._answerer is None or self._answerer[0] != generation:
            s = self.settings
            glossary = self.glossary
            names = NameIndex(glossary)  # read once: the gate and the parser share it
            built = Answerer(
                glossary=glossary,
                names=names,
                parser=RuleIntentParser(names),
                gate=SecurityGate(names),
                glossary_version=generation,
                facts=self.storage.facts,
                turns=self.storage.turns,
                narrative=Deferred(lambda: self.documents.narrative),  # on the first "why" question
                today=self.today,
                max_question_chars=s.max_question_chars,
                rerank=s.llm.strip().lower() not in ("", "none", "off"),
                catalog=self.catalog,
                # a one-shot ask without --chat stands alone: it never opens the conversation
                # store
                conversations=Deferred(self._conversation_store),
                conversation_ttl=dt.timedelta(minutes=s.conversation_ttl_minutes),
                bounds=self.bounds,
                model_planner=self._model_planner(),
            )
            self._answerer = (generation, built)
            self.built.append("answerer")
        return self._answerer[1]

    def _model_planner(self) -> ModelPlanner | None:
        """The last tier of the pipeline when RICORDA_MODEL_PLANNER is on (needs RICORDA_LLM)."""
        if not self.settings.model_planner:
            return None
        from core.planning.model_planner import ModelPlanner

        return ModelPlanner(
            lambda: self.llm,
            self.glossary,
            timeout=self.settings.model_planner_timeout_s,
            max_tokens=self.settings.model_planner_max_tokens,
            outside=self.core_lock.outside,
        )

    @part
    def core_lock(self) -> CoreLock:
        """One core call at a time under serve, but for the model's thinking
        (core/planning/core_lock.py)."""
        from core.planning.core_lock import CoreLock

        return CoreLock(self.settings.model_planner_slots)

    def _conversation_store(self) -> ConversationStore:
        from storage.conversation_store import SqlConversationStore

        return SqlConversationStore(self.storage.engine)

    def _build_pipeline(self) -> Pipeline:
        from core.fastpath.plan_cache import PlanCache
        from core.pipeline.pipeline import Pipeline

        cache = PlanCache(
            fastpaths=self.storage.fastpaths,
            catalog=self.catalog,
            autopaths=Deferred(lambda: self.autopaths),
            embedder=lambda: self.documents.embedder,
            thresholds=self.thresholds,
            exact_only=self.one_shot,
            # a long-running process learns off the answer path; a one-shot one exits next
            background=not self.one_shot,
            observe_on_feedback=True,  # self.feedback calls observe_turn before a verdict
        )
        return Pipeline(
            self.answerer, cache,
            # a one-shot process serves no /metrics: it does not pay for prometheus-client
            on_answer=None if self.one_shot else self.metrics.observe_answer,
        )

    def thresholds(self) -> CosineThresholds:
        """The embedder's calibrated thresholds, each overridable by a setting."""
        base = self.documents.embedder.thresholds
        s = self.settings

        def pick(setting: float | None, default: float) -> float:
            return setting if setting is not None else default

        return CosineThresholds(
            l0=pick(s.l0_cosine_threshold, base.l0),
            cluster=pick(s.l1_cluster_threshold, base.cluster),
            floor=pick(s.l1_floor_threshold, base.floor),
            relevance=pick(s.retrieval_relevance_floor, base.relevance),
        )

    @part
    def documents(self) -> DocumentServices:
        from bot.wiring.document_services import DocumentServices
        from bot.wiring.withheld_guard import WithheldGuard

        return DocumentServices(
            self.settings, self.storage.engine, self.current_glossary,
            llm=lambda: self.llm,
            relevance_floor=lambda: self.thresholds().relevance,
            documents_seen=self._documents_seen,
            after_ingest=self._after_ingest,
            withheld=WithheldGuard(self.current_glossary, self.storage.facts,
                                   self.storage.engine),
        )

    def _documents_seen(self) -> int | None:
        return None if self.one_shot else self.answering.documents_seen()

    def _after_ingest(self) -> None:
        if not self.one_shot:  # this process answers from what it just ingested
            self.answering.ensure_fresh(force=True)

    @part
    def llm(self) -> LLM | None:
        from bot.models.llm_providers import build_llm

        return build_llm(self.settings)

    # -- the fast path (L0 cache, L1 autopaths), feedback, admin and maintenance --------------

    @part
    def autopaths(self) -> Autopaths:
        from core.fastpath.autopath import Autopaths
        from storage.autopath_store import SqlAutopathStore

        s = self.settings
        return Autopaths(
            SqlAutopathStore(self.storage.engine),
            thresholds=self.thresholds(),
            min_confirmations=s.autopath_min_confirmations,
            anti_failures=s.anti_autopath_failures,
            anti_days=s.anti_autopath_days,
            clock=lambda: dt.datetime.now(dt.UTC),
        )

    @part
    def metrics(self) -> Metrics:
        from bot.wiring.metrics import Metrics

        return Metrics(cache_size=self._stored_plans)

    def _stored_plans(self) -> int:
        """The L0 entries, counted once what the writer still holds is stored (a scrape right
        after an answer must count its plan)."""
        self.flush_learning()
        return self.storage.fastpaths.count()

    def flush_learning(self) -> None:
        """Write what the plan cache still has queued (plans, observations, use counts)."""
        pipeline = self._path.get("pipeline")
        if pipeline is not None:
            pipeline.flush()

    def _build_feedback(self) -> Feedback:
        from core.fastpath.feedback import Feedback

        return Feedback(
            turns=self.storage.turns,
            fastpaths=self.storage.fastpaths,
            autopaths=Deferred(lambda: self.autopaths),
            observe=lambda turn: self.pipeline.observe_turn(turn),
            on_feedback=self.metrics.observe_feedback,
            # a verified answer goes only with an admin's ✗ (the CLI is the operator's)
            is_admin=lambda user: user == "cli" or user in self.settings.admins,
        )

    @part
    def admin(self) -> Admin:
        from bot.wiring.turn_reports import read_report
        from core.chat.admin import Admin

        return Admin(
            fastpaths=self.storage.fastpaths,
            turns=self.storage.turns,
            autopaths=Deferred(lambda: self.autopaths),
            promotions=Deferred(lambda: self.maintenance.promotions),
            sync=self.flush_learning,
            report=lambda since, cleared: read_report(self.storage.engine, self.glossary, since,
                                                      cleared=cleared),
        )

    @part
    def catalog(self) -> Catalog:
        """Built-in tools plus the composite executors admins approved (nightly promotion)."""
        from bot.wiring.maintenance import build_catalog

        return build_catalog(self.storage.engine)

    @part
    def maintenance(self) -> MaintenanceServices:
        from bot.wiring.maintenance import maintenance_services

        return maintenance_services(
            self.checked, self.storage.engine, self.catalog, sync=self.flush_learning
        )

    def close(self) -> None:
        """What the plan cache still has queued is written first."""
        pipeline = self._path.get("pipeline")
        if pipeline is not None:
            pipeline.close()

