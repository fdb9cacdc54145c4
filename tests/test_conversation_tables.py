"""Follow-ups of tables: "and FY2024?" after a breakdown by entity is that breakdown for
FY2024, "and Hong Kong?" after China's series is Hong Kong's series, "and in FY2024?" after a
ranking ranks FY2024. A follow-up that names what the table runs over asks for one figure."""

from __future__ import annotations

import datetime as dt

import pytest

from core.contracts.ports import ConversationContext
from core.contracts.types import Answer, Period, PeriodType, Route
from core.knowledge.glossary import Glossary
from core.planning.answering import Answerer
from core.question.conversation import TABLE, carried_slots
from core.question.intent import Intent
from core.question.table_shape import Analysis, from_shape
from storage.conversation_store import MemoryConversationStore
from tests.acme import MemoryTurns
from tests.test_conversation import Clock, ask, ask_tap, carried_text, make_answerer

T0 = dt.datetime(2026, 6, 15, 9, 0, tzinfo=dt.UTC)


@pytest.fixture
def answerer(acme_glossary: Glossary, acme_turns: MemoryTurns) -> Answerer:
    return make_answerer(acme_glossary, MemoryConversationStore(), Clock(), turns=acme_turns)


def tools(ans: Answer) -> list[str]:
    return [step["tool"] for step in ans.plan.get("steps", [])]


def figures(ans: Answer) -> set[tuple[str, str, str]]:
    """(entity, period, value) of every figure found."""
    return {
        (r.fact.entity, r.fact.period.value, f"{r.fact.value:f}")
        for r in ans.facts
        if r.fact is not None
    }


def test_a_breakdown_follow_up_naming_a_period_is_the_breakdown_for_that_period(
    answerer: Answerer,
) -> None:
    first = ask(answerer, "Revenue by entity in FY2025")
    assert tools(first) == ["breakdown_table"]
    follow = ask(answerer, "and FY2024?")
    assert tools(follow) == ["breakdown_table"], follow.text
    assert {("ACME_CN", "2024", "1320"), ("ACME_HK", "2024", "410")} <= figures(follow)
    assert "FY2024" in follow.text and "revenue" in carried_text(follow).casefold()
    # and the chain goes on: a metric named next keeps the breakdown and its period
    then = ask(answerer, "and EBITDA?")
    assert tools(then) == ["breakdown_table"] and "EBITDA" in then.text


def test_a_follow_up_naming_a_member_of_the_breakdown_asks_for_its_figure(
    answerer: Answerer,
) -> None:
    ask(answerer, "Revenue by entity in FY2025")
    follow = ask(answerer, "and Hong Kong?")
    assert tools(follow) == ["query_metric"], follow.text
    assert figures(follow) == {("ACME_HK", "2025", "455")}


def test_a_series_follow_up_naming_another_entity_is_its_series(answerer: Answerer) -> None:
    first = ask(answerer, "ACME China revenue from FY2024 to FY2025")
    assert tools(first) == ["series_table"]
    follow = ask(answerer, "and Hong Kong?")
    assert tools(follow) == ["series_table"], follow.text
    assert figures(follow) == {("ACME_HK", "2024", "410"), ("ACME_HK", "2025", "455")}


def test_a_series_follow_up_naming_one_period_asks_for_that_figure(answerer: Answerer) -> None:
    ask(answerer, "ACME China revenue from FY2024 to FY2025")
    follow = ask(answerer, "and in FY2024?")
    assert tools(follow) == ["query_metric"], follow.text
    assert figures(follow) == {("ACME_CN", "2024", "1320")}


def test_a_ranking_follow_up_naming_a_period_ranks_that_period(answerer: Answerer) -> None:
    first = ask(answerer, "Which unit had the highest revenue in FY2025?")
    assert tools(first) == ["ranking_table"]
    follow = ask(answerer, "and in FY2024?")
    assert tools(follow) == ["ranking_table"], follow.text
    assert follow.text.index("1,320") < follow.text.index("410")  # China first, then HK


def test_a_follow_up_that_asks_for_its_own_table_gets_that_one(answerer: Answerer) -> None:
    ask(answerer, "Revenue by entity in FY2025")
    follow = ask(answerer, "and ACME China revenue from FY2024 to FY2025?")
    assert tools(follow) == ["series_table"], follow.text


