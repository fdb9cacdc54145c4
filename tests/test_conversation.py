"""Follow-ups (core.question.conversation): what a short question inherits from the last answered
figure of its conversation, what it never inherits, and when the context is gone."""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

import pytest

from core.chat.option_tap import tap_request
from core.contracts.ports import ConversationContext
from core.contracts.types import Answer, Request, Route
from core.knowledge.glossary import Glossary
from core.pipeline.pipeline import Pipeline
from core.planning.answering import Answerer
from core.question.conversation import STANDALONE, carried_slots
from core.question.intent import Intent
from storage.conversation_store import MemoryConversationStore
from tests.acme import REF, MemoryFacts, MemoryTurns, read_acme_facts

UNCLEARED, CLEARED = "telegram:1", "telegram:9001"
T0 = dt.datetime(2026, 6, 15, 9, 0, tzinfo=dt.UTC)
CHINA24 = "What was ACME China revenue in FY2024?"


class Clock:
    def __init__(self) -> None:
        self.at = T0

    def __call__(self) -> dt.datetime:
        return self.at

    def advance(self, minutes: float) -> None:
        self.at += dt.timedelta(minutes=minutes)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store() -> MemoryConversationStore:
    return MemoryConversationStore()


@pytest.fixture
def answerer(
    acme_glossary: Glossary, store: MemoryConversationStore, clock: Clock, acme_turns: MemoryTurns
) -> Answerer:
    return make_answerer(acme_glossary, store, clock, turns=acme_turns)


def make_answerer(glossary: Glossary, store: Any, clock: Clock, **kwargs: Any) -> Answerer:
    return Answerer(glossary=glossary, facts=MemoryFacts(read_acme_facts()),
                    today=lambda: REF, now=clock, conversations=store, **kwargs)


def ask(answerer: Answerer, text: str, chat: str = UNCLEARED, conversation: str = "") -> Answer:
    return Pipeline(answerer).answer(Request(text, chat=chat, user="u1", reference_date=REF,
                                   conversation=conversation))


def carried_text(ans: Answer) -> str:
    return " ".join(d["text"] for d in ans.to_dict()["lines"] if d["kind"] == "carried")


# (earlier question, follow-up, what it inherits ({} = left alone), in the answer, not in it)
TABLE: list[tuple[str, str, dict[str, str], list[str], list[str]]] = [
    (CHINA24, "and Hong Kong?", {"metric": "REVENUE", "period": "FY2024"}, ["410"], ["1,320"]),
    (CHINA24, "what about Hong Kong?", {"metric": "REVENUE", "period": "FY2024"}, ["410"], []),
    (CHINA24, "and in FY2025?", {"metric": "REVENUE", "entity": "ACME_CN"}, ["1,188"],
     ["1,320"]),
    (CHINA24, "same for last year", {"metric": "REVENUE", "entity": "ACME_CN"}, ["1,188"], []),
    ("What was ACME China revenue in FY2025?", "what about EBITDA?",
     {"entity": "ACME_CN", "period": "FY2025"}, ["EBITDA"], ["1,188"]),
    ("What was ACME China revenue in FY2025?", "and the online channel?",
     {"metric": "REVENUE", "entity": "ACME_CN", "period": "FY2025"}, ["402.25"], ["1,188 "]),
    ("What was ACME China revenue in FY2025?", "Hong Kong?",  # no metric, no cue: still one
     {"metric": "REVENUE", "period": "FY2025"}, ["455"], []),
    ("Qual è stato il fatturato della Cina nel 2025?", "e nel 2024?",
     {"metric": "REVENUE", "entity": "ACME_CN"}, ["1.320"], []),
    ("Qual è stato il fatturato della Cina nel 2025?", "e Hong Kong?",
     {"metric": "REVENUE", "period": "FY2025"}, ["455"], []),
    ("Qual è stato il fatturato della Cina nel 2025?", "e per il canale online?",
     {"metric": "REVENUE", "entity": "ACME_CN", "period": "FY2025"}, ["402,25"], []),
    ("Qual è stato il fatturato della Cina nel 2025?", "invece l'Italia?",
     {"metric": "REVENUE", "period": "FY2025"}, ["730"], []),
    ("2025年中国区营收是多少？", "那香港呢？", {"metric": "REVENUE", "period": "FY2025"},
     ["4.55亿美元", "沿用上一个问题"], []),  # USD_M read by its symbol (issue 33 onboard)
    ("2025年中国区营收是多少？", "那2024年呢？", {"metric": "REVENUE", "entity": "ACME_CN"},
     ["13.2亿美元"], []),
    ("2025年中国区营收是多少？", "线上呢？",
     {"metric": "REVENUE", "entity": "ACME_CN", "period": "FY2025"}, ["4.0225亿美元"], []),
    # several values carry together: a comparison stays a comparison
    ("Compare ACME China and Hong Kong revenue in FY2025", "and FY2024?",
     {"metric": "REVENUE", "entity": "ACME_CN,ACME_HK"}, ["1,320", "410"], []),
    # left alone: self-contained, a metric without a cue, a question for the documents, a tool
    (CHINA24, "What was ACME Italia revenue in FY2025?", {}, ["730"], ["Carried"]),
    (CHINA24, "and what was ACME HK revenue in FY2025?", {}, ["455"], ["Carried"]),
    (CHINA24, "EBITDA 2025?", {}, ["ACME Group"], ["Carried"]),
    (CHINA24, "and why?", {}, [], ["Carried"]),
    (CHINA24, "What time is it?", {}, [], ["Carried"]),
    (CHINA24, "ok thanks", {}, [], ["Carried"]),
    (CHINA24, "Tell me about the distributors in Hong Kong and how the stores did over the "
     "whole of last year compared with the year before", {}, [], ["Carried"]),
    ("Qual è stato il fatturato della Cina nel 2025?", "Qual è il fatturato di Hong Kong nel "
     "2024?", {}, ["410"], ["Ripreso"]),
    ("2025年中国区营收是多少？", "2024年香港营收是多少？", {}, ["4.1亿美元"], ["沿用"]),
]


