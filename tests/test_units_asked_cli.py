"""Units a question asks for (issue 40 point 4), end to end through `ricorda ask --json` on two
test companies that are not the demo (bench/companies: Alpina in EUR, Kestrel in AUD): every
language's scale words ("in €m", "in A$m", "是多少亿") move the decimal point of the answer, and
a currency asked that is not the figure's is said, never converted. Expected values come from
the companies' own fact tables, moved by the asked power of ten in exact decimals."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from tests.companies_cli import company_files, found, load_company, notice_kinds, rows
from tests.period_companies import ask_json

ALPINA_DAY = "2026-02-10"  # FY2025 (Apr 2024 - Mar 2025) is Alpina's last complete year
KESTREL_DAY = "2026-08-20"  # FY2026 (Jul 2025 - Jun 2026) is Kestrel's


@pytest.fixture(scope="module")
def alpina(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return load_company(tmp_path_factory, "alpina")[0]


@pytest.fixture(scope="module")
def kestrel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return load_company(tmp_path_factory, "kestrel")[0]


def stored(company: str, metric: str, entity: str, period: str) -> tuple[Decimal, str]:
    return rows(company_files(company)[1])[(metric, entity, period, "TOTAL")]


UNIT_SCALE = {"EUR_K": 3, "EUR_M": 6, "AUD_K": 3, "AUD_M": 6}


def in_power(value: Decimal, unit: str, power: int) -> str:
    """The stored value moved to 10^power, as the answer writes its digits (no rounding)."""
    return format(value.scaleb(UNIT_SCALE[unit] - power).normalize(), "f")


@pytest.mark.parametrize(
    ("company", "question", "metric", "entity", "period", "power", "language", "shown"),
    [
        # English, with the unit's name "Italia" in it: still English, still in millions
        ("alpina", "Alpina Italia marketing expenses FY2025 in millions", "MARKETING",
         "ALPINA_IT", "2025", 6, "en", "€{}M"),
        ("alpina", "Alpina Italia marketing expenses FY2025 in €m", "MARKETING", "ALPINA_IT",
         "2025", 6, "en", "€{}M"),
        ("alpina", "集团2025财年营收是多少亿", "REVENUE", "ALPINA_GROUP", "2025", 8, "zh",
         "{}亿"),
        ("kestrel", "furniture and fixtures at cost FY2026 in A$m", "FURNITURE",
         "KESTREL_GROUP", "2026", 6, "en", "A${}M"),
        ("kestrel", "澳大利亚2026财年销售额是多少亿澳元", "SALES", "KESTREL_AU", "2026", 8, "zh",
         "{}亿"),
        ("kestrel", "vendite dell'Australia nel 2026, in AUD Mln", "SALES", "KESTREL_AU",
         "2026", 6, "it", "{} Mln A$"),
    ],
)
def test_the_scale_asked_is_the_scale_shown(
    request: pytest.FixtureRequest, company: str, question: str, metric: str, entity: str,
    period: str, power: int, language: str, shown: str,
) -> None:
    day = ALPINA_DAY if company == "alpina" else KESTREL_DAY
    answer = ask_json(request.getfixturevalue(company), question, day)
    value, unit = stored(company, metric, entity, period)
    fact = found(answer)[0]
    assert (fact["metric_code"], fact["entity"], fact["period"]) == (metric, entity, period)
    assert Decimal(fact["value_exact"]) == value and fact["unit"] == unit  # stored, unchanged
    assert fact["shown_scale"] == f"1e{power}"
    digits = in_power(value, unit, power)
    if language == "it":
        digits = digits.replace(".", ",")
    assert shown.format(digits) in answer["text"], answer["text"]
    assert answer["language"] == language
    assert "scale" in notice_kinds(answer)


@pytest.mark.parametrize(
    ("company", "question", "metric", "entity", "period", "language", "held"),
    [
        ("alpina", "group revenue FY2025 in US dollars", "REVENUE", "ALPINA_GROUP", "2025",
         "en", "EUR"),
        ("alpina", "spese di marketing della Germania nel 2025 in dollari", "MARKETING",
         "ALPINA_DE", "2025", "it", "EUR"),
        ("alpina", "集团2025财年营收，以百万美元计", "REVENUE", "ALPINA_GROUP", "2025", "zh",
         "EUR"),
        ("kestrel", "vendite dell'Australia nel 2026 in dollari americani", "SALES",
         "KESTREL_AU", "2026", "it", "AUD"),
        ("kestrel", "New Zealand sales FY2026 in USD millions", "SALES", "KESTREL_NZ", "2026",
         "en", "AUD"),
    ],
)
def test_another_currency_asked_is_said_never_converted(
    request: pytest.FixtureRequest, company: str, question: str, metric: str, entity: str,
    period: str, language: str, held: str,
) -> None:
    day = ALPINA_DAY if company == "alpina" else KESTREL_DAY
    answer = ask_json(request.getfixturevalue(company), question, day)
    value, unit = stored(company, metric, entity, period)
    facts = found(answer)
    assert [(f["metric_code"], f["entity"]) for f in facts] == [(metric, entity)]
    assert Decimal(facts[0]["value_exact"]) == value and facts[0]["unit"] == unit
    assert answer["language"] == language
    said = [n["text"] for n in answer["notices"] if n["kind"] == "currency"]
    assert len(said) == 1 and held in said[0], answer["notices"]


def test_a_currency_the_figure_is_in_needs_no_word(alpina: Path) -> None:
    answer = ask_json(alpina, "group revenue FY2025 in euros", ALPINA_DAY)
    assert "currency" not in notice_kinds(answer)
    assert found(answer)[0]["entity"] == "ALPINA_GROUP"
