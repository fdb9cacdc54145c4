"""The request cascade: security gate, L0a (exact hash), L0b (cosine), L1 (autopath), planner.

Every level replays a *plan* through the same executor the planner uses, with every slot
re-resolved from the current request; a plan that does not fit the request is a miss, never
a reuse. Successful turns register their plan (last writer wins) and leave an L1 observation.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.answering import Answerer, Prepared
from core.canonical import cache_key
from core.executors import Executor, cacheable
from core.fastpath_entry import FastpathEntry, FastpathStore
from core.learning import BackgroundLearning, InlineLearning, Learning
from core.plan import Plan, intent_hash
from core.ports import Embedder, TurnRecord
from core.thresholds import CosineThresholds
from core.types import Answer, Request

if TYPE_CHECKING:
    import numpy as np

    from core.autopath import Autopaths

log = logging.getLogger("ricorda.cascade")

L0A, L0B, L1, PLANNER = "L0a", "L0b", "L1", "planner"
LEVELS = (L0A, L0B, L1, PLANNER)
ORIGIN = {PLANNER: "planner", L0B: "cosine", L1: "autopath"}


class Cascade:
    def __init__(
        self,
        *,
        answerer: Answerer,
        fastpaths: FastpathStore,
        autopaths: Autopaths | None = None,
        embedder: Callable[[], Embedder | None] = lambda: None,
        thresholds: Callable[[], CosineThresholds | None] = lambda: None,
        l0_threshold: float | None = None,
        clock: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC),
        exact_only: bool = False,
        on_answer: Callable[[Answer], None] | None = None,
        background: bool = False,
    ) -> None:
        """`exact_only` (a one-shot `ricorda ask`): L0a and the planner only. Loading the
        embedder costs a second, more than the question; entries it registers get their
        embedding the first time a long-running process (chat, serve) serves them.

        `on_answer` observes every answer (metrics); it cannot break or change one.

        `background` (a long-running process): plan registrations, L1 observations and use
        counts are written by one writer thread in batches (core.learning), off the answer
        path; the turn is still written before the answer is returned. Call `close()`."""
        self.answerer = answerer
        self.fastpaths = fastpaths
        self.autopaths = autopaths
        self._embedder = embedder
        self._thresholds = thresholds
        self.l0_threshold = l0_threshold
        self.clock = clock
        self.exact_only = exact_only
        self.on_answer = on_answer
        self._plans = PlanMemo()
        self._pending: dict[str, FastpathEntry] = {}  # registrations not written yet, by hash
        self._pending_lock = threading.Lock()
        self.learning: Learning[_Record] = (
            BackgroundLearning(self._learn) if background else InlineLearning(self._learn)
        )

    def answer(self, request: Request) -> Answer:
        ans = self._answer(request)
        if self.on_answer is not None:
            try:
                self.on_answer(ans)
            except Exception:  # an observer's failure must never cost the user an answer
                log.exception("on_answer observer failed; ignored")
        return ans

    def flush(self) -> None:
        """Wait until every learning write queued so far is stored (before feedback and admin
        reads, and in tests that look at the stores)."""
        self.learning.flush()

    def close(self) -> None:
        """Write what is queued and stop the writer thread."""
        self.learning.close()

    def _answer(self, request: Request) -> Answer:
        started = time.perf_counter()
        prepared = self.answerer.prepare(request)
        if isinstance(prepared, Answer):  # refused, empty, bad option: never cached
            return self.answerer.finish(request, prepared, started)
        canonical, key = cache_key(prepared.text, prepared.language, request.fixed_slots)
        memo = self._plans.key(self.answerer, prepared)
        self._plans.reuse(memo, prepared)
        ans, embedding, hit_cluster = self._fast(prepared, canonical, key)
        own_plan = self.answerer.plan(prepared) if ans is None else None
        if ans is None:
            ans = (
                self.answerer.run(own_plan, prepared)
                if own_plan is not None
                else self.answerer.clarify(prepared)
            )
        self._plans.keep(memo, prepared)
        ans = self.answerer.finish(request, ans, started)  # the turn is durable from here
        if not ans.succeeded:
            return ans
        observe = self.autopaths is not None and (embedding is not None or not self.exact_only)
        if ans.served_by != L0A:
            self._register(ans, canonical, key, embedding, restricted=prepared.cleared)
        if observe:
            self._submit(
                _Observe(
                    ans.turn_id,
                    ans.plan,
                    ans.latency_ms,
                    canonical,
                    embedding,
                    hit_cluster,
                    prepared.cleared,
                )
            )
        return ans

    def observe_turn(self, turn: TurnRecord) -> None:
        """Make sure a turn has its L1 observation before a verdict on it counts: a one-shot
        process answers without the embedder, so its turns are observed when feedback comes;
        a serving process may still have it queued."""
        self.flush()
        facts = (turn.answer or {}).get("facts", [])
        if self.autopaths is None or not turn.plan or turn.served_by not in LEVELS:
            return
        if any(f.get("status") == "unrecognized_param" for f in facts):
            return
        canonical, _ = cache_key(turn.question, turn.language, turn.fixed_slots)
        embedding = _embed(self._embedder(), canonical)
        if embedding is None:
            return
        self._observe(
            turn.id, turn.plan, turn.latency_ms, embedding, None, restricted=turn.restricted
        )

    # -- levels ----------------------------------------------------------------------------

    def _fast(
        self, prepared: Prepared, canonical: str, key: str
    ) -> tuple[Answer | None, np.ndarray | None, str | None]:
        """L0a, then -- only where they can save work -- the embedding, L0b and L1.

        A request the rule planner resolves completely into a structured plan is answered by
        the planner: a cached plan is replayed only when it has the planner's own framework,
        with every slot re-read from the request, so L0b or L1 could only run the planner's
        plan after paying for an embedding and a cosine search. The one exception is an
        active autopath of that very framework: L1 then serves (and counts its use)."""
        entry = self._by_hash(key)
        if entry is not None:
            ans = self.answerer.replay(Plan.from_dict(entry.plan), prepared, served_by=L0A)
            if ans is not None:
                self._submit(_Touch(entry.id, self.clock()))
                if entry.embedding is None and not self.exact_only:
                    self._submit(_Backfill(entry, canonical))
                return ans, entry.embedding, None
        if self.exact_only:
            return None, None, None
        own_plan = self.answerer.plan(prepared)
        if resolved_by_rules(prepared, own_plan) and not self._l1_serves(own_plan):
            return None, None, None
        embedder = self._embedder()
        embedding = _embed(embedder, canonical)
        if embedder is None or embedding is None:
            return None, None, None
        thresholds = self._thresholds()
        l0 = (
            self.l0_threshold
            if self.l0_threshold is not None
            else (thresholds.l0 if thresholds else None)
        )
        if l0 is not None:
            for near, cosine in self.fastpaths.nearest(embedding, embedder=embedder.name, k=3):
                if cosine < l0 or near.query_specific:
                    continue
                ans = self.answerer.replay(Plan.from_dict(near.plan), prepared, served_by=L0B)
                if ans is not None:
                    self._submit(_Touch(near.id, self.clock()))
                    return ans, embedding, None
        if self.autopaths is not None:
            intent = own_plan.intent if own_plan is not None else "unknown"
            hit = self.autopaths.lookup(embedding=embedding, intent_hash=intent_hash(intent))
            plan = (
                Plan.from_dict(hit.plan) if hit is not None and isinstance(hit.plan, dict) else None
            )
            # a champion that does not fit this request is not its failure: no use is counted
            if hit is not None and plan is not None and self.answerer.fits(plan, prepared):
                ans = self.answerer.replay(plan, prepared, served_by=L1)
                self.autopaths.note_use(
                    hit.autopath_id,
                    ok=ans is not None,
                    latency_ms=0.0 if ans is None else ans.latency_ms,
                )
                if ans is not None:
                    return ans, embedding, hit.cluster_id
        return None, embedding, None

    def _by_hash(self, key: str) -> FastpathEntry | None:
        """The stored entry, or this process's own registration still queued for writing."""
        entry = self.fastpaths.by_hash(key)
        if entry is None and self._pending:
            with self._pending_lock:
                entry = self._pending.get(key)
        return entry

    def _l1_serves(self, own_plan: Plan | None) -> bool:
        if self.autopaths is None or own_plan is None:
            return False
        active = getattr(self.autopaths, "has_active_framework", None)
        return True if active is None else bool(active(own_plan.framework_hash()))

    # -- learning --------------------------------------------------------------------------

    def _register(
        self,
        ans: Answer,
        canonical: str,
        key: str,
        embedding: np.ndarray | None,
        *,
        restricted: bool = False,
    ) -> None:
        """`restricted`: asked from a cleared chat (its text is shown to cleared viewers only)."""
        plan = Plan.from_dict(ans.plan)
        if not registrable(plan, self.answerer.catalog):
            return
        now = self.clock()
        entry = FastpathEntry(
            id=uuid.uuid4().hex,
            canonical_text=canonical,
            canonical_hash=key,
            plan=ans.plan,
            route=plan.route,
            intent=plan.intent,
            intent_hash=intent_hash(plan.intent),
            framework_hash=plan.framework_hash(),
            origin=ORIGIN.get(ans.served_by, "planner"),
            query_specific=plan.query_specific,
            embedder="",
            embedding=embedding,
            created_at=now,
            last_used_at=now,
            n_uses=0,
            restricted=restricted,
        )
        with self._pending_lock:
            self._pending[key] = entry
        self._submit(_Register(entry, embed=not self.exact_only))

    def _observe(
        self,
        turn_id: str,
        plan_dict: dict[str, Any],
        latency_ms: float,
        embedding: np.ndarray,
        cluster: str | None,
        *,
        restricted: bool = False,
    ) -> None:
        assert self.autopaths is not None
        plan = Plan.from_dict(plan_dict)
        if not registrable(plan, self.answerer.catalog):
            return
        self.autopaths.observe(
            turn_id=turn_id,
            intent=plan.intent,
            intent_hash=intent_hash(plan.intent),
            embedding=embedding,
            framework_hash=plan.framework_hash(),
            plan=plan_dict,
            query_specific=plan.query_specific,
            latency_ms=latency_ms,
            cluster_id=cluster,
            restricted=restricted,
        )

    def _submit(self, record: _Record) -> None:
        self.learning.submit(record)

    def _learn(self, batch: list[_Record]) -> None:
        """One batch of learning writes: the embeddings it still needs in one call, then the
        writes in the order they were queued (a use is counted after its registration)."""
        texts = sorted({t for r in batch if (t := _needs_embedding(r, self.exact_only))})
        embedder = self._embedder() if texts else None
        vectors: dict[str, np.ndarray] = {}
        if embedder is not None:
            try:
                vectors = dict(zip(texts, embedder.embed(texts), strict=True))
            except Exception:
                log.exception("the embedder failed; learning without embeddings")
        name = embedder.name if embedder is not None else ""
        touches: list[tuple[str, dt.datetime]] = []
        for record in batch:
            try:
                self._apply(record, vectors, name, touches)
            except Exception:  # one bad write must not lose the rest of the batch
                log.exception("learning write %s failed; skipped", type(record).__name__)
        if touches:
            touch_many = getattr(self.fastpaths, "touch_many", None)
            if touch_many is not None:
                touch_many(touches)
            else:
                for entry_id, at in touches:
                    self.fastpaths.touch(entry_id, at)

    def _apply(
        self,
        record: _Record,
        vectors: dict[str, np.ndarray],
        embedder: str,
        touches: list[tuple[str, dt.datetime]],
    ) -> None:
        if isinstance(record, _Touch):
            touches.append((record.entry_id, record.at))
        elif isinstance(record, _Register):
            entry = record.entry
            try:
                if entry.embedding is None and record.embed:
                    entry.embedding = vectors.get(entry.canonical_text)
                if entry.embedding is not None:
                    entry.embedder = entry.embedder or self._embedder_name(embedder)
                self.fastpaths.upsert(entry)
            finally:
                with self._pending_lock:
                    if self._pending.get(entry.canonical_hash) is entry:
                        del self._pending[entry.canonical_hash]
        elif isinstance(record, _Backfill):
            vector = vectors.get(record.canonical)
            if vector is not None and record.entry.embedding is None:
                record.entry.embedding = vector
                record.entry.embedder = embedder
                self.fastpaths.upsert(record.entry)
        elif isinstance(record, _Observe):
            vector = (
                record.embedding if record.embedding is not None else vectors.get(record.canonical)
            )
            if vector is not None and self.autopaths is not None:
                self._observe(
                    record.turn_id,
                    record.plan,
                    record.latency_ms,
                    vector,
                    record.cluster,
                    restricted=record.restricted,
                )

    def _embedder_name(self, fallback: str) -> str:
        if fallback:
            return fallback
        embedder = self._embedder()
        return embedder.name if embedder is not None else ""


