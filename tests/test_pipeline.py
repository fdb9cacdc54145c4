"""One pipeline owns the answer (core.pipeline.pipeline): each of its parts is a Protocol core
declares, and swapping one for a fake changes what a user gets in the way that part says.

The parts: the intent parser (`IntentParser`), the security gate (`Gate`), the model planner
(`ReadsQuestions`), the plan cache (`PlanCaching`). And the guarantee the pipeline states: a
plan a chat's answer registered is stored before that chat's next question is answered.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from core.contracts.ports import ConversationContext, TurnRecord
from core.contracts.types import Answer, Request, Route
from core.fastpath.plan_cache import Found, PlanCache, Replays
from core.knowledge.glossary import Glossary, load_glossary
from core.knowledge.names import NameIndex
from core.pipeline.pipeline import Pipeline
from core.planning.answering import Answerer
from core.planning.model_planner import ModelResult
from core.planning.plan import Plan
from core.question.intent import Intent, RuleIntentParser
from core.question.security import GateVerdict
from storage.db import open_database
from storage.fastpath_store import SqlFastpathStore
from tests.acme import ACME, REF, MemoryFacts, read_acme_facts

QUESTION = "What was ACME China revenue in FY2024?"


def acme_glossary() -> Glossary:
    return load_glossary(ACME / "glossary.toml")


def answerer(**parts: Any) -> Answerer:
    return Answerer(glossary=acme_glossary(), facts=MemoryFacts(read_acme_facts()),
                    today=lambda: REF, **parts)


def ask(pipeline: Pipeline, text: str, chat: str = "telegram:1") -> Answer:
    return pipeline.answer(Request(text=text, chat=chat, user="u", reference_date=REF))


def figures(ans: Answer) -> list[float]:
    return [float(f.fact.value) for f in ans.facts if f.fact is not None]


# -- the gate --------------------------------------------------------------------------------


class RefusingGate:
    """Refuses every question; counts what it was asked."""

    def __init__(self) -> None:
        self.checked: list[str] = []

    def check(self, text: str, *, cleared: bool,
              fixed_slots: dict[str, str] | None = None) -> GateVerdict:
        self.checked.append(text)
        return GateVerdict(False, text, "competitor")

    def any_restricted(self, codes: list[str]) -> bool:
        return False


class CountingParser(RuleIntentParser):
    def __init__(self, names: NameIndex) -> None:
        super().__init__(names)
        self.parsed: list[str] = []

    def parse(self, text: str, reference_date: dt.date) -> Intent:
        self.parsed.append(text)
        return super().parse(text, reference_date)


def test_a_refusing_gate_refuses_before_anything_is_parsed_or_looked_up() -> None:
    glossary = acme_glossary()
    names = NameIndex(glossary)
    gate, parser = RefusingGate(), CountingParser(names)
    ans = ask(Pipeline(answerer(names=names, gate=gate, parser=parser)), QUESTION)
    assert ans.route is Route.REFUSED and figures(ans) == []
    assert gate.checked == [QUESTION] and parser.parsed == []


# -- the parser ------------------------------------------------------------------------------


class FixedParser:
    """Reads every question as `QUESTION` (what a different parser would make of it)."""

    def __init__(self, names: NameIndex) -> None:
        self._rules = RuleIntentParser(names)

    def parse(self, text: str, reference_date: dt.date) -> Intent:
        return self._rules.parse(QUESTION, reference_date)


def test_the_injected_parser_is_the_one_that_reads_the_question() -> None:
    glossary = acme_glossary()
    names = NameIndex(glossary)
    plain = ask(Pipeline(answerer()), "hello there")
    assert figures(plain) == []
    read = ask(Pipeline(answerer(names=names, parser=FixedParser(names))), "hello there")
    assert figures(read) == [1320.0]  # ACME China revenue FY2024, from the fact table


# -- the model planner -----------------------------------------------------------------------


class FakeModel:
    """Reads the question as ACME China's revenue; records what it was asked."""

    def __init__(self, reading: dict[str, str] | None) -> None:
        self.reading = reading
        self.asked: list[str] = []

    def read(self, question: str, *, cleared: bool, reference: dt.date,
             context: ConversationContext | None = None) -> ModelResult:
        self.asked.append(question)
        return ModelResult(self.reading, None, 0.0)


