"""Relative periods at every grain, on companies whose year ends in March (monthly figures) and
September (quarterly and half-year figures), end to end through `ricorda ask --json`: the
period named is the period answered, and a named period with no figure is said to have none,
never replaced by the last complete fiscal year."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from tests.period_companies import (
    alpina_value,
    ask_json,
    boreal_group,
    headline,
    make_alpina,
    make_boreal,
)

ALPINA_DAY = "2026-02-20"  # FY2026 (Apr 2025 - Mar 2026) runs; January 2026 is the last month over
BOREAL_DAY = "2025-08-10"  # FY2025 (Oct 2024 - Sep 2025) runs, in its fourth quarter


@pytest.fixture(scope="module")
def alpina(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_alpina(tmp_path_factory)


@pytest.fixture(scope="module")
def boreal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_boreal(tmp_path_factory)


def _months(first: str, last: str) -> list[str]:
    y, m = (int(x) for x in first.split("-"))
    out = []
    while True:
        out.append(f"{y}-{m:02d}")
        if out[-1] == last:
            return out
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)


def _no_assumed_period(answer: dict) -> None:
    assert not [a for a in answer.get("assumptions", []) if a.get("slot") == "period"], answer


@pytest.mark.parametrize("question", ["revenue last month", "ricavi il mese scorso", "上个月营收"])
def test_last_month_is_the_month_before_the_reference_date(alpina: Path, question: str) -> None:
    answer = ask_json(alpina, question, ALPINA_DAY)
    fact = headline(answer)
    assert (fact["period_type"], fact["period"]) == ("M", "2026-01")
    assert Decimal(fact["value_exact"]) == alpina_value("ALPINA_GROUP", "2026-01")
    _no_assumed_period(answer)


@pytest.mark.parametrize("question", ["revenue this month", "ricavi questo mese", "本月营收"])
def test_this_month(alpina: Path, question: str) -> None:
    fact = headline(ask_json(alpina, question, ALPINA_DAY))
    assert (fact["period_type"], fact["period"]) == ("M", "2026-02")


@pytest.mark.parametrize("question", [
    "revenue year to date", "ricavi da inizio anno", "今年以来营收",
])
def test_year_to_date_is_the_sum_of_the_fiscal_years_months_so_far(
    alpina: Path, question: str
) -> None:
    answer = ask_json(alpina, question, ALPINA_DAY)
    fact = headline(answer)
    months = _months("2025-04", "2026-01")  # the fiscal year starts in April
    assert fact["formula"]["op"] == "sum"
    assert [i["period"] for i in fact["inputs"]] == months
    assert Decimal(fact["value_exact"]) == sum(alpina_value("ALPINA_GROUP", m) for m in months)
    _no_assumed_period(answer)


@pytest.mark.parametrize("question", [
    "revenue in the last twelve months", "ricavi negli ultimi dodici mesi", "过去十二个月营收",
])
def test_the_last_twelve_months_are_summed(alpina: Path, question: str) -> None:
    fact = headline(ask_json(alpina, question, ALPINA_DAY))
    months = _months("2025-02", "2026-01")
    assert [i["period"] for i in fact["inputs"]] == months
    assert Decimal(fact["value_exact"]) == sum(alpina_value("ALPINA_GROUP", m) for m in months)


@pytest.mark.parametrize("question", ["revenue last month", "ricavi il mese scorso", "上个月营收"])
def test_a_named_month_without_a_figure_is_said_to_have_none(alpina: Path, question: str) -> None:
    answer = ask_json(alpina, question, "2026-05-20")  # April 2026 is not in the table
    fact = headline(answer)
    assert fact["status"] == "not_found"
    asked = fact["normalized"]
    assert (asked["period_type"], asked["period"]) == ("M", "2026-04")
    _no_assumed_period(answer)


@pytest.mark.parametrize(("question", "period"), [
    ("shipments for the quarter to June 2025", ("Q", "2025Q3")),
    ("spedizioni del trimestre chiuso al 30 giugno 2025", ("Q", "2025Q3")),
    ("截至2025年6月30日止季度出货量", ("Q", "2025Q3")),
    ("shipments for the six months ended 31 March 2025", ("HY", "2025H1")),
])
def test_a_quarter_or_half_to_a_month_is_the_fiscal_one_ending_then(
    boreal: Path, question: str, period: tuple[str, str]
) -> None:
    fact = headline(ask_json(boreal, question, BOREAL_DAY))
    assert (fact["period_type"], fact["period"]) == period
    assert fact["status"] == "found"
    if period[0] == "Q":
        assert Decimal(fact["value_exact"]) == boreal_group(2025, 3)


@pytest.mark.parametrize(("question", "period"), [
    ("shipments last quarter", ("Q", "2025Q3")),  # Apr-Jun 2025
    ("spedizioni questo semestre", ("HY", "2025H2")),
    ("上一财年出货量", ("FY", "2024")),
    ("shipments FY24/25", ("FY", "2025")),
    ("shipments FY2024/25", ("FY", "2025")),
    ("shipments this fiscal year", ("FY", "2025")),
])
def test_relative_and_split_years_on_a_september_year(
    boreal: Path, question: str, period: tuple[str, str]
) -> None:
    answer = ask_json(boreal, question, BOREAL_DAY)
    fact = headline(answer)
    assert (fact["period_type"], fact["period"]) == period
    _no_assumed_period(answer)
