"""One answer, in one order, written once here.

    resolve -> gates -> plan cache -> plan (rules, then the model) -> run -> clarify or finish
    -> remember

Every way in goes through `Pipeline.answer`: each platform (through the answering service), the
console, `ricorda ask`, the golden questions and the benches. The steps are the answerer's
(core.planning.answering: it owns the parse, the gates, the executor and the turn record, built
from parts injected by the builder: the intent parser, the security gate, the model planner);
the plan cache (core.fastpath.plan_cache) is asked for a plan first and told what the answer
left; neither calls the other.

A guarantee a chat relies on: a plan its last answer registered is stored before its next
question is answered (`PlanCache.settle`), so a paraphrase sent right after the answer is
served from the cache, not planned again; other chats never wait for it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Protocol

from core.contracts.context import RequestContext
from core.contracts.ports import TurnRecord
from core.contracts.types import Answer, Request
from core.fastpath.canonical import cache_key
from core.fastpath.plan_cache import Found, Replays
from core.pipeline.request_memo import RequestMemo
from core.planning.answering import Answerer, Prepared, resolved_by_rules
from core.planning.model_planner import MODEL
from core.planning.plan import Plan

log = logging.getLogger("ricorda.cascade")


class PlanCaching(Protocol):
    """What the pipeline asks and tells a plan cache (core.fastpath.plan_cache.PlanCache; a
    test may hand in a fake)."""

    observe_on_feedback: bool

    def settle(self, chat: str) -> None: ...

    def answering(self) -> AbstractContextManager[None]: ...

    def lookup(self, key: str, canonical: str, request: Replays) -> Found: ...

    def tell(self, ans: Answer, found: Found, *, own_plan: Plan | None, canonical: str,
             key: str, context: RequestContext, observe: bool) -> None: ...

    def observes(self, found: Found) -> bool: ...

    def later(self, write: Callable[[], None]) -> None: ...

    def flush(self) -> None: ...

    def close(self) -> None: ...

    def observe_turn(self, turn: TurnRecord) -> None: ...


class Pipeline:
    def __init__(
        self,
        answerer: Answerer,
        cache: PlanCaching | None = None,
        *,
        on_answer: Callable[[Answer], None] | None = None,
    ) -> None:
        """`answerer`: the steps, for the current glossary (a reload hands a new one in by
        assigning `answerer`; the pipeline keeps its identity). `cache`: the plan cache (None:
        every question is planned; the console's and a bench's bare answer).
        `on_answer` observes every answer (metrics); it cannot break or change one."""
        self.answerer = answerer
        self.cache = cache
        self.on_answer = on_answer
        # an exact repeat is not prepared and planned again (kept only with a cache: it is
        # what lets an L0a hit skip the parse)
        self._requests = RequestMemo()

    def answer(self, request: Request) -> Answer:
        cache = self.cache
        if cache is not None:
            cache.settle(request.chat)
        with cache.answering() if cache is not None else nullcontext():
            ans = self._answer(request)
        if self.on_answer is not None:
            try:
                self.on_answer(ans)
            except Exception:  # an observer's failure must never cost the user an answer
                log.exception("on_answer observer failed; ignored")
        return ans

    def _answer(self, request: Request) -> Answer:
        steps, cache = self.answerer, self.cache
        started = time.perf_counter()
        # 1. resolve: a follow-up ("and Italy?") is keyed, replayed and recorded as what it
        # resolves to, never as its text alone
        request = steps.resolve(request)
        # 2. gates: clean, security gate, parse, bounds (an exact repeat: as it was prepared)
        memo = self._requests.key(steps, request) if cache is not None else None
        known = self._requests.reuse(memo, request) if memo is not None else None
        if known is not None:
            prepared, canonical, key = known
        else:
            gated = steps.prepare(request)
            if isinstance(gated, Answer):  # refused, empty, bad option: never cached
                ans = steps.finish(request, gated, started)
                steps.remember(request, gated, ans)
                return ans
            prepared = gated
            # the cache's key (only a cache needs it: the bare answer does not pay for it)
            canonical, key = (cache_key(prepared.text, prepared.language, request.fixed_slots)
                              if cache is not None else ("", ""))
        # 3. the plan cache: a cached plan replayed on this request, or a miss
        found = (cache.lookup(key, canonical, _Bound(steps, prepared))
                 if cache is not None else Found())
        made: Answer | None = found.answer
        # 4. plan: the rules, then a model for what they left unresolved (None: off, or it
        # failed and the rules' answer stands)
        own_plan = steps.plan(prepared) if made is None else None
        if made is None:
            read = steps.model_plan(prepared)
            if read is not None:
                made = steps.run(read[0], read[1], served_by=MODEL)
        # 5. run the rules' plan, or ask (clarify)
        if made is None:
            made = (steps.run(own_plan, prepared) if own_plan is not None
                    else steps.clarify(prepared))
        if memo is not None:
            self._requests.keep(memo, prepared, canonical, key)
        # 6. finish: the plain text, the bounds, the turn (durable from here)
        ans = steps.finish(request, made, started)
        # 7. remember: the conversation's context, the plan and its observation
        steps.remember(request, prepared, ans, later=cache.later if cache is not None else None)
        if cache is not None and ans.succeeded:
            observe = cache.observes(found)
            if observe and cache.observe_on_feedback and found.embedding is None:
                # the rules resolved it: its observation is made if a verdict comes
                observe = not resolved_by_rules(prepared, prepared.plan_made)
            cache.tell(ans, found, own_plan=own_plan, canonical=canonical, key=key,
                       context=prepared.context, observe=observe)
        return ans

    # -- what callers of the old cascade asked of it ---------------------------------------

    def flush(self) -> None:
        """Every learning write queued so far is stored (before feedback and admin reads)."""
        if self.cache is not None:
            self.cache.flush()

    def close(self) -> None:
        """Write what is queued and stop the writer thread."""
        if self.cache is not None:
            self.cache.close()

    def observe_turn(self, turn: TurnRecord) -> None:
        """A turn's L1 observation, made before a verdict on it counts (feedback calls it)."""
        if self.cache is not None:
            self.cache.observe_turn(turn)

    def forget_requests(self) -> None:
        """Forget the exact requests kept (a benchmark's first ask must prepare its request)."""
        self._requests.clear()


@dataclass
class _Bound:
    """One prepared request, as the plan cache sees it (core.fastpath.plan_cache.Replays)."""

    steps: Answerer
    prepared: Prepared

    def replay(self, plan: Plan, served_by: str) -> Answer | None:
        return self.steps.replay(plan, self.prepared, served_by=served_by)

    def fits(self, plan: Plan) -> bool:
        return self.steps.fits(plan, self.prepared)

    def own_plan(self) -> Plan | None:
        return self.steps.plan(self.prepared)

    def resolved_by_rules(self) -> bool:
        return resolved_by_rules(self.prepared, self.own_plan())