def test_the_model_planner_reads_what_the_rules_left_and_is_not_asked_otherwise() -> None:
    model = FakeModel({"metric": "revenue", "entity": "ACME_CN", "period": "2024"})
    pipeline = Pipeline(answerer(model_planner=model))
    plain = ask(pipeline, QUESTION)
    assert plain.served_by == "planner" and model.asked == []  # the rules read it all
    ans = ask(pipeline, "how much money did the chinese arm bring in during FY2024")
    assert model.asked == ["how much money did the chinese arm bring in during FY2024"]
    assert ans.served_by == "model" and figures(ans) == [1320.0]


def test_a_model_reading_that_makes_no_plan_leaves_the_rules_answer() -> None:
    model = FakeModel({"metric": "no_such_metric"})
    ans = ask(Pipeline(answerer(model_planner=model)), "how much did the widget line earn?")
    assert model.asked and ans.served_by != "model" and figures(ans) == []


# -- the plan cache --------------------------------------------------------------------------


class FakeCache:
    """A plan cache that serves one stored plan for every question, replayed on the request."""

    observe_on_feedback = False

    def __init__(self, plan: Plan | None) -> None:
        self.plan = plan
        self.told: list[str] = []

    def settle(self, chat: str) -> None:
        pass

    @contextmanager
    def answering(self) -> Iterator[None]:
        yield

    def lookup(self, key: str, canonical: str, request: Replays) -> Found:
        if self.plan is None:
            return Found()
        return Found(request.replay(self.plan, "L0a"))

    def tell(self, ans: Answer, found: Found, **kw: Any) -> None:
        self.told.append(ans.served_by)

    def observes(self, found: Found) -> bool:
        return False

    def later(self, write: Callable[[], None]) -> None:
        write()

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass

    def observe_turn(self, turn: TurnRecord) -> None:
        pass


def test_a_plan_the_cache_serves_is_replayed_on_the_request_not_planned() -> None:
    first = ask(Pipeline(answerer()), QUESTION)
    cache = FakeCache(Plan.from_dict(first.plan))
    # the same shape for another year: the cached plan, with the slots re-read from this request
    ans = ask(Pipeline(answerer(), cache), "What was ACME China revenue in FY2025?")
    assert ans.served_by == "L0a" and cache.told == ["L0a"]
    assert figures(ans) == [float(f.fact.value) for f in ask(
        Pipeline(answerer()), "What was ACME China revenue in FY2025?").facts if f.fact]


def test_a_cache_miss_is_planned_and_the_cache_is_told() -> None:
    cache = FakeCache(None)
    ans = ask(Pipeline(answerer(), cache), QUESTION)
    assert ans.served_by == "planner" and figures(ans) == [1320.0]
    assert cache.told == ["planner"]


# -- a chat's plan is stored before its next question ----------------------------------------


class WatchedStore(SqlFastpathStore):
    """Records, at each lookup by hash, how many entries were stored by then."""

    def __init__(self, engine: Any) -> None:
        super().__init__(engine)
        self.seen: list[int] = []
        self.release = threading.Event()

    def by_hash(self, key: str) -> Any:
        self.seen.append(self.count())
        return super().by_hash(key)

    def upsert(self, entry: Any) -> Any:
        self.release.wait(30)  # the writer is slow: it stores only when released
        return super().upsert(entry)


def test_a_chats_plan_is_stored_before_its_next_question_and_other_chats_do_not_wait(
    tmp_path: Any,
) -> None:
    engine = open_database(f"sqlite:///{tmp_path / 'plans.db'}")
    store = WatchedStore(engine)
    cache = PlanCache(fastpaths=store, background=True, clock=lambda: dt.datetime.now(dt.UTC))
    pipeline = Pipeline(answerer(), cache)
    try:
        ask(pipeline, QUESTION, chat="telegram:1")  # registers a plan; the writer is held
        other = ask(pipeline, "ACME Italia EBITDA FY2025", chat="telegram:2")
        assert other.succeeded and store.count() == 0  # another chat did not wait for it
        flush = cache.learning.flush

        def flush_and_release() -> None:  # the writer is let go only if somebody waits for it
            store.release.set()
            flush()

        cache.learning.flush = flush_and_release  # type: ignore[method-assign]
        again = ask(pipeline, QUESTION, chat="telegram:1")
        # the first chat's plan was stored before its next question was looked up
        assert store.seen[-1] >= 1 and again.served_by == "L0a"
    finally:
        store.release.set()
        cache.close()
        engine.dispose()