@pytest.mark.parametrize(("earlier", "follow_up", "inherits", "shown", "hidden"), TABLE,
                         ids=[f"{e[:14]}->{f[:24]}" for e, f, *_ in TABLE])
def test_a_follow_up_inherits_what_it_does_not_name(
    answerer: Answerer, earlier: str, follow_up: str, inherits: dict[str, str],
    shown: list[str], hidden: list[str],
) -> None:
    first = ask(answerer, earlier)
    assert first.succeeded and first.facts, first.text
    resolved = answerer.resolve(Request(follow_up, chat=UNCLEARED, reference_date=REF))
    slots = {k: v for k, v in resolved.fixed_slots.items() if k not in ("route", "table")}
    assert slots == inherits  # the pseudo-slots: a "why" figure's route, a table's shape
    ans = ask(answerer, follow_up)
    for text in shown:
        assert text in ans.text, ans.text
    for text in hidden:
        assert text not in ans.text, ans.text
    assert bool(carried_text(ans)) == bool(inherits)


def test_the_answer_says_what_it_carried_in_the_reader_language(answerer: Answerer) -> None:
    ask(answerer, CHINA24)
    assert carried_text(ask(answerer, "and Hong Kong?")) == (
        "Carried over from your previous question: revenue, FY2024.")
    assert carried_text(ask(answerer, "e nel 2025?")) == (
        "Ripreso dalla domanda precedente: revenue, ACME HK.")
    assert carried_text(ask(answerer, "那中国区呢？")) == "沿用上一个问题：营收、2025财年。"


def test_a_chain_of_follow_ups_builds_on_the_last_answer(answerer: Answerer) -> None:
    ask(answerer, CHINA24)
    ask(answerer, "and Hong Kong?")
    ans = ask(answerer, "and FY2025?")  # Hong Kong, not China: the last answered figure
    assert "455" in ans.text and "1,188" not in ans.text


def test_a_clarification_or_refusal_does_not_replace_the_context(answerer: Answerer) -> None:
    ask(answerer, CHINA24)
    assert ask(answerer, "How much did we make?").route is Route.CLARIFY
    assert ask(answerer, "What was Vortex Corp revenue?").route is Route.REFUSED
    assert "410" in ask(answerer, "and Hong Kong?").text


# -- expiry, chats, threads -----------------------------------------------------------------


def test_the_context_expires(answerer: Answerer, clock: Clock) -> None:
    ask(answerer, CHINA24)
    clock.advance(29)
    assert carried_text(ask(answerer, "and Hong Kong?"))  # and this answer renews it
    clock.advance(31)
    ans = ask(answerer, "and FY2025?")
    assert not carried_text(ans) and ans.route is Route.CLARIFY  # "which figure?"


def test_the_ttl_is_a_setting_and_zero_turns_follow_ups_off(
    acme_glossary: Glossary, store: MemoryConversationStore, clock: Clock
) -> None:
    short = make_answerer(acme_glossary, store, clock, conversation_ttl=dt.timedelta(minutes=5))
    ask(short, CHINA24)
    clock.advance(6)
    assert not carried_text(ask(short, "and Hong Kong?"))
    off = make_answerer(acme_glossary, store, clock, conversation_ttl=dt.timedelta(0))
    ask(off, CHINA24)
    assert not carried_text(ask(off, "and Hong Kong?"))
    assert not store.rows or all(c.at < clock.at for c in store.rows.values())


