"""Questions over periods, end to end through `ricorda ask --json` on two companies that are
not the demo: averages over the months or quarters inside a year, rankings of periods, a
ranking of units by their growth between two named years, and ranges reaching outside the
data (answered over the periods that exist, saying which)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from tests.period_companies import (
    ALPINA_UNITS,
    BOREAL_UNITS,
    alpina_value,
    ask_json,
    boreal_group,
    boreal_quarter,
    headline,
    make_alpina,
    make_boreal,
)

ALPINA_DAY = "2026-02-20"  # "last year" is FY2025 (Apr 2024 - Mar 2025)
BOREAL_DAY = "2025-11-10"  # FY2025 (Oct 2024 - Sep 2025) is complete


@pytest.fixture(scope="module")
def alpina(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_alpina(tmp_path_factory)


@pytest.fixture(scope="module")
def boreal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_boreal(tmp_path_factory)


def _fy2025_months() -> list[str]:
    return [f"2024-{m:02d}" for m in range(4, 13)] + [f"2025-{m:02d}" for m in range(1, 4)]


@pytest.mark.parametrize("question", [
    "mean monthly orders last year", "media mensile degli ordini dell'anno scorso", "去年月均订单",
])
def test_the_average_over_the_months_of_a_year_is_computed_and_cited(
    alpina: Path, question: str
) -> None:
    fact = headline(ask_json(alpina, question, ALPINA_DAY))
    months = _fy2025_months()
    assert fact["formula"]["op"] == "average"
    assert [i["period"] for i in fact["inputs"]] == months
    assert all(i["source"] for i in fact["inputs"])
    expected = sum(alpina_value("ALPINA_GROUP", m, "ORDERS") for m in months) / 12
    assert abs(Decimal(fact["value_exact"]) - expected) < Decimal("0.0001")


@pytest.mark.parametrize("question", [
    "average quarterly shipments in FY2024", "media trimestrale delle spedizioni nel 2024",
    "2024财年季均出货量",
])
def test_the_average_over_the_quarters_of_a_year(boreal: Path, question: str) -> None:
    fact = headline(ask_json(boreal, question, BOREAL_DAY))
    assert fact["formula"]["op"] == "average"
    assert [i["period"] for i in fact["inputs"]] == [f"2024Q{q}" for q in range(1, 5)]
    assert Decimal(fact["value_exact"]) == Decimal(sum(boreal_group(2024, q)
                                                       for q in range(1, 5))) / 4


@pytest.mark.parametrize(("question", "expected"), [
    ("in which quarter of FY2024 were shipments highest?", "2024Q3"),
    ("in quale trimestre del 2024 le spedizioni sono state più alte?", "2024Q3"),
    ("2024财年哪个季度出货量最高？", "2024Q3"),
    ("which year had the bigger operating cash flow?", "2024"),
    ("in quale anno il flusso di cassa operativo è stato minore?", "2023"),
    ("哪一年经营现金流更高？", "2024"),
])
def test_rankings_over_periods(boreal: Path, question: str, expected: str) -> None:
    answer = ask_json(boreal, question, BOREAL_DAY)
    assert headline(answer)["period"] == expected, answer["text"]


@pytest.mark.parametrize("question", [
    "which unit grew most between FY2022 and FY2024?",
    "quale unità è cresciuta di più tra il 2022 e il 2024?",
    "2022财年到2024财年哪个区域增长最快？",
])
def test_units_ranked_by_growth_between_two_named_years(alpina: Path, question: str) -> None:
    answer = ask_json(alpina, question, "2026-04-20")
    rows = answer["tables"][0]["rows"]
    growth = {u: (sum(alpina_value(u, m) for m in _months_of(2024))
                  / sum(alpina_value(u, m) for m in _months_of(2022))) for u in ALPINA_UNITS}
    order = sorted(ALPINA_UNITS, key=growth.get, reverse=True)
    assert len(rows) == len(ALPINA_UNITS)  # the units, not the group's two-year series
    firsts = [r[0] for r in rows]
    assert ("China" in firsts[0] or "Cina" in firsts[0] or "中国" in firsts[0]), firsts
    assert order[0] == "ALPINA_CN"
    assert {f["period"] for f in answer["facts"]} == {"2022", "2024"}


def _months_of(fy: int) -> list[str]:
    return [f"{fy - 1}-{m:02d}" for m in range(4, 13)] + [f"{fy}-{m:02d}" for m in range(1, 4)]


@pytest.mark.parametrize(("question", "op", "said"), [
    ("China revenue from FY1950 to FY2024", None, "the answer covers FY2022"),
    ("average China revenue FY1800–FY2024", "average", "the answer covers FY2022"),
    ("ricavi medi della Cina dal FY1800 al FY2024", "average", "la risposta copre FY2022"),
    ("中国FY1950至FY2024营收", None, "回答涵盖2022财年"),
])
def test_a_range_reaching_before_the_data_is_answered_over_the_years_that_exist(
    alpina: Path, question: str, op: str | None, said: str
) -> None:
    answer = ask_json(alpina, question, "2026-04-20")
    assert said in answer["text"]
    if op is None:
        assert len(answer["tables"][0]["rows"]) == 3  # FY2022-FY2024, not FY2024 alone
    else:
        fact = headline(answer)
        assert fact["formula"]["op"] == op
        assert [i["period"] for i in fact["inputs"]] == ["2022", "2023", "2024"]
        expected = sum(sum(alpina_value("ALPINA_CN", m) for m in _months_of(y))
                       for y in (2022, 2023, 2024)) / 3
        assert Decimal(fact["value_exact"]) == expected


def test_boreal_quarters_are_known(boreal: Path) -> None:
    """The quarter answered is the fiscal one: Q3 FY2024 of a September year is Apr-Jun 2024."""
    fact = headline(ask_json(boreal, "Boreal US shipments Q3 FY2024", BOREAL_DAY))
    assert Decimal(fact["value_exact"]) == boreal_quarter("BOREAL_US", 2024, 3)
    assert len(BOREAL_UNITS) == 3
