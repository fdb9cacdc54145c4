"""The plan cache: L0a (exact hash), L0b (cosine), L1 (autopath), asked and told by the pipeline.

The pipeline (core.pipeline.pipeline) asks it for a plan that answers a prepared request and
tells it what an answer left behind; the order of an answer is not decided here. A cached plan
is never an answer by itself: the pipeline replays it through the same executor the planner
uses, with every slot re-read from the current request (`Replays`), and a plan that does not fit
is a miss, never a reuse. Successful turns register their plan (last writer wins) and leave an
L1 observation. A question whose answer was rejected is answered by the planner alone until it
is confirmed (core.fastpath.rejections).

What an answer leaves behind is written by the learning writer (core.fastpath.learning): in a
serving process off the answer path. A plan registered by an answer is served from memory by
this process until it is stored (the writer is woken as the answer returns, so another replica
finds it a moment later; losing it to a crash costs one cache miss, never an answer).
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from core.contracts.context import RequestContext
from core.contracts.deferred import Deferred, deferred
from core.contracts.fastpath import FastpathEntry, new_fastpath_id
from core.contracts.learning_ports import FastpathStore
from core.contracts.ports import Embedder, TurnRecord
from core.contracts.types import Answer
from core.fastpath.canonical import cache_key
from core.fastpath.learning import BackgroundLearning, InlineLearning, Learning
from core.fastpath.rejections import is_rejection
from core.fastpath.thresholds import CosineThresholds
from core.fastpath.verified import is_verified, with_mark
from core.planning.executors import Executor, cacheable
from core.planning.model_planner import MODEL
from core.planning.plan import Plan, intent_hash

if TYPE_CHECKING:
    import numpy as np

    from core.fastpath.autopath import Autopaths

log = logging.getLogger("ricorda.cascade")

L0A, L0B, L1, PLANNER = "L0a", "L0b", "L1", "planner"
LEVELS = (L0A, L0B, L1, PLANNER, MODEL)
ORIGIN = {PLANNER: "planner", L0B: "cosine", L1: "autopath", MODEL: MODEL}


class Replays(Protocol):
    """What the cache needs of the request it is asked about, bound by the pipeline: it
    replays a cached plan on the request, asks whether a plan fits it, and asks for the
    rules' own plan (made once, and only when a cached level needs it)."""

    def replay(self, plan: Plan, served_by: str) -> Answer | None: ...

    def fits(self, plan: Plan) -> bool: ...

    def own_plan(self) -> Plan | None: ...

    def resolved_by_rules(self) -> bool: ...


@dataclass
class Found:
    """What a lookup found: an answer replayed from a level (None: a miss), the question's
    embedding when one was made, the L1 cluster that served, and whether a ✗ sent this
    question to the planner alone (then nothing it answers is cached)."""

    answer: Answer | None = None
    embedding: np.ndarray | None = None
    cluster: str | None = None
    rejected: bool = False