def test_what_a_table_context_carries() -> None:
    context = ConversationContext(
        ("REVENUE",), (), ("FY2025",), (), "structured", T0, table="breakdown:entity:value:desc"
    )
    period_named = Intent(route=Route.STRUCTURED, periods=[Period(PeriodType.FY, "2024")])
    assert carried_slots("and FY2024?", period_named, context) == {
        "metric": "REVENUE",
        TABLE: "breakdown:entity:value:desc",
    }
    entity_named = Intent(route=Route.STRUCTURED, entities=["ACME_HK"])
    assert TABLE not in carried_slots("and Hong Kong?", entity_named, context)
    series = ConversationContext(
        ("REVENUE",),
        ("ACME_CN",),
        ("FY2024", "FY2025"),
        (),
        "structured",
        T0,
        table="series:entity:value:desc",
    )
    assert carried_slots("and Hong Kong?", entity_named, series)[TABLE] == series.table
    assert TABLE not in carried_slots("and FY2024?", period_named, series)


def test_a_shape_not_written_by_this_module_draws_no_table() -> None:
    fy = [Period(PeriodType.FY, "2024"), Period(PeriodType.FY, "2025")]
    assert from_shape("breakdown:entity:value:desc", fy[:1], entities=0, channels=0) == Analysis(
        "breakdown", dimension="entity", assumed_period=False
    )
    for bad in ("", "pie:entity:value:desc", "breakdown:entity", "breakdown:moon:value:desc"):
        assert from_shape(bad, fy, entities=0, channels=0) is None
    assert from_shape("series:entity:value:desc", fy[:1], entities=1, channels=0) is None
    assert from_shape("comparison:entity:value:desc", fy[:1], entities=1, channels=0) is None
    assert from_shape("ranking:entity:growth:asc", fy, entities=0, channels=0) is None


def test_a_stored_context_with_a_table_it_cannot_draw_still_answers_the_figures(
    acme_glossary: Glossary, acme_turns: MemoryTurns
) -> None:
    """A context from a newer release (a table kind this one does not know) is carried as
    slots; the follow-up is answered as figures, not refused or crashed."""
    store = MemoryConversationStore()
    answerer = make_answerer(acme_glossary, store, Clock(), turns=acme_turns)
    ask(answerer, "What was ACME China revenue in FY2025?")
    (key,) = store.rows
    store.rows[key] = ConversationContext(
        ("REVENUE",), (), ("FY2025",), (), "structured", T0, table="heatmap:entity:value:desc"
    )
    follow = ask(answerer, "and Hong Kong?")
    assert figures(follow) == {("ACME_HK", "2025", "455")}


def test_the_carried_line_reads_a_series_periods_as_their_span(answerer: Answerer) -> None:
    ask(answerer, "ACME Group revenue from FY2023 to FY2025")
    follow = ask(answerer, "and ACME China?")
    assert tools(follow) == ["series_table"]
    assert carried_text(follow).endswith("FY2023–FY2025."), carried_text(follow)
    ask(answerer, "ACME Group revenue in FY2023 and FY2025")  # two, not a run: one by one
    assert "FY2023, FY2025" in carried_text(ask(answerer, "and ACME China?"))


def test_a_follow_up_with_a_range_and_no_metric_is_the_series(answerer: Answerer) -> None:
    """"and Hong Kong from 2024 to 2025?" after a figure used to answer the range's two
    ends as a list: the metric comes from the conversation, the series from the range."""
    ask(answerer, "What was ACME China revenue in FY2025?")
    follow = ask(answerer, "and Hong Kong from 2024 to 2025?")
    assert tools(follow) == ["series_table"], follow.text
    assert figures(follow) == {("ACME_HK", "2024", "410"), ("ACME_HK", "2025", "455")}


def test_a_range_without_a_metric_asks_for_it_and_the_tap_draws_the_series(
    answerer: Answerer, acme_turns: MemoryTurns
) -> None:
    first = ask(answerer, "ACME China from FY2024 to FY2025")
    assert first.route_name == "clarify" and any(o.slot == "metric" for o in first.options)
    tapped = ask_tap(answerer, acme_turns, first, "metric", "REVENUE")
    assert tools(tapped) == ["series_table"], tapped.text
    assert figures(tapped) == {("ACME_CN", "2024", "1320"), ("ACME_CN", "2025", "1188")}
