"""A unit reporting in its own currency (issue 40 point 9), end to end through `ricorda ingest`
and `ricorda ask --json` on two test companies (bench/companies):

- **Meridian** as its glossary stands: China's figures are metrics of their own ("Revenue in
  CNY"), found when a question names the plain metric ("China revenue FY2026");
- **Meridian and Kestrel the way a newcomer writes them**: the unit's rows under the group's
  metric with their own currency in the `unit` column (China's REVENUE in CNY_M beside USD_M;
  New Zealand's SALES in a declared NZD_M beside AUD_M): loaded, never converted.

Figures are never added, ranked or divided across currencies: a sum or share is refused with
a sentence naming the currencies and each figure shown in its own; a ranking names the unit
apart with its figure. Expected values come from the companies' fact tables."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from tests.companies_cli import company_files, found, load_company, notice_kinds, rows
from tests.period_companies import ask_json

MERIDIAN_DAY = "2026-11-20"  # FY2026 (Oct 2025 - Sep 2026) complete
KESTREL_DAY = "2026-08-20"  # FY2026 (Jul 2025 - Jun 2026) complete
NZD = """
[units.NZD_M]
dimension = "currency:NZD"
scale = "1e6"
en = "NZ${value}M"
it = "{value} Mln NZ$"
zh = "{value}百万新西兰元"
"""


def meridian_as_newcomer() -> tuple[str, str]:
    """Meridian with China's rows under REVENUE and EBITDA in CNY_M, no metric of its own."""
    glossary, facts = company_files("meridian")
    kept = []
    skip = False
    for line in glossary.splitlines():
        if line.startswith("[metrics."):
            skip = line.strip() in ("[metrics.REVENUE_CNY]", "[metrics.EBITDA_CNY]")
        if not skip:
            kept.append(line)
    facts = facts.replace("\nREVENUE_CNY,", "\nREVENUE,").replace("\nEBITDA_CNY,", "\nEBITDA,")
    return "\n".join(kept) + "\n", facts


def kestrel_with_nzd() -> tuple[str, str]:
    """Kestrel with New Zealand's sales written in NZ dollars (a declared NZD_M unit)."""
    glossary, facts = company_files("kestrel")
    lines = [line.replace(",AUD_M,", ",NZD_M,") if line.startswith("SALES,KESTREL_NZ,")
             else line for line in facts.splitlines()]
    return glossary + NZD, "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def meridian(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return load_company(tmp_path_factory, "meridian")[0]


