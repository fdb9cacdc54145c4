"""Issue 40 on the test companies of bench/companies (data nobody tuned for), through the CLI:
`ricorda ingest glossary.toml facts.csv`, then `ricorda ask --json`.

- levels: "which unit/region had the higher …" ranks the level asked (Meridian's group >
  region > unit, its [levels] listed top down with no entity tagged), or the units of a flat
  group (Kestrel); counts run over the level asked or the units, never a region beside its units;
- a figure the glossary does not have is never answered with another ("net margin" is not the
  gross margin, like-for-like sales are not sales);
- "in quale mese … più/meno …" ranks the months;
- a public name is not refused as a misspelt restricted one ("Meridian US" vs MERIDIAN_MX);
- the demo's group EBITDA and headcount (not the sum of their units) are shown as stored in an
  uncleared chat, while a ranking of periods that holds a withheld one is withheld.
"""

from __future__ import annotations

import csv
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tests.test_cli import ricorda

ROOT = Path(__file__).resolve().parents[1]
COMPANIES = ROOT / "bench" / "companies"
BOARD = "console:board"  # Meridian's cleared chat


def _load(root: Path, glossary: Path, facts: Path) -> Path:
    data = root / "data"
    ricorda(data, "ingest", str(glossary), str(facts), timeout=600)
    return data


