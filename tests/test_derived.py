"""Derived metrics (glossary `[derived.CODE]`): validated with file, line and key; matched
before their inputs' names; computed exactly in code from two cited inputs; hidden from an
uncleared chat exactly like stored metrics; in `ask --json` beside the stored facts."""

from __future__ import annotations

import csv
import datetime as dt
import re
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from core.contracts.errors import ConfigError
from core.contracts.types import Fact, FactStatus, Period, PeriodType, Request, Route, Source
from core.figures.derived import DerivedFact, query_derived
from core.figures.structured import StructuredChannel
from core.knowledge.formulas import Formula, rounded
from core.knowledge.glossary import Glossary, load_glossary, parse_glossary
from core.knowledge.names import NameIndex
from core.pipeline.pipeline import Pipeline
from core.planning.answering import Answerer
from core.question.intent import RuleIntentParser
from tests.acme import MemoryFacts, read_acme_facts

DEMO = Path(__file__).resolve().parents[1] / "bot" / "demo"
REF = dt.date(2026, 6, 15)  # last complete FY = 2025
UNCLEARED, CLEARED = "telegram:1", "telegram:9001"


def demo_facts() -> list[Fact]:
    with (DEMO / "facts.csv").open(encoding="utf-8") as f:
        return [
            Fact(
                row["metric"],
                row["entity"],
                Period(PeriodType(row["period_type"]), row["period"]),
                row["channel"] or "TOTAL",
                Decimal(row["value"]),
                row["unit"],
                Source(row["source_doc"], row["source_locator"]),
            )
            for row in csv.DictReader(f)
        ]


@pytest.fixture(scope="module")
def demo_glossary() -> Glossary:
    return load_glossary(DEMO / "glossary.toml")


@pytest.fixture(scope="module")
def demo(demo_glossary: Glossary) -> Answerer:
    return Answerer(glossary=demo_glossary, facts=MemoryFacts(demo_facts()), today=lambda: REF)


def ask(answerer: Answerer, text: str, chat: str = UNCLEARED, **fixed: str) -> Any:
    return Pipeline(answerer).answer(
        Request(text, chat=chat, reference_date=REF, fixed_slots=fixed))


# ---------------------------------------------------------------- names: derived wins

# (question, metrics, entities, period codes): the demo glossary has "margin" (gross margin),
# "EBITDA", "revenue" and "employees" as names of stored metrics
PARSE = [
    # English
    ("What is the EBITDA margin of Orbis Italia in 2024?", ["EBITDA_MARGIN"], ["ORBIS_IT"],
     ["FY2024"]),
    ("What was Orbis Italia EBITDA in 2024?", ["EBITDA"], ["ORBIS_IT"], ["FY2024"]),
    ("What is the gross margin of Orbis Italia in 2024?", ["GROSS_MARGIN"], ["ORBIS_IT"],
     ["FY2024"]),
    ("Orbis Italia margin FY2024", ["GROSS_MARGIN"], ["ORBIS_IT"], ["FY2024"]),
    ("EBITDA margin % of Orbis China FY2025", ["EBITDA_MARGIN"], ["ORBIS_CN"], ["FY2025"]),
    ("ebitda MARGIN china last year", ["EBITDA_MARGIN"], ["ORBIS_CN"], ["FY2025"]),
    ("EBITDA and margin for Italy in 2024", ["EBITDA", "GROSS_MARGIN"], ["ORBIS_IT"], ["FY2024"]),
    ("EBITDA margin and EBITDA of Italy FY2024", ["EBITDA_MARGIN", "EBITDA"], ["ORBIS_IT"],
     ["FY2024"]),
    ("Revenue per employee of Orbis China in 2025", ["REVENUE_PER_HEAD"], ["ORBIS_CN"],
     ["FY2025"]),
    ("revenue per head in Hong Kong last year", ["REVENUE_PER_HEAD"], ["ORBIS_HK"], ["FY2025"]),
    ("Orbis China revenue and employees in 2025", ["REVENUE", "HEADCOUNT"], ["ORBIS_CN"],
     ["FY2025"]),
    ("What is the EBITDA margin?", ["EBITDA_MARGIN"], [], []),
    # Italian
    ("Qual è il margine EBITDA di Orbis Italia nel 2024?", ["EBITDA_MARGIN"], ["ORBIS_IT"],
     ["FY2024"]),
    ("Qual è il margine operativo lordo di Orbis Italia nel 2024?", ["EBITDA"], ["ORBIS_IT"],
     ["FY2024"]),
    ("Qual è il margine lordo di Orbis Italia nel 2024?", ["GROSS_MARGIN"], ["ORBIS_IT"],
     ["FY2024"]),
    ("margine della Cina nel 2025", ["GROSS_MARGIN"], ["ORBIS_CN"], ["FY2025"]),
    ("Ricavi per dipendente della Cina nel 2025", ["REVENUE_PER_HEAD"], ["ORBIS_CN"],
     ["FY2025"]),
    ("fatturato per dipendente Orbis Cina 2025", ["REVENUE_PER_HEAD"], ["ORBIS_CN"], ["FY2025"]),
    ("ricavi e dipendenti della Cina nel 2025", ["REVENUE", "HEADCOUNT"], ["ORBIS_CN"],
     ["FY2025"]),
    # Chinese
    ("Orbis意大利2024年EBITDA利润率是多少？", ["EBITDA_MARGIN"], ["ORBIS_IT"], ["FY2024"]),
    ("意大利2024年息税折旧摊销前利润是多少？", ["EBITDA"], ["ORBIS_IT"], ["FY2024"]),
    ("意大利2024年毛利率是多少？", ["GROSS_MARGIN"], ["ORBIS_IT"], ["FY2024"]),
    ("中国区2025年人均营收是多少？", ["REVENUE_PER_HEAD"], ["ORBIS_CN"], ["FY2025"]),
    ("中国区2025年营收和员工人数", ["REVENUE", "HEADCOUNT"], ["ORBIS_CN"], ["FY2025"]),
]