@pytest.fixture(scope="module")
def meridian_new(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    glossary, facts = meridian_as_newcomer()
    return load_company(tmp_path_factory, "meridian", glossary=glossary, facts=facts,
                        tag="-new")


@pytest.fixture(scope="module")
def kestrel_nzd(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    glossary, facts = kestrel_with_nzd()
    return load_company(tmp_path_factory, "kestrel", glossary=glossary, facts=facts,
                        tag="-nzd")


def meridian_row(metric: str, entity: str, period: str) -> tuple[Decimal, str]:
    return rows(company_files("meridian")[1])[(metric, entity, period, "TOTAL")]


def kestrel_row(entity: str, period: str) -> tuple[Decimal, str]:
    value, unit = rows(kestrel_with_nzd()[1])[("SALES", entity, period, "TOTAL")]
    return value, unit


# -- as the glossary stands: "Revenue in CNY" answers "China revenue" ------------------------

@pytest.mark.parametrize(
    ("question", "metric", "period", "language", "shown"),
    [
        ("Meridian China revenue FY2026", "REVENUE_CNY", "2026", "en", "CN¥{}M"),
        ("ricavi della Cina nel 2025", "REVENUE_CNY", "2025", "it", "{} Mln CN¥"),
        ("中国区2026财年营收", "REVENUE_CNY", "2026", "zh", "{}百万人民币"),
        ("China EBITDA FY2024", "EBITDA_CNY", "2024", "en", "CN¥{}M"),
    ],
)
def test_a_unit_in_its_own_currency_answers_in_it(
    meridian: Path, question: str, metric: str, period: str, language: str, shown: str,
) -> None:
    answer = ask_json(meridian, question, MERIDIAN_DAY)
    value, unit = meridian_row(metric, "MERIDIAN_CN", period)
    facts = found(answer)
    assert [(f["metric_code"], f["entity"], f["period"]) for f in facts] == [
        (metric, "MERIDIAN_CN", period)]
    assert Decimal(facts[0]["value_exact"]) == value and facts[0]["unit"] == unit == "CNY_M"
    digits = f"{value:,}" if language != "it" else f"{value:,}".replace(",", "X").replace(
        ".", ",").replace("X", ".")
    assert shown.format(digits) in answer["text"], answer["text"]
    assert answer["language"] == language


def test_us_dollars_asked_of_a_cny_figure_are_said_not_made(meridian: Path) -> None:
    answer = ask_json(meridian, "Meridian China revenue FY2026 in US dollars", MERIDIAN_DAY)
    facts = found(answer)
    assert [(f["metric_code"], f["entity"], f["unit"]) for f in facts] == [
        ("REVENUE_CNY", "MERIDIAN_CN", "CNY_M")]  # not Meridian US, not a converted figure
    said = [n["text"] for n in answer["notices"] if n["kind"] == "currency"]
    assert said and "CNY" in said[0] and "never convert" in said[0]


# -- as a newcomer writes it: the unit's own currency in the unit column ----------------------

def test_rows_in_a_units_own_currency_load_and_are_counted(
    meridian_new: tuple[Path, str], kestrel_nzd: tuple[Path, str],
) -> None:
    assert "12 rows of REVENUE kept in CNY_M, their own currency" in meridian_new[1]
    assert "4 rows of EBITDA kept in CNY_M" in meridian_new[1]
    assert "rows of SALES kept in NZD_M" in kestrel_nzd[1]
    assert "0 rejected" in meridian_new[1] and "0 rejected" in kestrel_nzd[1]


@pytest.mark.parametrize(
    ("question", "period", "language"),
    [("China revenue FY2026", "2026", "en"), ("ricavi della Cina nel 2025", "2025", "it"),
     ("中国区2026财年营收", "2026", "zh")],
)
def test_a_newcomers_own_currency_row_is_shown_as_written(
    meridian_new: tuple[Path, str], question: str, period: str, language: str,
) -> None:
    answer = ask_json(meridian_new[0], question, MERIDIAN_DAY)
    value, _ = meridian_row("REVENUE_CNY", "MERIDIAN_CN", period)
    facts = found(answer)
    assert [(f["metric_code"], f["entity"], f["unit"]) for f in facts] == [
        ("REVENUE", "MERIDIAN_CN", "CNY_M")]
    assert Decimal(facts[0]["value_exact"]) == value and answer["language"] == language


def _company(request: pytest.FixtureRequest, name: str) -> Path:
    return request.getfixturevalue(name)[0]


@pytest.mark.parametrize(
    ("company", "question", "language", "currencies", "members"),
    [
        ("meridian_new", "total revenue of Singapore and China in FY2026", "en", "USD, CNY",
         {"MERIDIAN_SG": "USD_M", "MERIDIAN_CN": "CNY_M"}),
        ("meridian_new", "somma dei ricavi di Singapore e Cina nel 2026", "it", "USD, CNY",
         {"MERIDIAN_SG": "USD_M", "MERIDIAN_CN": "CNY_M"}),
        ("kestrel_nzd", "total sales of Australia and New Zealand in FY2026", "en", "AUD, NZD",
         {"KESTREL_AU": "AUD_M", "KESTREL_NZ": "NZD_M"}),
        ("kestrel_nzd", "澳大利亚和新西兰2026财年销售额总和", "zh", "AUD, NZD",
         {"KESTREL_AU": "AUD_M", "KESTREL_NZ": "NZD_M"}),
        ("kestrel_nzd", "What share of group sales came from New Zealand in FY2026?", "en",
         "NZD, AUD", {"KESTREL_NZ": "NZD_M", "KESTREL_GROUP": "AUD_M"}),
    ],
)
def test_figures_in_two_currencies_are_never_added_or_divided(
    request: pytest.FixtureRequest, company: str, question: str, language: str,
    currencies: str, members: dict[str, str],
) -> None:
    day = MERIDIAN_DAY if company.startswith("meridian") else KESTREL_DAY
    answer = ask_json(_company(request, company), question, day)
    head = answer["facts"][0]
    assert head["status"] == "not_found" and head["reason"] == "unit_mismatch"
    assert currencies in answer["text"], answer["text"]
    shown = {f["entity"]: f["unit"] for f in found(answer)}
    assert shown == members  # each figure in its own currency, nothing computed from them
    assert not any(f.get("derived") for f in found(answer))
    assert answer["language"] == language


@pytest.mark.parametrize(
    ("company", "question", "apart", "currency", "ranked"),
    [
        ("meridian_new", "Which unit had the highest revenue in FY2026?", "Meridian China",
         "CNY", "Meridian US"),
        ("kestrel_nzd", "Which unit had the highest sales in FY2026?", "Kestrel New Zealand",
         "NZD", "Kestrel Australia"),
        ("kestrel_nzd", "Quale unità ha avuto le vendite più alte nel 2026?", "Kestrel New Zealand",
         "NZD", "Kestrel Australia"),
    ],
)
def test_a_ranking_names_the_other_currencys_unit_apart(
    request: pytest.FixtureRequest, company: str, question: str, apart: str, currency: str,
    ranked: str,
) -> None:
    day = MERIDIAN_DAY if company.startswith("meridian") else KESTREL_DAY
    answer = ask_json(_company(request, company), question, day)
    table = next(t for t in answer["tables"] if t["kind"] == "ranking")
    assert table["rows"][0][0].endswith(ranked)
    assert not any(apart in row[0] for row in table["rows"])  # never ranked with the others
    assert f"{apart} " in answer["text"] and f" {currency} " in answer["text"]
    assert "No figure for" not in answer["text"] and "Nessun dato" not in answer["text"]


def test_one_units_series_is_in_its_own_currency(meridian_new: tuple[Path, str]) -> None:
    answer = ask_json(meridian_new[0], "China revenue FY2023 to FY2026", MERIDIAN_DAY)
    facts = found(answer)
    want = [meridian_row("REVENUE_CNY", "MERIDIAN_CN", str(y))[0] for y in range(2023, 2027)]
    assert [Decimal(f["value_exact"]) for f in facts] == want
    assert {f["unit"] for f in facts} == {"CNY_M"}
    assert "currency" not in notice_kinds(answer)


def test_new_zealand_in_australian_dollars_is_said_not_converted(
    kestrel_nzd: tuple[Path, str],
) -> None:
    answer = ask_json(kestrel_nzd[0], "New Zealand sales FY2026 in Australian dollars",
                      KESTREL_DAY)
    value, unit = kestrel_row("KESTREL_NZ", "2026")
    facts = found(answer)
    assert [(f["entity"], f["unit"]) for f in facts] == [("KESTREL_NZ", "NZD_M")]
    assert Decimal(facts[0]["value_exact"]) == value and unit == "NZD_M"
    assert "currency" in notice_kinds(answer)
