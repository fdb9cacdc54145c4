"""The fast path pays for the model: a model-made plan is registered with its embedding, so an
exact repeat is L0a and a paraphrase L0b, without the model; a ✓ promotes it to L1; a ✗ takes
it out. Real parts: SQLite stores, the offline USE embedder with its calibrated thresholds,
autopaths, feedback, the OpenAI-compatible client against a scripted server on 127.0.0.1."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bot.models.llm_providers import OpenAICompatibleLLM
from core.contracts.ports import ConversationContext
from core.contracts.types import Answer, Request
from core.fastpath.autopath import Autopaths
from core.fastpath.feedback import Feedback
from core.fastpath.plan_cache import PlanCache
from core.pipeline.pipeline import Pipeline
from core.planning.answering import Answerer
from core.planning.model_planner import ModelPlanner, prompt
from storage.autopath_store import SqlAutopathStore
from storage.conversation_store import SqlConversationStore
from storage.db import open_database
from storage.fastpath_store import SqlFastpathStore
from storage.turn_store import SqlTurnStore
from tests.acme import MemoryFacts, read_acme_facts
from tests.fake_planner_llm import FakePlannerLLM, reading

R26 = dt.date(2026, 6, 15)
CHAT = "telegram:1"
TILLS = "how much did the tills ring up in Hong Kong in FY2024?"
PARAPHRASE = "how much did tills ring up in Hong Kong during FY2024?"


@dataclass
class Bot:
    cascade: Pipeline
    feedback: Feedback
    fastpaths: SqlFastpathStore
    autopaths: Autopaths
    model: FakePlannerLLM

    def ask(self, text: str, chat: str = CHAT) -> Answer:
        ans = self.cascade.answer(Request(text=text, chat=chat, user=chat, reference_date=R26))
        self.cascade.flush()
        return ans


@pytest.fixture(scope="module")
def embedder() -> Any:
    from bot.models.embedders import UseEmbedder

    return UseEmbedder()


@pytest.fixture
def bot(tmp_path: Path, acme_glossary: Any, embedder: Any) -> Iterator[Bot]:
    engine = open_database(f"sqlite:///{tmp_path / 'r.db'}")
    now = dt.datetime(2026, 6, 15, 9, 30, tzinfo=dt.UTC)
    turns = SqlTurnStore(engine)
    with FakePlannerLLM(reading(["REVENUE"], ["ACME_HK"], ["FY2024"])) as fake:
        llm = OpenAICompatibleLLM(fake.url, "tiny", timeout=10)
        answerer = Answerer(
            glossary=acme_glossary,
            facts=MemoryFacts(read_acme_facts()),
            turns=turns,
            today=lambda: R26,
            now=lambda: now,
            conversations=SqlConversationStore(engine),
            model_planner=ModelPlanner(lambda: llm, acme_glossary, timeout=10),
        )
        fastpaths = SqlFastpathStore(engine)
        autopaths = Autopaths(SqlAutopathStore(engine), thresholds=embedder.thresholds,
                              clock=lambda: now)
        cascade = Pipeline(answerer, PlanCache(
            fastpaths=fastpaths,
            catalog=answerer.catalog,
            autopaths=autopaths,
            embedder=lambda: embedder,
            thresholds=lambda: embedder.thresholds,
            clock=lambda: now,
        ))
        feedback = Feedback(turns=turns, fastpaths=fastpaths, autopaths=autopaths,
                            observe=cascade.observe_turn, clock=lambda: now)
        yield Bot(cascade, feedback, fastpaths, autopaths, fake)
        cascade.close()
        llm.close()
    engine.dispose()


def figure(ans: Answer) -> tuple[str, str, str] | None:
    found = [f for f in ans.facts if f.fact is not None]
    if not found:
        return None
    fact = found[0].fact
    return fact.entity, fact.period.code, str(fact.value)


def test_a_model_plan_is_replayed_by_l0a_and_l0b_without_the_model(bot: Bot) -> None:
    first = bot.ask(TILLS)
    assert first.served_by == "model"
    assert figure(first) == ("ACME_HK", "FY2024", "410")
    entry = bot.fastpaths.by_hash(bot.fastpaths.list()[0].canonical_hash)
    assert entry is not None and entry.origin == "model" and entry.embedding is not None

    paraphrase = bot.ask(PARAPHRASE)
    repeat = bot.ask(TILLS)
    assert (paraphrase.served_by, repeat.served_by) == ("L0b", "L0a")
    assert figure(paraphrase) == figure(repeat) == ("ACME_HK", "FY2024", "410")
    assert "Understood as: revenue · ACME HK · FY2024." in paraphrase.text
    assert bot.model.requests == 1


def test_a_close_question_about_another_unit_gets_that_units_figure(bot: Bot) -> None:
    """The reading holds only what the model filled in (the metric): the entity and period
    the rules read stay the request's own, so the cached plan never answers Italy with HK."""
    bot.ask(TILLS)
    italy = bot.ask("how much did the tills ring up in Italy in FY2025?")
    assert figure(italy) == ("ACME_IT", "FY2025", "730")
    assert italy.served_by == "L0b" and bot.model.requests == 1