def test_enough_parse_cases() -> None:
    assert len(PARSE) >= 12
    assert {"en", "it", "zh"} <= {_lang(q) for q, *_ in PARSE}


def _lang(text: str) -> str:
    if re.search(r"[\u4e00-\u9fff]", text):
        return "zh"
    return "it" if re.search(r"\b(il|di|della|nel|per dipendente)\b", text) else "en"


@pytest.mark.parametrize(("question", "metrics", "entities", "periods"), PARSE)
def test_a_derived_name_beats_its_inputs_names(
    demo_glossary: Glossary, question: str, metrics: list[str], entities: list[str],
    periods: list[str],
) -> None:
    intent = RuleIntentParser(NameIndex(demo_glossary)).parse(question, REF)
    assert intent.route is Route.STRUCTURED
    assert intent.metrics == metrics
    assert intent.entities == entities
    assert [p.code for p in intent.periods] == periods


def test_the_plan_computes_a_derived_metric_and_looks_up_a_stored_one(demo: Answerer) -> None:
    ans = ask(demo, "EBITDA margin and EBITDA of Italy FY2024")
    assert [s["tool"] for s in ans.plan["steps"]] == ["derived_metric", "query_metric"]
    margin, ebitda = (
        demo.plan(demo.prepare(Request(q, reference_date=REF)))  # type: ignore[arg-type]
        for q in ("What is the EBITDA margin of Orbis Italia in 2024?",
                  "What was Orbis Italia EBITDA in 2024?")
    )
    # the fast path serves a cached plan only to a request whose own plan has its framework
    assert margin is not None and ebitda is not None
    assert margin.framework_hash() != ebitda.framework_hash()
    # and replayed on the other request, neither plan fits: a miss, never the wrong figure
    for plan, question in ((margin, "What was Orbis Italia EBITDA in 2024?"),
                           (ebitda, "What is the EBITDA margin of Orbis Italia in 2024?")):
        prepared = demo.prepare(Request(question, reference_date=REF))
        assert demo.replay(plan, prepared, served_by="L0a") is None  # type: ignore[arg-type]


# ---------------------------------------------------------------- answers, three languages


def test_the_issue_question_answers_the_margin_with_both_inputs_cited(demo: Answerer) -> None:
    ans = ask(demo, "What is the EBITDA margin of Orbis Italia in 2024?")
    assert ans.route is Route.STRUCTURED and ans.succeeded
    assert [(s.kind, s.text) for s in ans.segments] == [(
        "derived",
        "Orbis Italia EBITDA margin, FY2024: 15.6% (EBITDA €49.8M ÷ revenue €318.9M; sources: "
        "Orbis FY2024 Annual Report, p. 19, table 2, row 2; Orbis FY2024 Annual Report, p. 11, "
        "table 2, row 2)",
    )]
    assert "45.3" not in ans.text  # the gross margin is not what was asked
    assert ans.sources == [
        Source("Orbis_FY2024_Annual_Report.pdf", "page=19,table=2,row=2"),
        Source("Orbis_FY2024_Annual_Report.pdf", "page=11,table=2,row=2"),
    ]


