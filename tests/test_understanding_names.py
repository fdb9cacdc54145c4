"""Names as people write them (issue 23, items 1 and 2): typos and shorthand read within a
bounded edit distance and said so, word forms of entities and metric verbs from the glossary,
metric names in any word order, and a gate at least as loose as the reading. End to end
through `ricorda ask --json` on the demo knowledge base."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.knowledge.comparable import squash
from core.knowledge.glossary import load_glossary
from core.knowledge.names import NameIndex
from core.question.security import SecurityGate
from tests.test_cli import ricorda

DEMO = Path(__file__).resolve().parents[1] / "bot" / "demo"
REF = "2026-06-15"
CLEARED = "console:admin"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("names") / "data"
    ricorda(data, "demo", "--no-chat")
    return data


def ask(data: Path, question: str, *extra: str) -> dict:  # type: ignore[type-arg]
    out = ricorda(data, "ask", question, "--json", "--reference-date", REF, *extra).stdout
    return json.loads(out)


def figure(answer: dict) -> tuple[str, str, str, str]:  # type: ignore[type-arg]
    fact = answer["facts"][0]
    assert fact["status"] == "found", answer["text"]
    return fact["metric_code"], fact["entity"], fact["period"], fact["value_exact"]


def read_as(answer: dict) -> list[str]:  # type: ignore[type-arg]
    return [n["text"] for n in answer["notices"] if isinstance(n, dict) and n["kind"] == "read_as"]


@pytest.mark.parametrize(
    ("question", "expected", "notices"),
    [
        ("reveneu of Italy in 2024", ("REVENUE", "ORBIS_IT", "2024", "318.9"),
         ["Read 'reveneu' as Revenue"]),
        ("net incom of Chian in 2024", ("NET_INCOME", "ORBIS_CN", "2024", "38.5"),
         ["Read 'net incom' as Net income", "Read 'Chian' as China"]),
        ("fatturto di Orbis Itlia nel 2024", ("REVENUE", "ORBIS_IT", "2024", "318.9"),
         ["Ho letto 'fatturto' come Fatturato", "Ho letto 'Orbis Itlia' come Orbis Italia"]),
        ("香港2024年的reveneu是多少", ("REVENUE", "ORBIS_HK", "2024", "152.1"),
         ["已将“reveneu”理解为营收"]),
    ],
)
def test_a_typo_is_read_as_the_name_and_said_so(
    demo: Path, question: str, expected: tuple[str, ...], notices: list[str]
) -> None:
    answer = ask(demo, question)
    assert figure(answer) == expected
    assert read_as(answer) == notices
    # never silent: said first in the text the reader sees, then the figure
    assert answer["text"].startswith("\n".join(notices)), answer["text"]


def test_a_repeated_corrected_question_keeps_its_reading_and_notice(demo: Path) -> None:
    first = ask(demo, "reveneu of Italy in 2024")
    again = ask(demo, "reveneu of Italy in 2024")  # L0a: the plan of the question as read
    assert figure(again) == figure(first) and read_as(again) == read_as(first)
    other = ask(demo, "reveneu of Chian in 2024")  # same plan, other slots re-read
    assert figure(other) == ("REVENUE", "ORBIS_CN", "2024", "560.4")


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Italian revenue 2024", ("REVENUE", "ORBIS_IT", "2024", "318.9")),
        # the group's total, asked from a chat cleared for Orbis Labs (an uncleared chat sees it
        # withheld, never renamed: issue 33, checked in the test below)
        ("Group revenue 2024", ("REVENUE", "ORBIS_GROUP", "2024", "1043.8")),
        ("what did HK sell in FY2023", ("REVENUE", "ORBIS_HK", "2023", "140.3")),
        ("HC in Italy 2024", ("HEADCOUNT", "ORBIS_IT", "2024", "1410")),
        ("how many people do we employ in Italy in 2024", ("HEADCOUNT", "ORBIS_IT", "2024",
                                                          "1410")),
        ("fatturato italiano 2024", ("REVENUE", "ORBIS_IT", "2024", "318.9")),
        ("il fatturato del Gruppo nel 2024", ("REVENUE", "ORBIS_GROUP", "2024", "1043.8")),
        ("quanto abbiamo venduto in Italia nel 2024", ("REVENUE", "ORBIS_IT", "2024", "318.9")),
        ("香港2023年卖了多少", ("REVENUE", "ORBIS_HK", "2023", "140.3")),
        ("rev of the Chinese unit in 2024", ("REVENUE", "ORBIS_CN", "2024", "560.4")),
    ],
)
def test_word_forms_verbs_and_shorthand_name_the_figure(
    demo: Path, question: str, expected: tuple[str, ...]
) -> None:
    group = expected[1] == "ORBIS_GROUP"
    answer = ask(demo, question, *(("--chat", CLEARED) if group else ()))
    assert figure(answer) == expected
    assert answer["route"] == "structured" and not answer["options"], answer["text"]
    assert read_as(answer) == []  # glossary forms are exact: nothing to correct
    if group:  # an uncleared chat: the same figure named, its total withheld
        uncleared = ask(demo, question)
        fact = uncleared["facts"][0]
        assert fact["status"] == "not_found" and fact.get("reason") == "withheld", uncleared
        assert fact["normalized"]["entity"] == "ORBIS_GROUP"
        assert not any(n in uncleared["text"] for n in ("1043.8", "1,043.8", "1.043,8"))


def test_sentence_words_are_never_unknown_companies(demo: Path) -> None:
    for question in ("Group revenue 2024", "Revenue of the Group in December 2024",
                     "Total revenue of the Gruppo nel 2024"):
        answer = ask(demo, question)
        assert not [f for f in answer["facts"] if f["status"] == "unrecognized_param"], question


@pytest.mark.parametrize("question", ["Vortx revenue 2024", "ricavi di Nimbus Retial 2024",
                                      "V0rtex Corp的营收是多少"])
def test_a_misspelt_competitor_is_refused(demo: Path, question: str) -> None:
    assert ask(demo, question, "--chat", CLEARED)["route"] == "refused"


def test_a_misspelt_restricted_unit_is_refused_unless_cleared(demo: Path) -> None:
    for question in ("Orbis Lbas revenue 2024", "ricavi di Orbis Labz nel 2024"):
        assert ask(demo, question)["route"] == "refused", question
    cleared = ask(demo, "Orbis Lbas revenue 2024", "--chat", CLEARED)
    assert figure(cleared) == ("REVENUE", "ORBIS_LABS", "2024", "12.4")
    assert read_as(cleared) == ["Read 'Orbis Lbas' as Orbis Labs"]


# -- the gate, as a property: every single edit of a protected name is still refused ---------

_GLOSSARY = load_glossary(DEMO / "glossary.toml")
_GATE = SecurityGate(NameIndex(_GLOSSARY))
_PROTECTED = sorted(
    {
        name
        for name in (
            *_GLOSSARY.competitors,
            *(n for t in _GLOSSARY.entities.values() if t.restricted for n in (*t.names, t.code)),
        )
        if len(squash(name)) >= 5 and squash(name).isascii()
    }
)
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .-_"


@st.composite
def single_edit(draw: st.DrawFn) -> str:
    name = draw(st.sampled_from(_PROTECTED))
    at = draw(st.integers(0, len(name)))
    letter = draw(st.sampled_from(_LETTERS))
    kind = draw(st.sampled_from(["insert", "delete", "replace", "swap"]))
    if kind == "insert":
        return name[:at] + letter + name[at:]
    at = min(at, len(name) - 1)
    if kind == "delete":
        return name[:at] + name[at + 1:]
    if kind == "replace":
        return name[:at] + letter + name[at + 1:]
    at = min(at, len(name) - 2)
    return name[:at] + name[at + 1] + name[at] + name[at + 2:]


@settings(max_examples=400, deadline=None)
@given(single_edit(), st.sampled_from(["{} revenue 2024", "What did {} earn?",
                                       "ricavi di {} nel 2024", "{}的营收是多少"]))
def test_every_single_edit_of_a_protected_name_is_refused(edited: str, sentence: str) -> None:
    assert _PROTECTED  # the demo has competitors and a restricted unit of 5+ letters
    verdict = _GATE.check(sentence.format(edited), cleared=False)
    assert not verdict.allowed, edited


def test_everyday_questions_pass_the_loose_gate() -> None:
    for question in ("Orbis sales 2024", "Orbis Italia revenue", "What is the total for HK?",
                     "Orbis labour costs", "revenue in detail for China", "tell me about Italy"):
        assert _GATE.check(question, cleared=False).allowed, question


# -- metric names in any word order, number and punctuation: a small fixture glossary -------

_FIXTURE = """
[scope]
default_entity = "CO"