class PlanCache:
    def __init__(
        self,
        *,
        fastpaths: FastpathStore,
        catalog: Mapping[str, Executor] | None = None,
        autopaths: Autopaths | Deferred[Autopaths] | None = None,
        embedder: Callable[[], Embedder | None] = lambda: None,
        thresholds: Callable[[], CosineThresholds | None] = lambda: None,
        l0_threshold: float | None = None,
        clock: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC),
        new_id: Callable[[], str] = new_fastpath_id,
        exact_only: bool = False,
        background: bool = False,
        observe_on_feedback: bool = False,
    ) -> None:
        """`catalog`: the executors a registrable plan may use (built-ins plus approved
        macros; None: the built-ins). `autopaths` (L1; None: off) may be handed built or as a
        `Deferred`: a one-shot `exact_only` process and an answer served from L0a never build
        it.

        `exact_only` (a one-shot `ricorda ask`): L0a only. Loading the embedder costs a
        second, more than the question; entries it registers get their embedding the first
        time a long-running process (chat, serve) serves them.

        `background` (a long-running process): a new plan's registration, the conversation's
        context, L1 observations, use counts and embeddings are written by one writer thread
        in batches (core.fastpath.learning), off the answer path; the turn is still written
        before the answer is returned (a verdict on the answer must find it). Call `close()`.

        `observe_on_feedback`: a request the rules resolve into a structured plan is observed
        for L1 when a verdict on it comes (`observe_turn`, which feedback calls), not when it
        is answered: its observation would cost an embedding, and until a verdict it only
        seeds a cluster."""
        self.fastpaths = fastpaths
        self.catalog = catalog
        self.autopaths = deferred(autopaths)
        self._embedder = embedder
        self._thresholds = thresholds
        self.l0_threshold = l0_threshold
        self.clock = clock
        self.new_id = new_id  # ids of the entries it registers (injected, like the clock)
        self.exact_only = exact_only
        self.observe_on_feedback = observe_on_feedback
        # a repeat's observation embeds the text its first ask embedded: once is enough
        self._known_vectors = VectorMemo()
        self._answering = 0  # answers being made now (the writer waits for none)
        self._pending = PendingPlans()  # registered by an answer, not stored yet
        self._answering_cond = threading.Condition()
        self.learning: Learning[_Record] = (
            BackgroundLearning(self._learn, wait_idle=self._wait_idle)
            if background
            else InlineLearning(self._learn)
        )

    # -- the pipeline's side ---------------------------------------------------------------

    def settle(self, chat: str) -> None:
        """The guarantee a chat relies on: a plan its last answer registered is stored before
        its next question is answered (a paraphrase right after is served by L0b, not planned
        again); other chats never wait for it."""
        if self._pending.waiting_for(chat):
            self.learning.flush()

    @contextmanager
    def answering(self) -> Iterator[None]:
        """Around one answer: the writer waits while answers are being made, and is woken
        when one that registered a plan returns (another replica finds it a moment later)."""
        with self._answering_cond:
            self._answering += 1
        try:
            yield
        finally:
            with self._answering_cond:
                self._answering -= 1
                if not self._answering:
                    self._answering_cond.notify_all()
        if self._pending:  # the answer is made: a plan it registered is stored now
            self.learning.wake()

    def lookup(self, key: str, canonical: str, request: Replays) -> Found:
        """A cached plan replayed on the request, or a miss."""
        entry = self.fastpaths.by_hash(key) or self._pending.get(key)
        if is_rejection(entry):  # a ✗ on this question: the planner alone, no caching
            return Found(rejected=True)
        ans, embedding, cluster = self._fast(request, canonical, entry)
        return Found(ans, embedding, cluster)

    def tell(
        self,
        ans: Answer,
        found: Found,
        *,
        own_plan: Plan | None,
        canonical: str,
        key: str,
        context: RequestContext,
        observe: bool,
    ) -> None:
        """What a successful answer leaves: its plan registered (unless a cached level served
        it exactly, or a ✗ keeps the question out), and an L1 observation when `observe`.
        Asked from a cleared chat, both are shown to cleared viewers only."""
        if ans.served_by != L0A and not found.rejected:
            self._register(ans, own_plan, canonical, key, found.embedding,
                           restricted=context.cleared, chat=context.chat)
        if observe:
            self._submit(_Observe(ans.turn_id, ans.plan, ans.latency_ms, canonical,
                                  found.embedding, found.cluster, context.cleared))

    def observes(self, found: Found) -> bool:
        """Whether an answer is observed for L1 now (an embedding is at hand, or a serving
        process will make one)."""
        return self.autopaths is not None and (found.embedding is not None or not self.exact_only)

    def later(self, write: Callable[[], None]) -> None:
        """A write that can wait for the writer (a conversation's context)."""
        self._submit(_Write(write))

    def flush(self) -> None:
        """Wait until every learning write queued so far is stored (before feedback and admin
        reads, and in tests that look at the stores)."""
        self.learning.flush()

    def close(self) -> None:
        """Write what is queued and stop the writer thread."""
        self.learning.close()

    def _wait_idle(self, timeout: float) -> None:
        with self._answering_cond:
            self._answering_cond.wait_for(lambda: not self._answering, timeout)

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
        self, request: Replays, canonical: str, entry: FastpathEntry | None
    ) -> tuple[Answer | None, np.ndarray | None, str | None]:
        """L0a, then -- only where they can save work -- the embedding, L0b and L1.

        A request the rule planner resolves completely into a structured plan is answered by
        the planner: a cached plan is replayed only when it has the planner's own framework,
        with every slot re-read from the request, so L0b or L1 could only run the planner's
        plan after paying for an embedding and a cosine search. The one exception is an
        active autopath of that very framework: L1 then serves (and counts its use).
        `entry`: this question's own L0 entry (by hash)."""
        if entry is not None:
            ans = request.replay(Plan.from_dict(entry.plan), L0A)
            if ans is not None and is_verified(entry):
                with_mark(ans)  # core.fastpath.verified
            if ans is not None:
                # an entry still waiting for the writer has no id yet: the writer gives it one
                # before it counts this use (the queue is written in order)
                self._submit(_Touch(entry.id, self.clock(), entry if not entry.id else None))
                if entry.id and self._backfills(entry):
                    self._submit(_Backfill(entry, canonical))
                return ans, entry.embedding, None
        if self.exact_only:
            return None, None, None
        own_plan = request.own_plan()
        if request.resolved_by_rules() and not self._l1_serves(own_plan):
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
                ans = request.replay(Plan.from_dict(near.plan), L0B)
                if ans is not None and is_verified(near):
                    with_mark(ans)
                if ans is not None:
                    self._submit(_Touch(near.id, self.clock()))
                    return ans, embedding, None
        if self.autopaths is not None:
            intent = own_plan.intent if own_plan is not None else "unknown"
            autopaths = self.autopaths.get()
            hit = autopaths.lookup(embedding=embedding, intent_hash=intent_hash(intent))
            plan = (
                Plan.from_dict(hit.plan) if hit is not None and isinstance(hit.plan, dict) else None
            )
            # a champion that does not fit this request is not its failure: no use is counted
            if hit is not None and plan is not None and request.fits(plan):
                ans = request.replay(plan, L1)
                autopaths.note_use(
                    hit.autopath_id,
                    ok=ans is not None,
                    latency_ms=0.0 if ans is None else ans.latency_ms,
                )
                if ans is not None:
                    return ans, embedding, hit.cluster_id
        return None, embedding, None

    def _backfills(self, entry: FastpathEntry) -> bool:
        """A stored entry without the embedding L0b needs gets one (by the writer)."""
        servable = l0b_servable(entry.route) or isinstance(entry.plan.get("reading"), dict)
        return entry.embedding is None and not self.exact_only and servable

    def _l1_serves(self, own_plan: Plan | None) -> bool:
        if self.autopaths is None or own_plan is None:
            return False
        active = getattr(self.autopaths.get(), "active_frameworks", None)
        if active is None:
            return True
        frameworks = active()
        return bool(frameworks) and own_plan.framework_hash() in frameworks

    # -- learning --------------------------------------------------------------------------

    def _register(
        self,
        ans: Answer,
        own_plan: Plan | None,
        canonical: str,
        key: str,
        embedding: np.ndarray | None,
        *,
        restricted: bool = False,
        chat: str = "",
    ) -> None:
        """Queue the answer's plan for the writer, if it is registrable.
        `restricted`: asked from a cleared chat (its text is shown to cleared viewers only).

        Until the writer stores it, this process serves it from memory (`PendingPlans`); the
        writer gives it its id and hashes. A structured plan is never replayed by cosine (see
        `_fast`): it is stored without an embedding."""
        # the planner's own plan when it answered (ans.plan is its dict), else the replayed one
        plan = own_plan if ans.served_by == PLANNER and own_plan else Plan.from_dict(ans.plan)
        if not registrable(plan, self.catalog):
            return
        if not l0b_servable(plan.route) and plan.reading is None:
            embedding = None  # a model's plan is found by cosine: its paraphrases need it
        now = self.clock()
        entry = FastpathEntry(
            id="",  # given by the writer; an L0a replay meanwhile counts its use by this entry
            canonical_text=canonical,
            canonical_hash=key,
            plan=ans.plan,
            route=plan.route,
            intent=plan.intent,
            intent_hash="",
            framework_hash="",
            origin=ORIGIN.get(ans.served_by, "planner"),
            query_specific=plan.query_specific,
            embedder="",
            embedding=embedding,
            created_at=now,
            last_used_at=now,
            n_uses=0,
            restricted=restricted,
        )
        self._pending.put(entry, chat)
        self._submit(_Register(entry, plan))

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
        if not registrable(plan, self.catalog):
            return
        self.autopaths.get().observe(
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
        wanted = {t for r in batch if (t := _needs_embedding(r, self.exact_only))}
        vectors = self._known_vectors.get_many(wanted)
        texts = sorted(wanted - vectors.keys())
        embedder = self._embedder() if wanted else None
        if embedder is not None and texts:
            try:
                fresh = dict(zip(texts, embedder.embed(texts), strict=True))
            except Exception:
                log.exception("the embedder failed; learning without embeddings")
            else:
                self._known_vectors.put_many(fresh)
                vectors.update(fresh)
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
        if isinstance(record, _Register):
            pending, plan = record.entry, record.plan
            model = self._embedder() if pending.embedding is not None else None
            try:
                stored = self.fastpaths.upsert(
                    replace(
                        pending,
                        id=self.new_id(),
                        intent_hash=intent_hash(plan.intent),
                        framework_hash=plan.framework_hash(),
                        embedder=model.name if model else "",
                    )
                )
                pending.id = stored.id  # the row's id (an older row of this hash keeps its own)
            finally:  # stored, or lost: memory no longer stands in for the store
                self._pending.done(record.entry)
        elif isinstance(record, _Write):
            record.write()
        elif isinstance(record, _Touch):
            entry_id = record.entry_id or (record.pending.id if record.pending else "")
            if entry_id:
                touches.append((entry_id, record.at))
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


@dataclass(frozen=True)
class _Register:
    """A plan an answer left behind (last writer wins), as `PendingPlans` holds it."""

    entry: FastpathEntry
    plan: Plan


@dataclass(frozen=True)
class _Write:
    write: Callable[[], None]


@dataclass(frozen=True)
class _Touch:
    entry_id: str
    at: dt.datetime
    pending: FastpathEntry | None = None  # replayed before the writer stored it: its id then


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


_Record = _Register | _Write | _Touch | _Backfill | _Observe


def _needs_embedding(record: _Record, exact_only: bool) -> str | None:
    if isinstance(record, _Backfill) and not exact_only:
        return record.canonical
    if isinstance(record, _Observe) and record.embedding is None:
        return record.canonical
    return None


def l0b_servable(route: str) -> bool:
    """Whether an entry of this route can ever be served by L0b. A structured plan fits only
    a request whose own plan has its framework -- one the rules resolve, which skips L0b -- or
    a vague one, which only slot-free plans fit; a structured plan always has slots."""
    return route != "structured"


class PendingPlans:
    """Entries queued for the writer and not stored yet, by cache key: an exact repeat asked
    before the writer's turn is served by L0a from here, as it would be from the store."""

    def __init__(self) -> None:
        self._by_key: dict[str, FastpathEntry] = {}
        self._chats: dict[str, str] = {}  # cache key -> the chat whose answer registered it
        self._lock = threading.Lock()

    def __bool__(self) -> bool:
        """Whether a plan is waiting for the writer (no lock: a glance, then the writer)."""
        return bool(self._by_key)

    def waiting_for(self, chat: str) -> bool:
        """Whether a plan registered from `chat` is still waiting for the writer."""
        if not self._by_key:  # the usual case: nothing waiting, no lock taken
            return False
        with self._lock:
            return chat in self._chats.values()

    def get(self, key: str) -> FastpathEntry | None:
        if not self._by_key:  # the usual case: nothing waiting, no lock taken
            return None
        with self._lock:
            return self._by_key.get(key)

    def put(self, entry: FastpathEntry, chat: str = "") -> None:
        with self._lock:
            self._by_key[entry.canonical_hash] = entry
            self._chats[entry.canonical_hash] = chat

    def done(self, entry: FastpathEntry) -> None:
        with self._lock:
            if self._by_key.get(entry.canonical_hash) is entry:
                del self._by_key[entry.canonical_hash]
                self._chats.pop(entry.canonical_hash, None)


class VectorMemo:
    """The latest embeddings by canonical text, for the learning writes (inline learning runs
    on the answering threads, hence the lock)."""

    def __init__(self, size: int = 4096) -> None:
        self._size = size
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get_many(self, texts: set[str]) -> dict[str, np.ndarray]:
        with self._lock:
            found = {t: self._vectors[t] for t in texts if t in self._vectors}
            for t in found:
                self._vectors.move_to_end(t)
        return found

    def put_many(self, vectors: dict[str, np.ndarray]) -> None:
        with self._lock:
            self._vectors.update(vectors)
            while len(self._vectors) > self._size:
                self._vectors.popitem(last=False)


def registrable(plan: Plan, catalog: Mapping[str, Executor] | None = None) -> bool:
    """Design section 3: no absolute dates, no context-dependent tools, something to run."""
    return bool(plan.steps) and cacheable(plan, catalog) and not plan.has_absolute_date()


def _embed(embedder: Embedder | None, canonical: str) -> np.ndarray | None:
    """The question's embedding, or None when the embedder fails: the cached levels are then
    skipped and the planner answers, rather than the user getting no answer at all."""
    if embedder is None:
        return None
    try:
        vector: np.ndarray = embedder.embed([canonical])[0]
        return vector
    except Exception:
        log.exception("the embedder failed; answering without the cached levels")
        return None
