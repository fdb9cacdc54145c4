"""The dual-channel answerer, structured side: statuses, gates, assumptions, options, languages."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest

from core.contracts.types import FactStatus, Request, Route
from core.pipeline.pipeline import Pipeline
from core.planning.answering import Answerer
from tests.acme import REF, MemoryFacts, read_acme_facts

CLEARED = "telegram:9001"  # cleared for ACME Labs: group totals are shown here (issue 33)


def ask(answerer: Answerer, text: str, **kw) -> object:  # type: ignore[no-untyped-def]
    return Pipeline(answerer).answer(Request(text=text, reference_date=kw.pop("ref", REF), **kw))


# --- query_metric: the three statuses -----------------------------------------------------


def test_found_gives_the_exact_number_and_its_source(acme_answerer) -> None:  # type: ignore[no-untyped-def]
    ans = ask(acme_answerer, "What was ACME China revenue in FY2024?")
    assert ans.route is Route.STRUCTURED
    (fact,) = ans.facts
    assert fact.status is FactStatus.FOUND
    d = fact.to_dict()
    assert d["value"] == 1320 and d["unit"] == "USD_M" and d["entity"] == "ACME_CN"
    assert d["source"] == {"doc": "ACME_FY2024_Review.pptx", "locator": "slide=2,table=1"}
    assert "$1,320M" in ans.text
    cited = "(source: ACME FY2024 Review, slide 2, table 1)"
    assert ans.text.index("1,320") < ans.text.index(cited)
    assert ans.assumptions == [] and ans.options == []


def test_decimal_value_is_exact(acme_answerer) -> None:  # type: ignore[no-untyped-def]
    ans = ask(acme_answerer, "ACME China online revenue FY2025")
    assert ans.facts[0].to_dict()["value"] == 402.25
    assert "$402.25M" in ans.text


def test_not_found_has_no_number_but_names_the_period(acme_answerer) -> None:  # type: ignore[no-untyped-def]
    ans = ask(acme_answerer, "What was ACME Italia revenue in FY2023?")
    (fact,) = ans.facts
    assert fact.status is FactStatus.NOT_FOUND
    assert fact.to_dict()["normalized"]["period"] == "2023"
    assert "FY2023" in ans.text
    assert not any(ch.isdigit() for ch in ans.text.replace("FY2023", ""))


def test_unknown_entity_is_unrecognized_not_guessed(acme_answerer) -> None:  # type: ignore[no-untyped-def]
    ans = ask(acme_answerer, "What was Initech revenue in FY2024?")
    (fact,) = ans.facts
    assert fact.to_dict() == {"status": "unrecognized_param", "param": "entity", "raw": "Initech"}
    assert "Initech" in ans.text and "ACME China" in ans.text
    assert "5,210" not in ans.text  # never the default entity's number instead


def test_invalid_period_is_unrecognized(acme_answerer) -> None:  # type: ignore[no-untyped-def]
    ans = ask(acme_answerer, "ACME China revenue Q5 2025")
    assert [f.to_dict() for f in ans.facts] == [
        {"status": "unrecognized_param", "param": "period", "raw": "Q5 2025"}
    ]


def test_query_metric_accepts_names_and_codes(acme_answerer) -> None:  # type: ignore[no-untyped-def]
    ch = acme_answerer.structured
    assert (
        ch.query_metric("fatturato", "Cina", "FY2024", reference_date=REF).status
        is FactStatus.FOUND
    )
    assert (
        ch.query_metric("REVENUE", "ACME_CN", "2024", "TOTAL", reference_date=REF).fact.value
        == 1320
    )
    bad = ch.query_metric("profit", "ACME_CN", "2024", reference_date=REF)
    assert (bad.status, bad.param, bad.raw) == (FactStatus.UNRECOGNIZED, "metric", "profit")
    bad = ch.query_metric("REVENUE", "ACME_CN", "2024", "wholesale", reference_date=REF)
    assert (bad.param, bad.raw) == ("channel", "wholesale")


# --- clarification gate --------------------------------------------------------------------


def test_missing_metric_asks_first_with_one_option_per_metric(acme_answerer) -> None:  # type: ignore[no-untyped-def]
    ans = ask(acme_answerer, "How much did we make?")
    assert ans.route is Route.CLARIFY
    assert ans.facts == []
    assert [(o.slot, o.value) for o in ans.options] == [
        ("metric", "REVENUE"),
        ("metric", "EBITDA"),
        ("metric", "HEADCOUNT"),
    ]


def test_missing_entity_and_period_are_assumed_and_stated(acme_answerer) -> None:  # type: ignore[no-untyped-def]
    ans = ask(acme_answerer, "What was revenue?")
    assert ans.route is Route.STRUCTURED
    assert [a.to_dict() for a in ans.assumptions] == [
        {"slot": "entity", "value": "ACME Group", "reason": "default entity"},
        {"slot": "period", "value": "FY2025", "reason": "last complete fiscal year"},
    ]
    # an uncleared chat: the group total would reveal ACME Labs, so it is withheld (issue 33)
    assert "Assumed" in ans.text and "not shown in this chat" in ans.text
    assert "5,480.5" not in ans.text
    cleared = ask(acme_answerer, "What was revenue?", chat=CLEARED)
    assert [a.slot for a in cleared.assumptions] == ["entity", "period"]
    assert cleared.facts[0].fact.value == cleared.facts[0].fact.value.__class__("5480.5")
    assert "Assumed" in cleared.text and "5,480.5" in cleared.text
    entity_opts = [o.value for o in ans.options if o.slot == "entity"]
    assert entity_opts == ["ACME_CN", "ACME_HK", "ACME_IT"]  # restricted ACME_LABS not offered
    period_opts = [o.value for o in ans.options if o.slot == "period"]
    assert period_opts[:2] == ["FY2024", "FY2023"]


def test_last_complete_fiscal_year_follows_the_reference_date(acme_answerer) -> None:  # type: ignore[no-untyped-def]
    ans = ask(acme_answerer, "ACME China revenue", ref=dt.date(2025, 3, 1))
    assert ans.assumptions[0].value == "FY2024"
    assert ans.facts[0].fact.value == 1320


def test_option_tap_reruns_with_the_slot_fixed(acme_answerer) -> None:  # type: ignore[no-untyped-def]
    first = ask(acme_answerer, "What was revenue?")
    china = next(o for o in first.options if o.value == "ACME_CN")
    again = ask(acme_answerer, "What was revenue?", fixed_slots={china.slot: china.value})
    assert again.facts[0].fact.entity == "ACME_CN"
    assert [a.slot for a in again.assumptions] == ["period"]
    fy24 = next(o for o in again.options if o.value == "FY2024")
    third = ask(
        acme_answerer, "What was revenue?", fixed_slots={"entity": "ACME_CN", fy24.slot: fy24.value}
    )
    assert third.facts[0].fact.value == 1320 and third.assumptions == []


def test_metric_option_answers_the_clarified_question(acme_answerer) -> None:  # type: ignore[no-untyped-def]
    ans = ask(acme_answerer, "How much did we make?", fixed_slots={"metric": "EBITDA"},
              chat=CLEARED)
    assert ans.route is Route.STRUCTURED
    assert ans.facts[0].fact.value == 812


def test_forged_option_value_changes_nothing(acme_answerer) -> None:  # type: ignore[no-untyped-def]
    ans = ask(acme_answerer, "What was revenue?", fixed_slots={"entity": "EVIL_CORP"})
    assert [f.status for f in ans.facts] == [FactStatus.UNRECOGNIZED]
    assert not any(ch.isdigit() for ch in ans.text)


# --- security gate -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "What was Vortex Corp revenue in 2024?",
        "What was V o r t e x   C o r p revenue?",
        "vortexcorp sales",
        "星河集团的营收是多少",
        "Why is China Rival Ltd growing?",  # "China" inside a competitor's name must not match
    ],
)
def test_competitors_are_refused_before_any_channel(acme_answerer, question) -> None:  # type: ignore[no-untyped-def]
    ans = ask(acme_answerer, question)
    assert ans.route is Route.REFUSED
    assert ans.facts == [] and ans.sources == []
    assert "ACME China" in ans.text or "中国区" in ans.text  # says what can be asked instead


def test_restricted_entity_invisible_without_clearance(acme_answerer) -> None:  # type: ignore[no-untyped-def]
    uncleared = ask(acme_answerer, "ACME Labs revenue FY2025", chat="telegram:1")
    assert uncleared.route is Route.REFUSED and "77" not in uncleared.text
    assert "ACME Labs" not in uncleared.text
    tapped = ask(
        acme_answerer, "revenue FY2025", chat="telegram:1", fixed_slots={"entity": "ACME_LABS"}
    )
    assert tapped.route is Route.REFUSED
    cleared = ask(acme_answerer, "ACME Labs revenue FY2025", chat="telegram:9001")
    assert cleared.facts[0].fact.value == 77


# --- several subtasks ----------------------------------------------------------------------


def test_two_periods_get_difference_computed_in_code(acme_answerer) -> None:  # type: ignore[no-untyped-def]
    ans = ask(acme_answerer, "ACME China revenue FY2024 vs FY2025")
    assert [f.fact.value for f in ans.facts] == [1320, 1188]
    assert "-$132M" in ans.text and "-10.0%" in ans.text
    assert len(ans.plan["steps"]) == 2


def test_combinations_are_one_query_each(acme_answerer) -> None:  # type: ignore[no-untyped-def]
    ans = ask(acme_answerer, "Revenue and EBITDA for China and Hong Kong in 2025")
    keys = [(f.metric, f.entity, f.status.value) for f in ans.facts]
    assert keys == [
        ("REVENUE", "ACME_CN", "found"),
        ("REVENUE", "ACME_HK", "found"),
        ("EBITDA", "ACME_CN", "found"),
        ("EBITDA", "ACME_HK", "not_found"),
    ]
    assert "Change" not in ans.text  # a difference only for exactly two periods


def test_zero_base_difference_has_no_percentage(acme_answerer) -> None:  # type: ignore[no-untyped-def]
    from core.contracts.types import FactResult, Period, PeriodType
    from core.figures.structured import two_period_difference

    facts = read_acme_facts()
    zero = next(f for f in facts if f.metric == "EBITDA" and f.entity == "ACME_CN")
    later = Period(PeriodType.FY, "2026")
    other = dataclasses.replace(zero, period=later, value=zero.value + 5)
    diff = two_period_difference(
        [
            FactResult(FactStatus.FOUND, fact=other, period=other.period),
            FactResult(FactStatus.FOUND, fact=zero, period=zero.period),
        ]
    )
    assert diff is not None and diff.pct is None and diff.delta == 5
    assert diff.earlier.fact is zero


# --- languages -----------------------------------------------------------------------------


def test_italian_question_gets_italian_answer(acme_answerer) -> None:  # type: ignore[no-untyped-def]
    ans = ask(acme_answerer, "Qual è stato il fatturato della Cina nel 2024?")
    assert ans.language == "it"
    assert "1.320 Mln $" in ans.text and "fonte:" in ans.text


def test_chinese_question_gets_chinese_answer(acme_answerer) -> None:  # type: ignore[no-untyped-def]
    ans = ask(acme_answerer, "ACME HK 去年 REVENUE 是多少")
    assert ans.language == "zh"
    assert ans.facts[0].fact.value == 455
    assert "香港" in ans.text and "来源" in ans.text


def test_chinese_assumption_and_not_found(acme_answerer) -> None:  # type: ignore[no-untyped-def]
    ans = ask(acme_answerer, "意大利2023年营收是多少")
    assert ans.facts[0].status is FactStatus.NOT_FOUND
    assert "2023财年" in ans.text and "没有" in ans.text


# --- bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_empty_question_gets_a_usage_hint_and_no_turn(acme_answerer, acme_turns, text) -> None:  # type: ignore[no-untyped-def]
    ans = ask(acme_answerer, text)
    assert "What was Orbis China revenue" in ans.text or "Ask me" in ans.text
    assert acme_turns.turns == {}


@pytest.mark.parametrize(
    "text",
    [
        "\x00\x01\x02\xff\xfe garbage \x7f",
        "🙂🙂🚀",
        "'; DROP TABLE turns; --",
        "SELECT * FROM facts WHERE 1=1",
    ],
)
def test_garbage_is_not_understood_and_only_the_turn_is_written(
    acme_answerer, acme_turns, text
) -> None:  # type: ignore[no-untyped-def]
    ans = ask(acme_answerer, text)
    assert ans.route is Route.UNKNOWN
    assert ans.facts == []
    assert list(acme_turns.turns) == [ans.turn_id]


def test_long_question_is_truncated_with_a_notice(acme_glossary, acme_turns) -> None:  # type: ignore[no-untyped-def]
    answerer = Answerer(
        glossary=acme_glossary,
        facts=MemoryFacts(read_acme_facts()),
        turns=acme_turns,
        today=lambda: REF,
        max_question_chars=50,
    )
    ans = ask(answerer, "ACME China revenue FY2024 " + "blah " * 1000)
    assert ans.facts[0].fact.value == 1320
    assert "50 characters" in ans.text
    assert len(acme_turns.turns[ans.turn_id].question) == 50


def test_turn_records_route_plan_and_answer(acme_answerer, acme_turns) -> None:  # type: ignore[no-untyped-def]
    ans = ask(acme_answerer, "What was revenue?", chat="slack:C1", user="U7")
    turn = acme_turns.turns[ans.turn_id]
    assert (turn.chat, turn.user, turn.route, turn.served_by) == (
        "slack:C1",
        "U7",
        "structured",
        "planner",
    )
    assert turn.plan["route"] == "structured" and turn.plan["assumed"] == ["entity", "period"]
    assert turn.plan["steps"] == [{"tool": "query_metric", "args": {
        "metric": "${metric[0]}", "entity": "${entity:default}", "period": "${period:last_fy}",
        "channel": "${channel:total}"}}]
    assert turn.options == [o.to_dict() for o in ans.options]
    assert turn.answer["text"] == ans.text