@dataclass(frozen=True)
class _Touch:
    entry_id: str
    at: dt.datetime


@dataclass(frozen=True)
class _Register:
    entry: FastpathEntry
    embed: bool  # False in a one-shot process: no embedder is loaded for it


@dataclass(frozen=True)
class _Backfill:
    """An entry registered without an embedding (by a one-shot process) gets one."""

    entry: FastpathEntry
    canonical: str


@dataclass(frozen=True)
class _Observe:
    turn_id: str
    plan: dict[str, Any]
    latency_ms: float
    canonical: str
    embedding: np.ndarray | None  # None: embedded in the batch
    cluster: str | None
    restricted: bool


_Record = _Touch | _Register | _Backfill | _Observe


def _needs_embedding(record: _Record, exact_only: bool) -> str | None:
    if isinstance(record, _Register) and record.embed and record.entry.embedding is None:
        return record.entry.canonical_text
    if isinstance(record, _Backfill) and not exact_only:
        return record.canonical
    if isinstance(record, _Observe) and record.embedding is None:
        return record.canonical
    return None


def resolved_by_rules(prepared: Prepared, plan: Plan | None) -> bool:
    """The rule planner understood every part of a structured request: no unknown names or
    periods, a plan to run. Only its own plan could then answer it, whatever level served."""
    intent = prepared.intent
    return (
        plan is not None
        and plan.route == "structured"
        and prepared.tool is None
        and bool(plan.steps)
        and not intent.unknown_entities
        and not intent.bad_periods
    )