[metrics.INVENTORIES_NET]
names = ["Inventories, net"]
unit = "EUR_M"

[metrics.REVENUE_NET]
names = ["Revenues, net"]
unit = "EUR_M"

[entities.CO]
names = ["Company"]
"""
_FACTS = """metric,entity,period_type,period,channel,value,unit,source_doc,source_locator
INVENTORIES_NET,CO,FY,2024,TOTAL,41.7,EUR_M,AR2024.pdf,page=8
REVENUE_NET,CO,FY,2024,TOTAL,512.3,EUR_M,AR2024.pdf,page=3
"""


def test_metric_names_match_in_any_word_order_and_number(tmp_path: Path) -> None:
    (tmp_path / "glossary.toml").write_text(_FIXTURE, encoding="utf-8")
    (tmp_path / "facts.csv").write_text(_FACTS, encoding="utf-8")
    data = tmp_path / "data"
    ricorda(data, "ingest", str(tmp_path / "glossary.toml"), str(tmp_path / "facts.csv"))
    cases = {
        "net inventories in FY2024": ("INVENTORIES_NET", "41.7", "net inventories",
                                      "Inventories, net"),
        "What were net revenue in 2024?": ("REVENUE_NET", "512.3", "net revenue",
                                           "Revenues, net"),
        "inventory, net 2024": ("INVENTORIES_NET", "41.7", "inventory, net", "Inventories, net"),
    }
    for question, (code, value, raw, name) in cases.items():
        answer = ask(data, question)
        fact = answer["facts"][0]
        assert (fact["metric_code"], fact["value_exact"]) == (code, value), answer["text"]
        assert read_as(answer) == [f"Read '{raw}' as {name}"]
