"""Routing that follows the question (issue 23, item 4), end to end through `ricorda ask
--json` on the demo: a unit or topic without a figure goes to the documents, an unknown
subject is an honest "I don't have that" with no passage, a figure-plus-trend question keeps
both halves, and a multi-part question keeps every part."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.question.subject import not_known
from tests.test_cli import ricorda

REF = "2026-06-15"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("routing") / "data"
    ricorda(data, "demo", "--no-chat")
    return data


def ask(data: Path, question: str, *extra: str) -> dict:  # type: ignore[type-arg]
    out = ricorda(data, "ask", question, "--json", "--reference-date", REF, *extra).stdout
    return json.loads(out)


@pytest.mark.parametrize("question", ["tell me about Hong Kong", "parlami di Hong Kong",
                                      "介绍一下香港"])
def test_a_unit_without_a_figure_is_answered_from_the_documents(
    demo: Path, question: str
) -> None:
    answer = ask(demo, question)
    assert answer["route"] == "narrative" and not answer["options"], answer["text"]
    assert answer["passages"] and answer["citations"]
    assert any("Hong Kong" in p["text"] or "香港" in p["text"] for p in answer["passages"])


@pytest.mark.parametrize(
    ("question", "language"),
    [
        ("what's our NPS?", "en"),
        ("quanto è il nostro NPS?", "it"),
        ("我们的NPS是多少", "zh"),
        ("what's the NPS of Italy?", "en"),
        ("cosa è successo con il nuovo magazzino?", "it"),
    ],
)
def test_an_unknown_subject_is_not_known_without_unrelated_passages(
    demo: Path, question: str, language: str
) -> None:
    answer = ask(demo, question)
    assert answer["language"] == language
    assert answer["text"] == not_known(language)
    assert answer["passages"] == answer["facts"] == answer["options"] == []
    assert answer["sources"] == []


def test_a_restricted_topic_is_not_known_in_an_uncleared_chat_and_found_in_a_cleared_one(
    demo: Path,
) -> None:
    uncleared = ask(demo, "what is Project Heron?")
    assert uncleared["text"] == not_known("en") and "Heron" not in json.dumps(uncleared)
    cleared = ask(demo, "what is Project Heron?", "--chat", "console:admin")
    assert cleared["route"] == "narrative" and cleared["passages"]


@pytest.mark.parametrize(
    "question",
    [
        "中国区2025年营收是多少，趋势如何",
        "How much was China revenue in 2025, and what is the trend?",
        "Quanto è stato il fatturato della Cina nel 2025 e qual è l'andamento?",
    ],
)
def test_a_figure_and_its_trend_keep_both_halves(demo: Path, question: str) -> None:
    answer = ask(demo, question)
    assert answer["route"] == "composite", answer["text"]
    fact = answer["facts"][0]
    assert (fact["metric_code"], fact["entity"], fact["period_type"], fact["period"],
            fact["value_exact"]) == ("REVENUE", "ORBIS_CN", "FY", "2025", "478.2")
    assert answer["tables"] == [] and answer["passages"]


@pytest.mark.parametrize(
    "question",
    [
        "China's gross margin and net income in FY2024, and how many orders did it take?",
        "Margine lordo e utile netto della Cina nel 2024, e quanti ordini?",
        "中国区2024年的毛利率和净利润，还有订单量是多少？",
    ],
)
def test_every_part_of_a_multi_part_question_is_answered_or_named(
    demo: Path, question: str
) -> None:
    answer = ask(demo, question)
    facts = [f.get("normalized", f) | {"status": f["status"], "value": f.get("value_exact")}
             for f in answer["facts"]]
    by_metric = {f["metric_code"]: f for f in facts}
    assert by_metric["GROSS_MARGIN"]["value"] == "40.1"
    assert by_metric["NET_INCOME"]["value"] == "38.5"
    assert by_metric["ORDERS"]["status"] == "not_found"  # named as missing, not dropped
    assert all(f["entity"] == "ORBIS_CN" and f["period"] == "2024" for f in facts)


NO_FIGURE = [
    ("What was our customer churn rate in FY2025?", "I have no figure for customer churn rate."),
    ("Quanto abbiamo speso in pubblicità nel 2025?", "Non ho dati su pubblicità."),
    ("2025年的广告费用是多少？", "我没有广告费用的数据。"),
]


@pytest.mark.parametrize(("question", "said"), NO_FIGURE, ids=[q for q, _ in NO_FIGURE])
def test_a_figure_the_glossary_does_not_have_is_named_before_the_metric_menu(
    demo: Path, question: str, said: str
) -> None:
    """A missing metric still asks first (with the metric buttons), but says plainly which
    figure it does not have instead of a bare menu."""
    answer = ask(demo, question)
    assert answer["text"].splitlines()[0] == said, answer["text"]
    assert {"kind": "no_figure", "text": said} in answer["notices"]
    assert answer["route"] == "clarify" and len(answer["options"]) >= 6
    assert not answer["facts"] and not answer["citations"]


def test_a_question_naming_only_a_unit_and_a_year_gets_the_plain_menu(demo: Path) -> None:
    answer = ask(demo, "Orbis China 2024")
    assert answer["route"] == "clarify" and answer["options"]
    assert not [n for n in answer["notices"] if n.get("kind") == "no_figure"]


def test_an_italian_abbreviation_of_revenue(demo: Path) -> None:
    answer = ask(demo, "fatt. Italia 2024")
    fact = answer["facts"][0]
    assert (fact["metric_code"], fact["entity"], fact["period"], fact["value_exact"]) == (
        "REVENUE", "ORBIS_IT", "2024", "318.9")


GROWTH_WHY = [
    "How much did Italian revenue grow in 2025 and why?",
    "Di quanto sono cresciuti i ricavi dell'Italia nel 2025 e perché?",
    "2025年意大利营收增长了多少，为什么？",
]


@pytest.mark.parametrize("question", GROWTH_WHY)
def test_a_growth_and_why_keeps_the_growth_and_the_reasons(demo: Path, question: str) -> None:
    answer = ask(demo, question, "--reference-date", "2026-03-15")
    assert answer["route"] == "composite", answer["text"]
    growth = answer["facts"][0]
    assert (growth["formula"]["op"], growth["entity"], growth["period"]) == (
        "growth", "ORBIS_IT", "2025")
    assert growth["value_shown"] == "10.6"  # (352.6 - 318.9) / 318.9
    assert answer["passages"] and answer["citations"]
    # one numbering: the figure's inputs are cited after the passages, each number once
    numbers = [c["number"] for c in answer["citations"]]
    assert numbers == list(range(1, len(numbers) + 1)), answer["citations"]
    first_line = answer["text"].splitlines()[0]
    for n in (len(numbers) - 1, len(numbers)):
        assert f"[{n}]" in first_line, answer["text"]


MULTI_CHANNEL = [
    "China's gross margin and net income in FY2024, and how many online orders did it take?",
    "Margine lordo e utile netto della Cina nel 2024, e quanti ordini online?",
    "中国区2024年的毛利率和净利润，以及线上订单量是多少？",
]


@pytest.mark.parametrize("question", MULTI_CHANNEL)
def test_a_channel_named_in_one_part_applies_to_that_part_only(demo: Path,
                                                                question: str) -> None:
    answer = ask(demo, question)
    got = {(f["metric_code"], f["channel"]): f["value_exact"] for f in answer["facts"]
           if f["status"] == "found"}
    assert got == {("GROSS_MARGIN", "TOTAL"): "40.1", ("NET_INCOME", "TOTAL"): "38.5",
                   ("ORDERS", "ONLINE"): "2840"}, answer["text"]
    again = ask(demo, question)  # the cached plan keeps the parts apart as well
    assert again["facts"] == answer["facts"]


WHICH_GREW_MORE = [
    "Whose net income grew more in 2025, Italy or China?",
    "Nel 2025 è cresciuto di più l'utile netto dell'Italia o quello della Cina?",
    "2025年意大利还是中国的净利润增长最多？",
]


@pytest.mark.parametrize("question", WHICH_GREW_MORE)
def test_which_of_two_named_units_grew_more_compares_those_two(demo: Path,
                                                              question: str) -> None:
    answer = ask(demo, question, "--reference-date", "2026-03-15")
    head = answer["facts"][0]
    assert head["formula"]["op"] == "growth_comparison", answer["text"]
    assert head["entity"] == "ORBIS_IT+ORBIS_CN" and head["formula"]["answer"] == "yes"
    growths = {f["entity"]: f["value_shown"] for f in head["inputs"]}
    assert growths == {"ORBIS_IT": "22.8", "ORBIS_CN": "-43.6"}  # 30.2/24.6, 21.7/38.5
    assert not answer["tables"]  # not a ranking of every unit