class PlanMemo:
    """The planner's plan for an exact request, kept so an exact repeat (L0a) need not plan it
    again to check that the stored plan fits.

    The plan is a function of the cleaned text, language, clearance, reference date and tapped
    slots, of the glossary (the answerer: a glossary reload builds a new one) and of the
    approved macros (the catalog's generation); all of them are the key, so a hit is exactly
    the plan the planner would make now. Facts and documents are read when the plan runs."""

    def __init__(self, size: int = 4096) -> None:
        self._size = size
        self._plans: OrderedDict[tuple[Any, ...], Plan | None] = OrderedDict()
        self._owner: object | None = None
        self._lock = threading.Lock()

    def key(self, answerer: Answerer, prepared: Prepared) -> tuple[Any, ...]:
        with self._lock:
            if answerer is not self._owner:
                self._plans.clear()
                self._owner = answerer
        request = prepared.request
        return (
            getattr(answerer.catalog, "generation", 0),
            prepared.text,
            prepared.language,
            prepared.cleared,
            prepared.reference,
            prepared.tool,
            tuple(sorted(request.fixed_slots.items())),
        )

    def reuse(self, key: tuple[Any, ...], prepared: Prepared) -> None:
        with self._lock:
            if key in self._plans:
                self._plans.move_to_end(key)
                prepared.planned = self._plans[key]

    def keep(self, key: tuple[Any, ...], prepared: Prepared) -> None:
        if not prepared.is_planned:
            return
        with self._lock:
            self._plans[key] = prepared.plan_made
            self._plans.move_to_end(key)
            while len(self._plans) > self._size:
                self._plans.popitem(last=False)


def registrable(plan: Plan, catalog: Mapping[str, Executor] | None = None) -> bool:
    """Design section 3: no absolute dates, no context-dependent tools, something to run."""
    return bool(plan.steps) and cacheable(plan, catalog) and not plan.has_absolute_date()


def _embed(embedder: Embedder | None, canonical: str) -> np.ndarray | None:
    """The question's embedding, or None when the embedder fails: the cached levels are then
    skipped and the planner answers, rather than the user getting no answer at all."""
    if embedder is None:
        return None
    try:
        return embedder.embed([canonical])[0]
    except Exception:
        log.exception("the embedder failed; answering without the cached levels")
        return None