def test_the_context_never_crosses_chats_or_threads(answerer: Answerer) -> None:
    ask(answerer, CHINA24, chat="slack:C1", conversation="slack:C1:thread:1.0")
    assert carried_text(ask(answerer, "and Hong Kong?", chat="slack:C1",
                            conversation="slack:C1:thread:1.0"))
    assert not carried_text(ask(answerer, "and Hong Kong?", chat="slack:C1",
                                conversation="slack:C1:thread:2.0"))
    assert not carried_text(ask(answerer, "and Hong Kong?", chat="slack:C2",
                                conversation="slack:C1:thread:1.0"))
    assert not carried_text(ask(answerer, "and Hong Kong?", chat="slack:C1"))


def test_a_standalone_request_reads_and_keeps_nothing(
    answerer: Answerer, store: MemoryConversationStore
) -> None:
    ask(answerer, CHINA24, conversation=STANDALONE)
    assert not store.rows
    ask(answerer, CHINA24)
    assert not carried_text(ask(answerer, "and Hong Kong?", conversation=STANDALONE))


# -- the gate judges the resolved request ---------------------------------------------------


def test_a_follow_up_naming_a_restricted_unit_in_an_uncleared_chat_is_refused(
    answerer: Answerer,
) -> None:
    ask(answerer, "What was ACME China revenue in FY2025?")
    ans = ask(answerer, "and Labs?")
    assert ans.route is Route.REFUSED and "77" not in ans.text
    cleared = ask(answerer, "What was ACME China revenue in FY2025?", chat=CLEARED)
    assert cleared.succeeded
    assert "77" in ask(answerer, "and Labs?", chat=CLEARED).text


def test_an_uncleared_chat_never_inherits_a_cleared_chat_restricted_entity(
    answerer: Answerer,
) -> None:
    assert "77" in ask(answerer, "What was ACME Labs revenue in FY2025?", chat=CLEARED).text
    ans = ask(answerer, "and in FY2024?")  # another chat, nothing to continue
    assert not carried_text(ans) and "Labs" not in ans.text and "77" not in ans.text


def test_a_carried_restricted_entity_is_refused_once_the_chat_loses_clearance(
    acme_glossary: Glossary, store: MemoryConversationStore, clock: Clock
) -> None:
    ask(make_answerer(acme_glossary, store, clock),
        "What was ACME Labs revenue in FY2025?", chat=CLEARED)
    revoked = dataclasses.replace(acme_glossary, restricted_chats=frozenset())
    ans = ask(make_answerer(revoked, store, clock), "and FY2024?", chat=CLEARED)
    assert ans.route is Route.REFUSED and "Labs" not in ans.text


# -- a tapped option on a follow-up's answer ------------------------------------------------


def test_an_option_on_a_follow_up_answer_keeps_what_it_carried(
    answerer: Answerer, acme_turns: MemoryTurns, clock: Clock
) -> None:
    ask(answerer, "What was ACME China revenue in FY2025?")
    follow = ask(answerer, "and Hong Kong?")
    clock.advance(120)  # the context is long gone; the turn remembers what it was
    tapped = ask_tap(answerer, acme_turns, follow, "entity", "ACME_IT")
    assert "730" in tapped.text


def ask_tap(answerer: Answerer, turns: MemoryTurns, ans: Answer, slot: str, value: str) -> Answer:
    turn = turns.get_turn(ans.turn_id)
    assert turn is not None
    turn.options = [*turn.options, {"label": value, "slot": slot, "value": value}]
    request = tap_request(turn, len(turn.options) - 1, chat=UNCLEARED, user="u1")
    assert request is not None
    return Pipeline(answerer).answer(request)


# -- the rule itself, without an answerer ---------------------------------------------------


def test_carried_slots_needs_a_context_with_a_figure() -> None:
    context = ConversationContext((), ("ACME_CN",), ("FY2024",), (), "structured", T0)
    intent = Intent(route=Route.STRUCTURED, entities=["ACME_HK"])
    assert carried_slots("and Hong Kong?", intent, context) == {}
    with_metric = dataclasses.replace(context, metrics=("REVENUE",))
    assert carried_slots("and Hong Kong?", intent, with_metric) == {
        "metric": "REVENUE", "period": "FY2024"}
    composite = dataclasses.replace(with_metric, route="composite")
    assert carried_slots("and Hong Kong?", intent, composite)["route"] == "composite"


def test_the_console_narrows_a_follow_up_by_number(answerer: Answerer) -> None:
    from adapters.console import ConsoleChat

    console = ConsoleChat(Pipeline(answerer), chat=UNCLEARED, today=lambda: REF)
    console.handle("What was ACME China revenue?")  # assumed period: options to narrow it
    shown = console.handle("and Hong Kong?")
    assert "455" in shown and "Carried over" in shown
    assert console.last is not None
    options = [o.value for o in console.last[1].options]
    picked = console.handle(str(options.index("FY2024") + 1))
    assert "410" in picked  # Hong Kong revenue in FY2024: the carried metric survives
