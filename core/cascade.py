"""The request cascade: security gate, L0a (exact hash), L0b (cosine), L1 (autopath), planner.

Every level replays a *plan* through the same executor the planner uses, with every slot
re-resolved from the current request; a plan that does not fit the request is a miss, never
a reuse. Successful turns register their plan (last writer wins) and leave an L1 observation.
A question whose answer was rejected is answered by the planner alone until it is confirmed
(core.rejections).
"""

from __future__ import annotations

import datetime as dt
import logging
import time
import uuid
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from core.answering import Answerer, Prepared
from core.canonical import cache_key
from core.executors import Executor, cacheable
from core.fastpath_entry import FastpathEntry, FastpathStore
from core.plan import Plan, intent_hash
from core.ports import Embedder, TurnRecord
from core.rejections import is_rejection
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
    ) -> None:
        """`exact_only` (a one-shot `ricorda ask`): L0a and the planner only. Loading the
        embedder costs a second, more than the question; entries it registers get their
        embedding the first time a long-running process (chat, serve) serves them.

        `on_answer` observes every answer (metrics); it cannot break or change one."""
        self.answerer = answerer
        self.fastpaths = fastpaths
        self.autopaths = autopaths
        self._embedder = embedder
        self._thresholds = thresholds
        self.l0_threshold = l0_threshold
        self.clock = clock
        self.exact_only = exact_only
        self.on_answer = on_answer

    def answer(self, request: Request) -> Answer:
        ans = self._answer(request)
        if self.on_answer is not None:
            try:
                self.on_answer(ans)
            except Exception:  # an observer's failure must never cost the user an answer
                log.exception("on_answer observer failed; ignored")
        return ans

    def _answer(self, request: Request) -> Answer:
        started = time.perf_counter()
        prepared = self.answerer.prepare(request)
        if isinstance(prepared, Answer):  # refused, empty, bad option: never cached
            return self.answerer.finish(request, prepared, started)
        canonical, key = cache_key(prepared.text, prepared.language, request.fixed_slots)
        own_plan = self.answerer.plan(prepared)
        entry = self.fastpaths.by_hash(key)
        rejected = is_rejection(entry)  # a ✗ on this question: the planner alone, no caching
        ans, embedding, hit_cluster = (
            (None, None, None)
            if rejected
            else self._fast(prepared, canonical, key, own_plan, entry)
        )
        if ans is None:
            ans = (
                self.answerer.run(own_plan, prepared)
                if own_plan is not None
                else self.answerer.clarify(prepared)
            )
        ans = self.answerer.finish(request, ans, started)
        if ans.succeeded and ans.served_by != L0A and not rejected:
            self._register(ans, canonical, key, embedding, restricted=prepared.cleared)
        if ans.succeeded and embedding is not None and self.autopaths is not None:
            self._observe(
                ans.turn_id, ans.plan, ans.latency_ms, embedding, hit_cluster,
                restricted=prepared.cleared,
            )
        return ans

    def observe_turn(self, turn: TurnRecord) -> None:
        """Make sure a turn has its L1 observation before a verdict on it counts: a one-shot
        process answers without the embedder, so its turns are observed when feedback comes."""
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
        self,
        prepared: Prepared,
        canonical: str,
        key: str,
        own_plan: Plan | None,
        entry: FastpathEntry | None,
    ) -> tuple[Answer | None, np.ndarray | None, str | None]:
        """`entry`: this question's own L0 entry (by hash), looked up by the caller."""
        if entry is not None:
            ans = self.answerer.replay(Plan.from_dict(entry.plan), prepared, served_by=L0A)
            if ans is not None:
                self.fastpaths.touch(entry.id, self.clock())
                return ans, self._backfill(entry, canonical), None
        if self.exact_only:
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
                    self.fastpaths.touch(near.id, self.clock())
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

    def _backfill(self, entry: FastpathEntry, canonical: str) -> np.ndarray | None:
        """An entry registered without an embedding (by a one-shot process) gets one now."""
        if entry.embedding is not None or self.exact_only:
            return entry.embedding
        embedder = self._embedder()
        embedding = _embed(embedder, canonical)
        if embedder is None or embedding is None:
            return None
        entry.embedding = embedding
        entry.embedder = embedder.name
        self.fastpaths.upsert(entry)
        return entry.embedding

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
        embedder = self._embedder() if embedding is not None else None
        self.fastpaths.upsert(
            FastpathEntry(
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
                embedder=embedder.name if embedder else "",
                embedding=embedding,
                created_at=now,
                last_used_at=now,
                n_uses=0,
                restricted=restricted,
            )
        )

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