@pytest.mark.parametrize(
    ("question", "line"),
    [
        (
            "Qual è il margine EBITDA di Orbis Italia nel 2024?",
            "Margine EBITDA Orbis Italia, FY2024: 15,6% (EBITDA 49,8 M€ ÷ ricavi 318,9 M€; "
            "fonti: Orbis FY2024 Annual Report, pag. 19, tabella 2, riga 2; "
            "Orbis FY2024 Annual Report, pag. 11, tabella 2, riga 2)",
        ),
        (
            "Orbis意大利2024年EBITDA利润率是多少？",
            "Orbis意大利2024财年EBITDA利润率：15.6%（息税折旧摊销前利润0.498亿欧元 ÷ "
            "营收3.189亿欧元；来源：",
        ),
        (
            "Revenue per employee of Orbis China in 2025",
            "Orbis China revenue per employee, FY2025: €274.0K per FTE (revenue €478.2M ÷ "
            "headcount 1,745 FTE; sources: ",
        ),
        (
            "Ricavi per dipendente della Cina nel 2025",
            "Ricavi per dipendente Orbis Cina, FY2025: 274,0 mila € per dipendente (ricavi "
            "478,2 M€ ÷ dipendenti 1.745 FTE; fonti: ",
        ),
        (
            "中国区2025年人均营收是多少？",
            "中国区2025财年人均营收：27.4万欧元/人（营收4.782亿欧元 ÷ ",
        ),
    ],
)
def test_derived_answers_read_in_the_readers_language(
    demo: Answerer, question: str, line: str
) -> None:
    ans = ask(demo, question)
    assert ans.segments[0].kind == "derived"
    assert ans.segments[0].text.startswith(line), ans.segments[0].text  # type: ignore[union-attr]


def test_a_missing_input_is_named_with_no_number(demo: Answerer) -> None:
    ans = ask(demo, "What was the EBITDA margin of Orbis China in FY2023?")
    text = ans.segments[0].text  # type: ignore[union-attr]
    assert text == (
        "I can't compute Orbis China EBITDA margin, FY2023: the fact table has no EBITDA "
        "figure for it."
    )
    assert ans.segments[0].kind == "not_found"
    assert "520" not in ans.text and "%" not in ans.text  # the revenue found is not shown
    assert ans.facts[0].status is FactStatus.NOT_FOUND
    it = ask(demo, "Qual è il margine EBITDA della Cina nel 2023?")
    assert "manca il dato EBITDA" in it.text and "520" not in it.text


# ---------------------------------------------------------------- the computation


def acme_structured(extra: tuple[Fact, ...] = ()) -> StructuredChannel:
    from tests.acme import ACME

    glossary = load_glossary(ACME / "glossary.toml")
    return StructuredChannel(
        names=NameIndex(glossary), facts=MemoryFacts([*read_acme_facts(), *extra])
    )


def fact(metric: str, entity: str, year: str, value: str, unit: str) -> Fact:
    return Fact(metric, entity, Period(PeriodType.FY, year), "TOTAL", Decimal(value), unit,
                Source("X.pdf", f"page={len(value)}"))


def test_ratio_is_exact_and_rounded_only_for_display() -> None:
    margin = Formula("ratio", "EBITDA", "REVENUE", Decimal(100))
    value = margin.apply(Decimal("49.8"), Decimal("318.9"))
    assert value is not None and len(value.as_tuple().digits) == 34  # 34 significant digits
    assert abs(Fraction(value) - Fraction(4980) / Fraction("318.9")) < Fraction(1, 10**31)
    assert margin.apply(Decimal("1"), Decimal("4")) == Decimal("25")  # terminates: every digit
    assert format(margin.apply(Decimal("5"), Decimal("1")), "f") == "500"  # no 5E+2
    assert margin.apply(Decimal("1"), Decimal("0")) is None
    assert margin.apply(Decimal("0"), Decimal("7")) == 0
    assert rounded(value, 1) == Decimal("15.6")  # type: ignore[arg-type]
    assert rounded(Decimal("15.65"), 1) == Decimal("15.7")  # half up, not to even
    assert rounded(Decimal("-2.25"), 1) == Decimal("-2.3")
    assert rounded(Decimal("274"), 1) == Decimal("274.0")


def test_difference_keeps_every_digit() -> None:
    spread = Formula("difference", "REVENUE", "EBITDA")
    assert spread.apply(Decimal("12345678901234567890.123"), Decimal("0.0000001")) == Decimal(
        "12345678901234567890.1229999"
    )
    assert Formula("difference", "A", "B", Decimal("0.5")).apply(Decimal(3), Decimal(1)) == 1