def test_a_different_unknown_word_is_not_served_by_anothers_reading(bot: Bot) -> None:
    bot.model.reply = reading(["REVENUE"], ["ACME_HK"], ["FY2024"])
    first = bot.ask("how much did the tills ring up at Orbis Harbour in FY2024?")
    assert first.served_by == "model" and figure(first) == ("ACME_HK", "FY2024", "410")
    bot.model.reply = reading(["REVENUE"], ["ACME_IT"], ["FY2025"])
    other = bot.ask("how much did the tills ring up at Orbis Roma in FY2025?")
    assert other.served_by == "model" and figure(other) == ("ACME_IT", "FY2025", "730")
    assert bot.model.requests == 2


def test_a_rejection_removes_the_model_plan_and_the_model_plans_again(bot: Bot) -> None:
    first = bot.ask(TILLS)
    outcome = bot.feedback.record(first.turn_id, CHAT, "negative", via="test")
    assert outcome.removed_fastpath
    again, paraphrase = bot.ask(TILLS), bot.ask(PARAPHRASE)
    assert (again.served_by, paraphrase.served_by) == ("model", "model")
    assert bot.model.requests == 3


def test_a_confirmed_model_plan_is_promoted_to_l1(bot: Bot) -> None:
    first = bot.ask(TILLS)
    bot.feedback.record(first.turn_id, CHAT, "positive", via="test")
    active = [a for a in bot.autopaths._store.autopaths() if a.status == "active"]
    assert [a.plan.get("reading") for a in active] == [{"route": "structured",
                                                       "metric": "REVENUE"}]
    bot.fastpaths.purge_all()  # no L0 entry left: only the autopath can spare the model
    served = bot.ask(PARAPHRASE)
    assert served.served_by == "L1"
    assert figure(served) == ("ACME_HK", "FY2024", "410")
    assert bot.model.requests == 1


def test_the_conversation_context_shown_to_the_model_keeps_only_what_the_chat_may_see(
    acme_glossary: Any,
) -> None:
    context = ConversationContext(("REVENUE",), ("ACME_LABS", "ACME_HK"), ("FY2025",), (),
                                  "structured", dt.datetime(2026, 6, 15, tzinfo=dt.UTC))
    uncleared = "\n".join(m.content for m in prompt(
        "and the tills?", glossary=acme_glossary, cleared=False, reference=R26, context=context))
    cleared = "\n".join(m.content for m in prompt(
        "and the tills?", glossary=acme_glossary, cleared=True, reference=R26, context=context))
    assert "The previous question asked for: revenue, ACME HK, FY2025." in uncleared
    assert "ACME Labs" not in uncleared and "Labs" not in uncleared
    assert "revenue, ACME Labs, ACME HK, FY2025" in cleared


def test_the_console_says_it_is_thinking_only_while_the_model_plans(bot: Bot) -> None:
    import io

    from adapters.console import ConsoleChat

    out = io.StringIO()
    console = ConsoleChat(bot.cascade, chat=CHAT, today=lambda: R26,
                          stdin=io.StringIO(f"{TILLS}\n{PARAPHRASE}\n"), stdout=out)
    console.run()
    first, second = out.getvalue().split("you> ")[1:3]
    thinking = "Working out how to read your question…"
    assert first.index(thinking) < first.index("Understood as: revenue · ACME HK · FY2024.")
    assert "(model ·" in first
    assert thinking not in second and "(L0b ·" in second