@pytest.fixture(scope="module")
def companies(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = {}
    for name in ("alpina", "meridian", "kestrel"):
        folder = COMPANIES / name
        out[name] = _load(tmp_path_factory.mktemp(name), folder / "glossary.toml",
                          folder / "facts.csv")
    return out


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = ROOT / "bot" / "demo"
    return _load(tmp_path_factory.mktemp("demo"), folder / "glossary.toml",
                 folder / "facts.csv")


def ask(data: Path, question: str, *, chat: str = "", date: str = "") -> dict[str, Any]:
    args = ["ask", question, "--json"]
    if chat:
        args += ["--chat", chat]
    if date:
        args += ["--reference-date", date]
    return json.loads(ricorda(data, *args).stdout)


def found(answer: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for f in answer["facts"] if f.get("status") == "found"]


def first_line(answer: dict[str, Any]) -> str:
    """The answer's first line after any 'Read … as …' notice."""
    lines = [x for x in answer["lines"] if not str(x["text"]).startswith(("Read ", "Ho letto "))]
    return str(lines[0]["text"]) if lines else ""


# ------------------------------------------------------------ rankings over a level


@pytest.mark.parametrize(
    ("company", "question", "chat", "entities", "top"),
    [
        ("kestrel", "Which unit had the higher gross margin in FY2026?", "",
         {"KESTREL_AU", "KESTREL_NZ"}, "44.7"),
        ("kestrel", "Quale unità ha avuto il margine lordo più basso nel 2026?", "",
         {"KESTREL_AU", "KESTREL_NZ"}, "40,4"),
        ("kestrel", "2026财年哪个单位的毛利率更高？", "", {"KESTREL_AU", "KESTREL_NZ"}, "44.7"),
        ("meridian", "which region had the higher revenue in FY2026?", BOARD,
         {"MERIDIAN_AMERICAS", "MERIDIAN_APAC"}, "1,091.7"),
        ("meridian", "Quale regione ha avuto più dipendenti nel 2026?", BOARD,
         {"MERIDIAN_AMERICAS", "MERIDIAN_APAC"}, "3.181"),
        ("meridian", "2026财年哪个区域营收更高？", BOARD,
         {"MERIDIAN_AMERICAS", "MERIDIAN_APAC"}, "1,091.7"),
        ("meridian", "Which unit had the higher operating margin in FY2026?", BOARD,
         {"MERIDIAN_US", "MERIDIAN_MX", "MERIDIAN_SG", "MERIDIAN_CN"}, "18.1"),
    ],
)
def test_which_member_had_the_higher_figure_ranks_the_level_asked(
    companies: dict[str, Path], company: str, question: str, chat: str, entities: set[str],
    top: str,
) -> None:
    answer = ask(companies[company], question, chat=chat, date="2026-11-20")
    assert {f["entity"] for f in found(answer)} == entities, answer["text"]
    assert answer["tables"] and answer["tables"][0]["kind"] == "ranking"
    assert top in first_line(answer)


# ------------------------------------------------------------ counts over a level


@pytest.mark.parametrize(
    ("company", "question", "chat", "count", "named", "never"),
    [
        ("meridian", "How many units had an operating margin above 15% in FY2026?", "", 2,
         ["Meridian US", "Meridian China"], ["Americas", "17.2"]),
        ("meridian", "2026财年有几个单位的营业利润率超过15%？", "", 2, ["美国", "中国"],
         ["美洲", "17.2"]),
        ("meridian", "Quante regioni hanno avuto ricavi superiori a 700 milioni nel 2026?", BOARD,
         1, ["Meridian Americas"], ["Meridian US", "Singapore"]),
        ("alpina", "Quante unità hanno avuto ricavi superiori a 150 milioni nel 2025?", "", 2,
         ["Alpina Italia", "Alpina Germany"], ["Austria 6", "Alpina Group"]),
    ],
)
def test_a_count_runs_over_the_level_asked_each_member_named(
    companies: dict[str, Path], company: str, question: str, chat: str, count: int,
    named: list[str], never: list[str],
) -> None:
    answer = ask(companies[company], question, chat=chat, date="2026-11-20")
    counted = [f for f in found(answer) if f.get("unit") == "COUNT"]
    assert counted and counted[0]["value"] == count, answer["text"]
    line = first_line(answer)
    assert all(n in line for n in named), line
    assert not any(n in line for n in never), line


def test_a_count_says_a_member_withheld_from_the_chat(companies: dict[str, Path]) -> None:
    answer = ask(companies["meridian"],
                 "Quante regioni hanno avuto ricavi superiori a 700 milioni nel 2026?",
                 date="2026-11-20")
    assert not any(f["entity"] == "MERIDIAN_AMERICAS" for f in found(answer))
    assert "Meridian Americas non è mostrato in questa chat" in answer["text"]


# ------------------------------------------------------------ never another metric


@pytest.mark.parametrize(
    ("company", "question", "said"),
    [
        ("alpina", "Qual è il margine netto dell'Italia nel 2025?", "margine netto"),
        ("kestrel", "What was Kestrel's net margin in FY2026?", "net margin"),
        ("kestrel", "like-for-like sales growth of Australia FY2026", "like-for-like sales"),
        ("kestrel", "澳大利亚2026财年同店销售额增长", "同店销售额"),
    ],
)
def test_a_figure_the_glossary_lacks_is_never_another_one(
    companies: dict[str, Path], company: str, question: str, said: str
) -> None:
    answer = ask(companies[company], question, date="2026-08-15")
    assert not found(answer), answer["text"]
    assert said in first_line(answer)


# ------------------------------------------------------------ which month, in Italian


@pytest.mark.parametrize(
    ("company", "question", "period", "value"),
    [
        ("alpina", "In quale mese dell'esercizio 2025 l'Italia ha venduto più tonnellate?",
         "2025-03", "3.519"),
        ("meridian", "In quale mese dell'esercizio 2026 Singapore ha movimentato meno container?",
         "2026-05", "21.313"),
    ],
)
def test_in_quale_mese_più_ranks_the_months(
    companies: dict[str, Path], company: str, question: str, period: str, value: str
) -> None:
    answer = ask(companies[company], question, date="2026-11-20")
    assert answer["tables"] and answer["tables"][0]["kind"] == "ranking", answer["text"]
    assert period in first_line(answer) and value in first_line(answer)


# ------------------------------------------------------------ public names are not refused


@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("Meridian US revenue FY2026", "933.1"),
        ("Ricavi di Meridian Singapore nel 2024", "346,8"),
        ("Meridian Asia-Pacific revenue FY2026", "688.4"),
    ],
)
def test_a_public_name_is_not_a_misspelt_restricted_one(
    companies: dict[str, Path], question: str, value: str
) -> None:
    answer = ask(companies["meridian"], question, date="2026-11-20")
    assert answer["route"] == "structured" and value in first_line(answer), answer["text"]