def test_found_derived_fact_exact_in_json() -> None:
    """The JSON of a derived fact (a cleared chat: the group total is withheld from others)."""
    r = query_derived(acme_structured(), "EBITDA_MARGIN", "ACME_GROUP", "FY2025", cleared=True,
                      reference_date=REF)
    assert isinstance(r, DerivedFact) and r.status is FactStatus.FOUND
    d = r.to_dict()
    assert d["value_exact"] == "14.81616640817443663899279262840982"  # 812 / 5480.5 x 100
    assert d["value"] == pytest.approx(14.816166408) and d["value_shown"] == "14.8"
    assert d["metric_code"] == "EBITDA_MARGIN" and d["unit"] == "PCT" and d["source"] is None
    assert d["formula"] == {"op": "ratio", "numerator": "EBITDA", "denominator": "REVENUE",
                            "scale": "100"}
    assert [(i["metric_code"], i["value_exact"]) for i in d["inputs"]] == [
        ("EBITDA", "812"), ("REVENUE", "5480.5")]


def test_a_zero_numerator_is_a_zero_margin() -> None:
    r = query_derived(acme_structured(), "EBITDA_MARGIN", "ACME_CN", "FY2025", cleared=False,
                      reference_date=REF)
    assert r.status is FactStatus.FOUND and r.shown == Decimal("0.0")  # type: ignore[attr-defined]


def test_a_zero_denominator_says_why_with_no_number(demo_glossary: Glossary) -> None:
    zero = fact("HEADCOUNT", "ORBIS_HK", "2025", "0", "FTE")
    facts = MemoryFacts([f for f in demo_facts() if (f.metric, f.entity, f.period.value) !=
                         ("HEADCOUNT", "ORBIS_HK", "2025")] + [zero])
    answerer = Answerer(glossary=demo_glossary, facts=facts, today=lambda: REF)
    ans = ask(answerer, "revenue per head in Hong Kong in 2025")
    assert ans.text == (
        "I can't compute Orbis Hong Kong revenue per employee, FY2025: headcount is zero, and a "
        "ratio over zero has no value."
    )
    assert "158.7" not in ans.text
    assert ans.to_dict()["facts"][0]["reason"] == "zero_denominator"


def test_an_input_in_another_unit_gives_no_number() -> None:
    odd = fact("EBITDA", "ACME_HK", "2024", "41", "EUR_M")  # the glossary says USD_M
    r = query_derived(acme_structured((odd,)), "EBITDA_MARGIN", "ACME_HK", "FY2024",
                      cleared=False, reference_date=REF)
    assert r.status is FactStatus.NOT_FOUND and r.to_dict()["reason"] == "unit_mismatch"
    assert "value" not in r.to_dict()


def test_missing_inputs_in_json() -> None:
    r = query_derived(acme_structured(), "EBITDA_MARGIN", "ACME_IT", "FY2025", cleared=False,
                      reference_date=REF)
    d = r.to_dict()  # ACME Italia has revenue for FY2025, no EBITDA
    assert d["status"] == "not_found" and d["missing"] == ["EBITDA"]
    assert d["normalized"]["metric_code"] == "EBITDA_MARGIN"
    assert [i["status"] for i in d["inputs"]] == ["not_found", "found"]


# ---------------------------------------------------------------- clearance


def test_restricted_entity_is_hidden_like_for_a_stored_metric() -> None:
    channel = acme_structured()
    derived = query_derived(channel, "EBITDA_MARGIN", "ACME_LABS", "FY2025", cleared=False,
                            reference_date=REF)
    stored = channel.query_metric("REVENUE", "ACME_LABS", "FY2025", cleared=False,
                                  reference_date=REF)
    assert derived == stored and derived.status is FactStatus.UNRECOGNIZED
    assert not isinstance(derived, DerivedFact)


def test_uncleared_chat_is_refused_exactly_like_a_stored_metric(demo: Answerer) -> None:
    derived = ask(demo, "What is the EBITDA margin of Orbis Labs in 2024?")
    stored = ask(demo, "What is the EBITDA of Orbis Labs in 2024?")
    assert derived.route is stored.route is Route.REFUSED
    assert derived.text == stored.text and derived.facts == stored.facts == []
    tapped = ask(demo, "What is the EBITDA margin in 2024?", entity="ORBIS_LABS")
    assert tapped.route is Route.REFUSED and "-23" not in tapped.text
    cleared = ask(demo, "What is the EBITDA margin of Orbis Labs in 2024?", chat=CLEARED)
    assert cleared.text.startswith("Orbis Labs EBITDA margin, FY2024: -23.4% (EBITDA -€2.9M")


