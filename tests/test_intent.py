"""Table-driven tests of the rule intent parser (slots and route) in en/it/zh."""

from __future__ import annotations

import datetime as dt

import pytest

from core.contracts.types import Route
from core.knowledge.names import NameIndex
from core.question.intent import RuleIntentParser

REF = dt.date(2026, 6, 15)  # last complete FY = 2025; "last quarter" = 2026Q1

S, N, C, U = Route.STRUCTURED, Route.NARRATIVE, Route.COMPOSITE, Route.UNKNOWN

# (question, route, metrics, entities, period codes, channels)
CASES = [
    # English
    ("What was ACME China revenue in FY2024?", S, ["REVENUE"], ["ACME_CN"], ["FY2024"], []),
    ("what was china revenue in 2024", S, ["REVENUE"], ["ACME_CN"], ["FY2024"], []),
    ("What is the revenue of Hong Kong for FY 2025?", S, ["REVENUE"], ["ACME_HK"], ["FY2025"], []),
    ("How much revenue did ACME HK make last year?", S, ["REVENUE"], ["ACME_HK"], ["FY2025"], []),
    ("China online sales 2025H1", S, ["REVENUE"], ["ACME_CN"], ["2025H1"], ["ONLINE"]),
    ("Revenue China Q3 2025", S, ["REVENUE"], ["ACME_CN"], ["2025Q3"], []),
    ("revenue china 2025Q3", S, ["REVENUE"], ["ACME_CN"], ["2025Q3"], []),
    ("What was revenue?", S, ["REVENUE"], [], [], []),
    ("How much did we make?", S, [], [], [], []),
    (
        "How many employees does ACME Group have this year?",
        S,
        ["HEADCOUNT"],
        ["ACME_GROUP"],
        ["FY2026"],
        [],
    ),
    ("EBITDA of Italy the year before last", S, ["EBITDA"], ["ACME_IT"], ["FY2024"], []),
    ("What was China revenue last quarter?", S, ["REVENUE"], ["ACME_CN"], ["2026Q1"], []),
    ("retail revenue in Italy, H2 2025", S, ["REVENUE"], ["ACME_IT"], ["2025H2"], ["RETAIL"]),
    (
        "Compare China revenue FY2024 and FY2025",
        S,
        ["REVENUE"],
        ["ACME_CN"],
        ["FY2024", "FY2025"],
        [],
    ),
    (
        "Revenue and EBITDA for China and Hong Kong in 2025",
        S,
        ["REVENUE", "EBITDA"],
        ["ACME_CN", "ACME_HK"],
        ["FY2025"],
        [],
    ),
    ("Why did revenue in China fall?", C, ["REVENUE"], ["ACME_CN"], [], []),
    ("Why did China revenue fall in 2025?", C, ["REVENUE"], ["ACME_CN"], ["FY2025"], []),
    ("Why did things get worse in China?", N, [], ["ACME_CN"], [], []),
    ("What is the impact of the new e-commerce regulation?", N, [], [], [], ["ONLINE"]),
    ("Explain the trend in Hong Kong", N, [], ["ACME_HK"], [], []),
    ("What are the drivers of the online channel?", N, [], [], [], ["ONLINE"]),
    ("REVENUE ACME_CN FY2024", S, ["REVENUE"], ["ACME_CN"], ["FY2024"], []),
    ("revenue for Hong Kong in fiscal 2024", S, ["REVENUE"], ["ACME_HK"], ["FY2024"], []),
    ("hello there", U, [], [], [], []),
    ("tell me a joke", U, [], [], [], []),
    ("What is Project Heron?", N, [], [], [], []),
    ("Which store has a tea bar?", N, [], [], [], []),
    ("Chi è il nuovo distributore?", N, [], [], [], []),
    ("谁是新的经销商？", N, [], [], [], []),
    ("China 2024", S, [], ["ACME_CN"], ["FY2024"], []),
    # Italian
    ("Qual è stato il fatturato della Cina nel 2024?", S, ["REVENUE"], ["ACME_CN"], ["FY2024"], []),
    (
        "Quanto fatturato ha fatto ACME Italia l'anno scorso?",
        S,
        ["REVENUE"],
        ["ACME_IT"],
        ["FY2025"],
        [],
    ),
    ("ricavi Italia primo semestre 2025", S, ["REVENUE"], ["ACME_IT"], ["2025H1"], []),
    (
        "Quanti dipendenti ha il Gruppo ACME quest'anno?",
        S,
        ["HEADCOUNT"],
        ["ACME_GROUP"],
        ["FY2026"],
        [],
    ),
    (
        "fatturato online in Cina nel terzo trimestre 2025",
        S,
        ["REVENUE"],
        ["ACME_CN"],
        ["2025Q3"],
        ["ONLINE"],
    ),
    ("Perché il fatturato in Cina è calato?", C, ["REVENUE"], ["ACME_CN"], [], []),
    ("Perché è calato il fatturato nel 2025?", C, ["REVENUE"], [], ["FY2025"], []),
    ("Qual è il motivo del calo in Cina?", N, [], ["ACME_CN"], [], []),
    ("Spiegami l'andamento dei negozi", N, [], [], [], ["RETAIL"]),
    (
        "Qual è il margine operativo lordo di Hong Kong nel 2025?",
        S,
        ["EBITDA"],
        ["ACME_HK"],
        ["FY2025"],
        [],
    ),
    ("Quanto abbiamo guadagnato?", S, [], [], [], []),
    ("fatturato", S, ["REVENUE"], [], [], []),
    ("Come mai Hong Kong cresce?", N, [], ["ACME_HK"], [], []),
    ("ricavi della Cina FY2024 e FY2025", S, ["REVENUE"], ["ACME_CN"], ["FY2024", "FY2025"], []),
    ("buongiorno", U, [], [], [], []),
    (
        "fatturato negozi Italia 2025 secondo semestre",
        S,
        ["REVENUE"],
        ["ACME_IT"],
        ["2025H2"],
        ["RETAIL"],
    ),
    # Chinese
    ("2024年中国区营收是多少？", S, ["REVENUE"], ["ACME_CN"], ["FY2024"], []),
    ("ACME HK 去年 REVENUE 是多少", S, ["REVENUE"], ["ACME_HK"], ["FY2025"], []),
    ("中国区2025年上半年线上营收", S, ["REVENUE"], ["ACME_CN"], ["2025H1"], ["ONLINE"]),
    ("香港前年的收入是多少", S, ["REVENUE"], ["ACME_HK"], ["FY2024"], []),
    ("今年集团员工人数是多少", S, ["HEADCOUNT"], [], ["FY2026"], []),
    ("中国区营收为什么下降？", C, ["REVENUE"], ["ACME_CN"], [], []),
    ("为什么中国区2025年营收下降了？", C, ["REVENUE"], ["ACME_CN"], ["FY2025"], []),
    ("线上渠道的趋势如何？", N, [], [], [], ["ONLINE"]),
    ("新的监管规定有什么影响", N, [], [], [], []),
    ("意大利2025年第三季度门店营收", S, ["REVENUE"], ["ACME_IT"], ["2025Q3"], ["RETAIL"]),
    ("上个季度中国营收是多少", S, ["REVENUE"], ["ACME_CN"], ["2026Q1"], []),
    ("我们赚了多少钱？", S, [], [], [], []),
    ("你好", U, [], [], [], []),
    ("ACME集团息税折旧摊销前利润", S, ["EBITDA"], ["ACME_GROUP"], [], []),
    ("中国区2024年和2025年的营收", S, ["REVENUE"], ["ACME_CN"], ["FY2024", "FY2025"], []),
    # mixed language
    ("ACME China 2025年 revenue", S, ["REVENUE"], ["ACME_CN"], ["FY2025"], []),
    ("fatturato 中国区 FY2025", S, ["REVENUE"], ["ACME_CN"], ["FY2025"], []),
    ("Hong Kong 营收 2025H1 online", S, ["REVENUE"], ["ACME_HK"], ["2025H1"], ["ONLINE"]),
    ("why 中国区 营收 down", C, ["REVENUE"], ["ACME_CN"], [], []),
    ("ＦＹ２０２４ China revenue", S, ["REVENUE"], ["ACME_CN"], ["FY2024"], []),
]


