"""The request cascade: security gate, L0a (exact hash), L0b (cosine), L1 (autopath), planner.

Every level replays a *plan* through the same executor the planner uses, with every slot
re-resolved from the current request; a plan that does not fit the request is a miss, never
a reuse. Successful turns register their plan (last writer wins) and leave an L1 observation.
A question whose answer was rejected is answered by the planner alone until it is confirmed
(core.fastpath.rejections).

What an answer leaves behind is written by the learning writer (core.fastpath.learning): in a
serving process off the answer path, except the turn, which is durable before the answer is
returned. A plan registered by an answer is served from memory by this process until it is
stored (the writer is woken as the answer returns, so another replica finds it a moment
later; losing it to a crash costs one cache miss, never an answer).
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from core.contracts.deferred import Deferred, deferred
from core.contracts.fastpath import FastpathEntry, new_fastpath_id
from core.contracts.ports import Embedder, FastpathStore, TurnRecord
from core.contracts.types import Answer, Request
from core.fastpath.canonical import cache_key
from core.fastpath.learning import BackgroundLearning, InlineLearning, Learning
from core.fastpath.rejections import is_rejection
from core.fastpath.thresholds import CosineThresholds
from core.fastpath.verified import is_verified, with_mark
from core.planning.answering import Answerer, Prepared
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


class Cascade:
    def __init__(
        self,
        *,
        answerer: Answerer,
        fastpaths: FastpathStore,
        autopaths: Autopaths | Deferred[Autopaths] | None = None,
        embedder: Callable[[], Embedder | None] = lambda: None,
        thresholds: Callable[[], CosineThresholds | None] = lambda: None,
        l0_threshold: float | None = None,
        clock: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC),
        new_id: Callable[[], str] = new_fastpath_id,
        exact_only: bool = False,
        on_answer: Callable[[Answer], None] | None = None,
        background: bool = False,
        observe_on_feedback: bool = False,
    ) -> None:
        """`autopaths` (L1; None: off) may be handed built or as a `Deferred`: a one-shot
        `exact_only` process and an answer served from L0a never build it.

        `exact_only` (a one-shot `ricorda ask`): L0a and the planner only. Loading the
        embedder costs a second, more than the question; entries it registers get their
        embedding the first time a long-running process (chat, serve) serves them.

        `on_answer` observes every answer (metrics); it cannot break or change one.

        `background` (a long-running process): a new plan's registration, the conversation's
        context, L1 observations, use counts and embeddings are written by one writer thread
        in batches (core.fastpath.learning), off the answer path; the turn is still written
        before the answer is returned (a verdict on the answer must find it). The writer is
        woken as an answer that registered a plan returns, so the next question on a replica
        finds the plan; here it is served from memory until stored. Call `close()`.

        `observe_on_feedback`: a request the rules resolve into a structured plan is observed
        for L1 when a verdict on it comes (`observe_turn`, which feedback calls), not when it
        is answered: its observation would cost an embedding, and until a verdict it only
        seeds a cluster. The feedback wiring must call `observe_turn` (bot.wiring.core_services
        does)."""
        self.answerer = answerer
        self.fastpaths = fastpaths
        self.autopaths = deferred(autopaths)
        self._embedder = embedder
        self._thresholds = thresholds
        self.l0_threshold = l0_threshold
        self.clock = clock
        self.new_id = new_id  # ids of the entries it registers (injected, like the clock)
        self.exact_only = exact_only
        self.on_answer = on_answer
        self.observe_on_feedback = observe_on_feedback
        self._requests = RequestMemo()
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

    def answer(self, request: Request) -> Answer:
        # the guarantee a chat relies on: a plan its last answer registered is stored before
        # its next question is answered (a paraphrase right after is served by L0b, not planned
        # again); other chats never wait for it
        if self._pending.waiting_for(request.chat):
            self.learning.flush()
        with self._answering_cond:
            self._answering += 1
        try:
            ans = self._answer(request)
        finally:
            with self._answering_cond:
                self._answering -= 1
                if not self._answering:
                    self._answering_cond.notify_all()
        if self._pending:  # the answer is made: a plan it registered is stored now
            self.learning.wake()
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

    def _wait_idle(self, timeout: float) -> None:
        with self._answering_cond:
            self._answering_cond.wait_for(lambda: not self._answering, timeout)

    def _answer(self, request: Request) -> Answer:
        started = time.perf_counter()
        # a follow-up is keyed, replayed and recorded as what it resolves to ("and Italy?" +
        # the conversation's slots), never as its text alone: another chat's "and Italy?"
        # carries other slots, hence another key
        request = self.answerer.resolve(request)
        memo = self._requests.key(self.answerer, request)
        known = self._requests.reuse(memo, request)
        if known is not None:
            prepared, canonical, key = known
        else:
            made = self.answerer.prepare(request)
            if isinstance(made, Answer):  # refused, empty, bad option: never cached
                return self.answerer.finish(request, made, started)
            prepared = made
            canonical, key = cache_key(prepared.text, prepared.language, request.fixed_slots)
        entry = self.fastpaths.by_hash(key) or self._pending.get(key)
        rejected = is_rejection(entry)  # a ✗ on this question: the planner alone, no caching
        ans, embedding, hit_cluster = (
            (None, None, None) if rejected else self._fast(prepared, canonical, key, entry)
        )
        own_plan = self.answerer.plan(prepared) if ans is None else None
        # the last tier: a model plans what the rules left unresolved (None: off, or it failed
        # and the rules' answer stands)
        made = self.answerer.model_plan(prepared) if ans is None else None
        if made is not None:
            ans = self.answerer.run(made[0], made[1], served_by=MODEL)
        if ans is None:
            ans = (
                self.answerer.run(own_plan, prepared)
                if own_plan is not None
                else self.answerer.clarify(prepared)
            )
        self._requests.keep(memo, prepared, canonical, key)
        ans = self.answerer.finish(request, ans, started)  # the turn is durable from here
        self.answerer.remember(request, prepared, ans, later=self._later)
        if not ans.succeeded:
            return ans
        observe = self.autopaths is not None and (embedding is not None or not self.exact_only)
        if observe and self.observe_on_feedback and embedding is None:
            # the rules resolved it: its observation is made if a verdict comes (observe_turn)
            observe = not resolved_by_rules(prepared, prepared.plan_made)
        if ans.served_by != L0A and not rejected:
            self._register(ans, own_plan, canonical, key, embedding, restricted=prepared.cleared,
                           chat=request.chat)
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
        self, prepared: Prepared, canonical: str, key: str, entry: FastpathEntry | None
    ) -> tuple[Answer | None, np.ndarray | None, str | None]:
        """L0a, then -- only where they can save work -- the embedding, L0b and L1.

        A request the rule planner resolves completely into a structured plan is answered by
        the planner: a cached plan is replayed only when it has the planner's own framework,
        with every slot re-read from the request, so L0b or L1 could only run the planner's
        plan after paying for an embedding and a cosine search. The one exception is an
        active autopath of that very framework: L1 then serves (and counts its use).
        `entry`: this question's own L0 entry (by hash), looked up by the caller."""
        if entry is not None:
            ans = self.answerer.replay(Plan.from_dict(entry.plan), prepared, served_by=L0A)
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
            if hit is not None and plan is not None and self.answerer.fits(plan, prepared):
                ans = self.answerer.replay(plan, prepared, served_by=L1)
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
        if not registrable(plan, self.answerer.catalog):
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

    def _later(self, write: Callable[[], None]) -> None:
        """A write that can wait for the writer (a conversation's context)."""
        self._submit(_Write(write))

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
            embedder = self._embedder() if pending.embedding is not None else None
            try:
                stored = self.fastpaths.upsert(
                    replace(
                        pending,
                        id=self.new_id(),
                        intent_hash=intent_hash(plan.intent),
                        framework_hash=plan.framework_hash(),
                        embedder=embedder.name if embedder else "",
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


class RequestMemo:
    """An exact request as the answerer prepared and planned it, kept so an exact repeat
    (L0a) need not parse it and plan it again to check that the stored plan fits.

    Preparing (cleaning, the security gate, parsing, tapped slots) and planning are functions
    of the request's text and tapped slots, its reference date, the chat's clearance, the
    glossary (the answerer: a glossary reload builds a new one, which empties the memo) and
    the approved macros (the catalog's generation). All of them are the key, so a hit is
    exactly what the answerer would make now; nothing read when the plan runs (facts,
    documents, the clock, earlier turns) is kept. Refusals and usage answers are not kept."""

    def __init__(self, size: int = 4096) -> None:
        self._size = size
        self._kept: OrderedDict[tuple[Any, ...], tuple[Prepared, str, str]] = OrderedDict()
        self._owner: object | None = None
        self._lock = threading.Lock()

    def key(self, answerer: Answerer, request: Request) -> tuple[Any, ...]:
        with self._lock:
            if answerer is not self._owner:
                self._kept.clear()
                self._owner = answerer
        return (
            getattr(answerer.catalog, "generation", 0),
            request.text,
            tuple(sorted(request.fixed_slots.items())),
            request.reference_date or answerer.today(),
            answerer.glossary.is_cleared(request.chat),
        )

    def reuse(self, key: tuple[Any, ...], request: Request) -> tuple[Prepared, str, str] | None:
        """(prepared for this request, canonical text, cache key), or None."""
        with self._lock:
            kept = self._kept.get(key)
            if kept is None:
                return None
            self._kept.move_to_end(key)
        prepared, canonical, cache_hash = kept
        # the intent is shared: nothing changes an intent once it is prepared
        return (
            replace(prepared, request=request, notices=list(prepared.notices)),
            canonical,
            (cache_hash),
        )

    def clear(self) -> None:
        """Forget every kept request (a benchmark's first ask must prepare its request)."""
        with self._lock:
            self._kept.clear()

    def keep(
        self, key: tuple[Any, ...], prepared: Prepared, canonical: str, cache_hash: str
    ) -> None:
        if not prepared.is_planned:
            return
        with self._lock:
            self._kept[key] = (prepared, canonical, cache_hash)
            self._kept.move_to_end(key)
            while len(self._kept) > self._size:
                self._kept.popitem(last=False)


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