@pytest.mark.parametrize("question", ["Meridian Mexico revenue FY2026",
                                      "Meridian Mexco revenue FY2026", "meridian mx revenue"])
def test_the_restricted_unit_is_still_refused(companies: dict[str, Path], question: str) -> None:
    answer = ask(companies["meridian"], question, date="2026-11-20")
    assert answer["route"] == "refused" and not found(answer)


# ------------------------------------------------------------ the demo's group totals


@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("Orbis Group EBITDA FY2025", "120.3"),
        ("Organico di Gruppo Orbis nel 2025", "4.310"),
        ("Orbis集团2024年息税折旧摊销前利润", "1.376亿"),
    ],
)
def test_a_group_total_that_is_not_its_units_sum_is_shown_as_stored(
    demo: Path, question: str, value: str
) -> None:
    answer = ask(demo, question)
    assert [f["entity"] for f in found(answer)] == ["ORBIS_GROUP"], answer["text"]
    assert value in first_line(answer)


def test_the_group_revenue_stays_withheld(demo: Path) -> None:
    answer = ask(demo, "Orbis Group revenue FY2024")
    assert not any(f["entity"] == "ORBIS_GROUP" for f in found(answer))
    assert any(f.get("reason") == "withheld" for f in answer["facts"])


def test_a_ranking_of_periods_with_a_withheld_one_is_withheld(demo: Path) -> None:
    answer = ask(demo, "集团哪一年的EBITDA最高？")
    assert not found(answer) and not answer["tables"], answer["text"]
    assert [f.get("reason") for f in answer["facts"]] == ["withheld"]
    assert "本对话不显示" in answer["text"]


# ------------------------------------------------ counts over periods, periods in Chinese


def stored(company: str, metric: str, entity: str, periods: list[str]) -> list[Decimal]:
    """The company's stored figures, read from its facts.csv (the test's expectation)."""
    with (COMPANIES / company / "facts.csv").open(encoding="utf-8", newline="") as fh:
        rows = {(r["metric"], r["entity"], r["period"]): Decimal(r["value"])
                for r in csv.DictReader(fh) if not r["channel"]}
    return [rows[(metric, entity, p)] for p in periods]


@pytest.mark.parametrize(
    ("company", "question", "count", "named"),
    [
        ("alpina", "how many years did Italy's gross margin fall between FY2022 and FY2025?", 1,
         ["FY2023"]),
        ("kestrel", "how many years did Kestrel Australia's gross margin fall, FY2023 to FY2026?",
         2, ["FY2024", "FY2026"]),
        ("meridian", "2023到2026财年，美国的营业利润率下降了几年？", 1, ["2024财年"]),
    ],
)
def test_how_many_years_fell_counts_the_years_named(
    companies: dict[str, Path], company: str, question: str, count: int, named: list[str]
) -> None:
    answer = ask(companies[company], question, date="2026-11-20")
    counted = [f for f in found(answer) if f.get("unit") == "COUNT"]
    assert counted and counted[0]["value"] == count, answer["text"]
    assert all(n in first_line(answer) for n in named)


def months(first: str, n: int) -> list[str]:
    year, month = map(int, first.split("-"))
    out = []
    for i in range(n):
        index = year * 12 + month - 1 + i
        out.append(f"{index // 12}-{index % 12 + 1:02d}")
    return out