@pytest.fixture(scope="module")
def parser(acme_glossary) -> RuleIntentParser:  # type: ignore[no-untyped-def]
    return RuleIntentParser(NameIndex(acme_glossary))


def test_case_count() -> None:
    assert len(CASES) >= 60


@pytest.mark.parametrize(("question", "route", "metrics", "entities", "periods", "channels"), CASES)
def test_parse(parser, question, route, metrics, entities, periods, channels) -> None:  # type: ignore[no-untyped-def]
    import unicodedata

    intent = parser.parse(unicodedata.normalize("NFKC", question), REF)
    assert intent.route is route
    assert intent.metrics == metrics
    assert intent.entities == entities
    assert [p.code for p in intent.periods] == periods
    assert intent.channels == channels


@pytest.mark.parametrize(
    ("question", "unknown"),
    [
        ("What was Foobar revenue in 2024?", ["Foobar"]),
        ("What is the revenue of Initech for FY2024?", ["Initech"]),
        ("Qual è il fatturato di Globex nel 2025?", ["Globex"]),
        ("What was ACME China revenue in FY2024?", []),
        ("Why did China revenue fall according to the CEO?", []),
    ],
)
def test_unknown_entities_are_noticed(parser, question, unknown) -> None:  # type: ignore[no-untyped-def]
    assert parser.parse(question, REF).unknown_entities == unknown


def test_invalid_period_is_reported_not_guessed(parser) -> None:  # type: ignore[no-untyped-def]
    intent = parser.parse("revenue China Q5 2024", REF)
    assert intent.periods == []
    assert intent.bad_periods == ["Q5 2024"]


def test_relative_period_flagged(parser) -> None:  # type: ignore[no-untyped-def]
    assert parser.parse("revenue China last year", REF).relative_period is True
    assert parser.parse("revenue China FY2024", REF).relative_period is False


def test_name_inside_a_longer_word_does_not_match(parser) -> None:  # type: ignore[no-untyped-def]
    intent = parser.parse("revenue Chinatown 2024", REF)
    assert intent.entities == []