# ---------------------------------------------------------------- glossary validation

BASE = """[scope]
default_entity = "G"
[metrics.REVENUE]
names = ["revenue"]
unit = "EUR_M"
[metrics.EBITDA]
names = ["EBITDA"]
unit = "EUR_M"
[metrics.HEADCOUNT]
names = ["headcount"]
unit = "FTE"
[entities.G]
names = ["Group"]
"""


def test_a_valid_derived_metric_loads() -> None:
    g = parse_glossary(BASE + """[derived.MARGIN]
names = ["EBITDA margin"]
unit = "PCT"
numerator = "EBITDA"
denominator = "REVENUE"
scale = 100
decimals = 1
[derived.NET_SPREAD]
names = ["spread"]
unit = "EUR_M"
minuend = "REVENUE"
subtrahend = "EBITDA"
scale = "0.5"
decimals = 0
""")
    assert g.derived["MARGIN"].formula == Formula("ratio", "EBITDA", "REVENUE", Decimal(100))
    assert g.derived["NET_SPREAD"].formula.scale == Decimal("0.5")
    assert g.label("metric", "MARGIN") == "EBITDA margin"


@pytest.mark.parametrize(
    ("body", "where", "says"),
    [
        ('names = ["m"]\nunit = "PCT"\nnumerator = "EBIT"\ndenominator = "REVENUE"\ndecimals = 1',
         "line 17, key 'derived.M.numerator'", "must name a stored metric"),
        ('names = ["m"]\nunit = "PCT"\nnumerator = "EBITDA"\ndecimals = 1',
         "line 14, key 'derived.M.denominator'", "must name a stored metric"),
        ('names = ["m"]\nunit = "PCT"\ndecimals = 1', "line 14, key 'derived.M'",
         "needs a formula"),
        ('names = ["m"]\nunit = "PCT"\nnumerator = "EBITDA"\ndenominator = "REVENUE"\n'
         'minuend = "REVENUE"\nsubtrahend = "EBITDA"\ndecimals = 1',
         "line 14, key 'derived.M'", "not both"),
        ('names = ["m"]\nunit = "PCT"\nnumerator = "EBITDA"\ndenominator = "REVENUE"',
         "key 'derived.M.decimals'", "whole number from 0 to 6"),
        ('names = ["m"]\nunit = "PCT"\nnumerator = "EBITDA"\ndenominator = "REVENUE"\n'
         "scale = 0\ndecimals = 1", "line 19, key 'derived.M.scale'", "non-zero number"),
        ('names = ["m"]\nunit = "PCT"\nnumerator = "EBITDA"\ndenominator = "REVENUE"\n'
         'scale = "lots"\ndecimals = 1', "key 'derived.M.scale'", "non-zero number"),
        ('names = ["m"]\nunit = "X"\nminuend = "REVENUE"\nsubtrahend = "HEADCOUNT"\ndecimals = 1',
         "line 18, key 'derived.M.subtrahend'", "a difference needs one unit"),
        ('names = ["m"]\nnumerator = "EBITDA"\ndenominator = "REVENUE"\ndecimals = 1',
         "key 'derived.M.unit'", "unit"),
        ('unit = "PCT"\nnumerator = "EBITDA"\ndenominator = "REVENUE"\ndecimals = 1',
         "key 'derived.M.names'", "needs names"),
        ('names = ["EBITDA"]\nunit = "PCT"\nnumerator = "EBITDA"\ndenominator = "REVENUE"\n'
         "decimals = 1", "line 15, key 'derived.M.names'", "also a name of metrics.EBITDA"),
    ],
)
def test_a_derived_mistake_names_line_and_key(body: str, where: str, says: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_glossary(BASE + "[derived.M]\n" + body + "\n", source="g.toml")
    assert where in str(err.value) and says in str(err.value), str(err.value)


def test_a_derived_metric_is_not_an_input() -> None:
    text = BASE + """[derived.A]
names = ["a"]
unit = "PCT"
numerator = "EBITDA"
denominator = "REVENUE"
decimals = 1
[derived.B]
names = ["b"]
unit = "PCT"
numerator = "A"
denominator = "REVENUE"
decimals = 1
"""
    with pytest.raises(ConfigError, match=r"derived.B.numerator.*stored metric"):
        parse_glossary(text)