@pytest.mark.parametrize(
    ("company", "question", "date", "metric", "entity", "periods", "op"),
    [
        ("meridian", "中国区本财年至今的集装箱处理量", "2026-07-15", "CONTAINERS", "MERIDIAN_CN",
         months("2025-10", 9), "sum"),
        ("kestrel", "澳大利亚本财年至今的销售额", "2026-03-10", "SALES", "KESTREL_AU",
         months("2025-07", 8), "sum"),
        ("meridian", "美国2026财年季度平均集装箱处理量", "2026-11-20", "CONTAINERS", "MERIDIAN_US",
         ["2026Q1", "2026Q2", "2026Q3", "2026Q4"], "average"),
        ("alpina", "意大利2025财年季度平均营收", "2026-02-10", "REVENUE", "ALPINA_IT",
         ["2025Q1", "2025Q2", "2025Q3", "2025Q4"], "average"),
        ("meridian", "media mensile dei container della Cina nell'esercizio 2025", "2026-11-20",
         "CONTAINERS", "MERIDIAN_CN", months("2024-10", 12), "average"),
    ],
)
def test_year_to_date_and_averages_inside_a_year_are_computed(
    companies: dict[str, Path], company: str, question: str, date: str, metric: str,
    entity: str, periods: list[str], op: str,
) -> None:
    answer = ask(companies[company], question, date=date)
    values = stored(company, metric, entity, periods)
    want = sum(values, Decimal(0)) / (len(values) if op == "average" else 1)
    results = [f for f in found(answer) if (f.get("formula") or {}).get("op") == op]
    assert results, answer["text"]
    assert abs(Decimal(str(results[0]["value"])) - want) < Decimal("0.01"), answer["text"]


def test_an_italian_name_with_accents_is_read_in_other_words(
    companies: dict[str, Path]
) -> None:
    answer = ask(companies["kestrel"], "flusso di cassa da investimenti nel 2024",
                 date="2026-08-15")
    assert [(f["metric_code"], f["value"]) for f in found(answer)] == [("INVESTING_CF", -32402)]


def halves(first: int, last: int) -> list[str]:
    return [f"{y}H{h}" for y in range(first, last + 1) for h in (1, 2)]


@pytest.mark.parametrize(
    ("company", "question", "metric", "entity", "years", "highest"),
    [
        ("kestrel", "In quale semestre l'Australia ha spedito più casse, tra gli esercizi 2023 e "
         "2026?", "CASES", "KESTREL_AU", (2023, 2026), True),
        ("meridian", "Quale semestre ha avuto i ricavi più bassi degli Stati Uniti, tra gli "
         "esercizi 2024 e 2026?", "REVENUE", "MERIDIAN_US", (2024, 2026), False),
        ("kestrel", "which half-year between FY2023 and FY2026 had the most cases shipped by "
         "Australia?", "CASES", "KESTREL_AU", (2023, 2026), True),
    ],
)
def test_which_half_between_two_years_ranks_every_half_of_the_range(
    companies: dict[str, Path], company: str, question: str, metric: str, entity: str,
    years: tuple[int, int], highest: bool,
) -> None:
    answer = ask(companies[company], question, date="2026-11-20")
    periods = halves(*years)
    values = dict(zip(periods, stored(company, metric, entity, periods), strict=True))
    top = (max if highest else min)(values, key=lambda p: values[p])
    ranked = [f["period"] for f in found(answer)]
    assert sorted(ranked) == periods, answer["text"]
    assert ranked[0] == top


@pytest.mark.parametrize(
    ("company", "question", "metric", "entity", "years"),
    [
        ("kestrel", "mean half-year cases shipped by Australia FY2023 to FY2026", "CASES",
         "KESTREL_AU", (2023, 2026)),
        ("meridian", "average half-year revenue of the US from FY2024 to FY2026", "REVENUE",
         "MERIDIAN_US", (2024, 2026)),
    ],
)
def test_a_mean_half_year_averages_the_halves(
    companies: dict[str, Path], company: str, question: str, metric: str, entity: str,
    years: tuple[int, int],
) -> None:
    answer = ask(companies[company], question, date="2026-11-20")
    values = stored(company, metric, entity, halves(*years))
    results = [f for f in found(answer) if (f.get("formula") or {}).get("op") == "average"]
    assert results, answer["text"]
    want = sum(values, Decimal(0)) / len(values)
    assert abs(Decimal(str(results[0]["value"])) - want) < Decimal("0.01")
