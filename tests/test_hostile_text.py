"""Hostile question text: the gate, the parser, the normalisers and the whole answerer on
arbitrary unicode never raise, stay fast, and never leak the restricted ACME Labs figure (77)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.contracts.types import Answer, FactStatus, Request, Route
from core.knowledge.glossary import load_glossary
from core.knowledge.names import NameIndex
from core.pipeline.pipeline import Pipeline
from core.planning.answering import Answerer
from core.question.intent import RuleIntentParser
from core.question.security import SecurityGate
from tests.acme import ACME, REF, MemoryFacts, MemoryTurns, read_acme_facts
from tests.cpu_budget import cpu_timed, within

GLOSSARY = load_glossary(ACME / "glossary.toml")
NAMES = NameIndex(GLOSSARY)
GATE = SecurityGate(NAMES)
PARSER = RuleIntentParser(NAMES)
CONTRACT_ROUTES = {"structured", "narrative", "composite", "clarify", "refused"}
UNCLEARED = ("telegram:1", "slack:CPUBLIC", "console:local")
CLEARED = ("telegram:9001", "slack:C0123")
RESTRICTED = "ACME_LABS"

# pieces that reach every branch: glossary names (restricted and competitors too), periods,
# cues, scripts that change direction or width, controls, emoji and markup
_pieces = st.sampled_from(
    [
        "ACME Labs", "Labs", "实验室", "ACME  Labs", "A C M E Labs", "ｌａｂｓ", "LABS",
        "revenue", "营收", "fatturato", "EBITDA", "headcount", "ACME China", "中国区", "Italia",
        "online", "retail", "Vortex Corp", "V o r t e x Corp", "星河集团",
        "FY2025", "2025", "Q3 2024", "H1", "last year", "去年上半年", "2025年", "13/2025",
        "why", "perché", "为什么", "how much", "?", "？", " ", "  ", "\n", "\t", "\x00",
        "\u200b", "\u202e", "\u200f", "שלום", "مرحبا", "😀", "👩‍👩‍👧", "\ufffd", "\ud7ff",
        "${query}", "</snippet>", "<b>", "77", "-1e999", "NaN", "of", "for", "di", "A ",
    ]
)  # fmt: skip
_mixed = st.lists(st.one_of(_pieces, st.text(max_size=20)), max_size=40).map("".join)
_long = st.tuples(_mixed, st.integers(1, 400)).map(lambda t: (t[0] * t[1])[:5_000])
hostile_text = st.one_of(st.text(max_size=300), _mixed, _long)


def _answerer() -> Answerer:
    return Answerer(
        glossary=GLOSSARY, facts=MemoryFacts(read_acme_facts()), turns=MemoryTurns(),
        today=lambda: REF,
    )  # fmt: skip


ANSWERER = _answerer()
PIPELINE = Pipeline(ANSWERER)  # the bare answer: every question planned, no plan cache


_timed = cpu_timed  # CPU seconds, against budgets scaled to the machine's load (cpu_budget.py)


def _check_answer(ans: Answer, question: str, *, cleared: bool) -> None:
    assert isinstance(ans, Answer)
    assert isinstance(ans.route, Route)
    assert ans.to_dict()["route"] in CONTRACT_ROUTES
    assert isinstance(ans.text, str) and ans.text.strip()
    if ans.route is Route.REFUSED:
        body = ans.text
        for notice in ans.notices:
            body = body.replace(notice, "")
        assert not any(ch.isdigit() for ch in body), body
        assert not ans.facts and not ans.sources
    if not cleared:
        for result in ans.facts:
            fact = result.fact
            assert fact is None or fact.entity != RESTRICTED, question
        if "77" not in question:
            assert "77" not in ans.text


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile_text, st.sampled_from(UNCLEARED + CLEARED))
def test_answerer_always_answers_within_the_contract(question: str, chat: str) -> None:
    ans, took = _timed(PIPELINE.answer, Request(question, chat=chat))
    _check_answer(ans, question, cleared=chat in CLEARED)
    assert within(took, 1.0)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    hostile_text,
    st.dictionaries(
        st.sampled_from(["metric", "entity", "channel", "period"]),
        st.one_of(_pieces, st.text(max_size=30), st.just(RESTRICTED)),
        max_size=3,
    ),
)
def test_hostile_fixed_slots_never_reveal_a_restricted_figure(
    question: str, fixed: dict[str, str]
) -> None:
    """Option taps are signed, but their values still come from text that once was hostile."""
    ans, took = _timed(PIPELINE.answer, Request(question, chat="telegram:1", fixed_slots=fixed))
    assert within(took, 1.0)
    # a tapped value the bot does not know is quoted back ("I don't recognise the metric
    # "77"."): what the request itself said is not a leaked figure
    _check_answer(ans, " ".join([question, *fixed.values()]), cleared=False)


def test_restricted_names_in_disguise_are_refused_for_an_uncleared_chat() -> None:
    for question in (
        "ACME Labs revenue FY2025",
        "ａｃｍｅ ｌａｂｓ revenue 2025",
        "实验室营收2025",
        "LABS\u00a0revenue FY2025",
        "revenue of labs\x00 FY2025",
    ):
        ans = PIPELINE.answer(Request(question, chat="telegram:1"))
        assert ans.route is Route.REFUSED, question
        assert "77" not in ans.text and "Labs" not in ans.text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile_text, st.booleans())
def test_gate_and_parser_agree_on_restricted_entities(text: str, cleared: bool) -> None:
    """Whatever the gate lets through for an uncleared chat, the parser finds no restricted
    entity in it: the refusal cannot be bypassed by text the two read differently."""
    verdict = GATE.check(text, cleared=cleared)
    assert len(verdict.text) == len(text)  # blanking keeps every offset
    if not verdict.allowed:
        assert verdict.reason in ("competitor", "restricted")
        return
    intent, took = _timed(PARSER.parse, verdict.text, REF)
    assert within(took, 0.3)
    assert isinstance(intent.route, Route)
    assert set(intent.metrics) <= set(GLOSSARY.metrics)
    assert set(intent.entities) <= set(GLOSSARY.entities)
    assert set(intent.channels) <= set(GLOSSARY.channels)
    if not cleared:
        assert RESTRICTED not in intent.entities


def test_capitalised_words_before_a_metric_take_bounded_time() -> None:
    """Found by hypothesis-style probing: many capitalised words followed by many double
    spaces made the unknown-entity scan cubic (2.7 s for one 2,000-character question)."""
    for text in ("revenue " + "A " * 600 + "b  " * 300, "revenue " + "Ab " * 500 + "c  " * 160):
        _, took = _timed(PARSER.parse, text[:2_000], REF)
        assert within(took, 0.3), took


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(NameIndex.KINDS), st.one_of(_pieces, st.text(max_size=60), _mixed))
def test_name_normalizer_returns_a_code_of_that_kind_or_nothing(kind: str, raw: str) -> None:
    code, took = _timed(NAMES.normalize, kind, raw)
    assert within(took, 0.2)
    known = {"metric": GLOSSARY.metrics, "entity": GLOSSARY.entities,
             "channel": GLOSSARY.channels}[kind]  # fmt: skip
    assert code is None or code in known


@settings(max_examples=100, deadline=None)
@given(hostile_text)
def test_competitor_spans_cover_real_characters(text: str) -> None:
    spans, took = _timed(NAMES.competitor_spans, text)
    assert within(took, 0.3)
    for start, end in spans:
        assert 0 <= start < end <= len(text)
        assert text[start].strip() and text[end - 1].strip()


def test_truncated_question_says_so_and_is_still_answered() -> None:
    ans = PIPELINE.answer(Request("ACME China revenue FY2025? " + "x" * 1_000_000))
    assert ans.notices and "2000" in ans.notices[0]
    assert ans.route is Route.STRUCTURED
    assert ans.facts and ans.facts[0].status is FactStatus.FOUND


# Ordinary words capitalised because they start the sentence are not unknown companies: the
# answer gives both figures and their difference, with no "I don't know the company" beside it.
ORDINARY_OPENINGS = [
    # en
    "Show revenue China FY2024 and FY2025",
    "Please revenue China FY2024 and FY2025",
    "Compare revenue of China FY2024 and FY2025",
    "List revenue China 2024 2025",
    "Give me China revenue for 2024 and 2025",
    "Kindly report revenue China 2024 and 2025",
    "Hi. Compare China revenue 2024 and 2025",
    "Thanks! Now revenue China 2024 and 2025",
    "Ok Show me China revenue 2024 and 2025",
    "SHOW REVENUE CHINA 2024 2025",
    # it
    "Dimmi fatturato Cina 2024 e 2025",
    "Mostra fatturato Cina 2024 e 2025",
    "Confronta fatturato Cina 2024 e 2025",
    "Mostrami il fatturato della Cina nel 2024 e 2025",
    "Scusa, Quanto era il fatturato della Cina nel 2024 e nel 2025?",
    "Per favore fatturato Cina 2024 e 2025",
    # zh (and zh with an English opening)
    "中国区营收2024和2025",
    "请 Show revenue China 2024 2025",
    "Please 告诉我 中国区营收 2024 和 2025",
]


@pytest.mark.parametrize("question", ORDINARY_OPENINGS)
def test_an_ordinary_opening_word_is_not_an_unknown_company(question: str) -> None:
    ans = PIPELINE.answer(Request(question, chat="telegram:1"))
    assert [f.status for f in ans.facts] == [FactStatus.FOUND, FactStatus.FOUND], ans.text
    # the two-period difference was computed ($132M; in Chinese 1.32亿美元, issue 33 onboard)
    assert "132" in ans.text if "亿" not in ans.text else "1.32亿美元" in ans.text, ans.text


@pytest.mark.parametrize(
    ("question", "unknown"),
    [
        ("What was Foobar revenue in 2024?", ["Foobar"]),
        ("Please show Foobar revenue 2024", ["Foobar"]),
        ("Show revenue of Initech for FY2024", ["Initech"]),
        ("Dimmi il fatturato di Globex nel 2025", ["Globex"]),
        ("Mostra Globex fatturato 2025", ["Globex"]),
    ],
)
def test_a_real_unknown_company_is_still_reported(question: str, unknown: list[str]) -> None:
    assert PARSER.parse(question, REF).unknown_entities == unknown
