"""A flow's year with no row of its own is the sum of its quarters (or months), end to end.

A company that keeps quarterly figures asks for "fabric woven in 2025": the fact table has the
four quarters and no FY2025 row. Found by the held-out company (bench/companies/tessaro): the
bot said it had no figure. A flow's fiscal year is by definition the sum of its parts on the
company's calendar, so the answer is that sum, each part shown, the reading said; a stock is
never summed, a year missing a quarter is still a missing figure, and a withheld total's parts
stay withheld.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from tests.period_companies import ask_json, headline, ingest_company

GLOSSARY = """
[scope]
default_entity = "LOOM_GROUP"
fiscal_year_end = "03-31"
restricted_chats = ["console:board"]
disclosure = "protect"

[metrics.FABRIC]
names = ["fabric woven", "fabric", "tessuto prodotto", "织布量"]
unit = "K_SQM"

[metrics.STAFF]
names = ["staff", "dipendenti", "员工"]
unit = "FTE"

[entities.LOOM_GROUP]
names = ["Loom Group", "Loom", "gruppo"]

[entities.LOOM_MILL]
names = ["Loom Mill", "Mill", "Mulino"]
parent = "LOOM_GROUP"

[entities.LOOM_SECRET]
names = ["Loom Secret", "Secret"]
parent = "LOOM_GROUP"
restricted = true

[units.K_SQM]
dimension = "area"
scale = "1e3"
en = "{value}K m²"
"""

# fiscal year to March: FY2025 is April 2024 - March 2025, its quarters 2025Q1..2025Q4
MILL = {"2025Q1": "310.5", "2025Q2": "298.25", "2025Q3": "322.0", "2025Q4": "305.75",
        "2026Q1": "301.0", "2026Q2": "299.5", "2026Q3": "315.25"}  # FY2026: Q4 not yet


def _facts() -> str:
    rows = ["metric,entity,period_type,period,channel,value,unit,source_doc,source_locator"]
    for q, v in MILL.items():
        rows.append(f"FABRIC,LOOM_MILL,Q,{q},,{v},K_SQM,Mill_Report.xlsx,sheet=Q;col={q}")
        rows.append(f"FABRIC,LOOM_SECRET,Q,{q},,100,K_SQM,Secret.xlsx,sheet=Q;col={q}")
        group = Decimal(v) + 100
        rows.append(f"FABRIC,LOOM_GROUP,Q,{q},,{group},K_SQM,Group.xlsx,sheet=Q;col={q}")
        rows.append(f"STAFF,LOOM_MILL,Q,{q},,120,FTE,HR.xlsx,sheet=Q;col={q}")
    return "\n".join(rows) + "\n"


DAY = "2026-01-20"


@pytest.fixture(scope="module")
def loom(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ingest_company(tmp_path_factory.mktemp("loom") / "data", "loom", GLOSSARY, _facts())


@pytest.mark.parametrize(("question", "label"), [
    ("fabric woven at the Mill in FY2025", "the sum of its 4 quarters"),
    ("tessuto prodotto dal Mulino nel 2025", "somma dei suoi 4 trimestri"),
    ("Mill 2025财年织布量", "为其4个季度之和"),
])
def test_a_flows_year_is_the_sum_of_its_quarters(loom: Path, question: str, label: str) -> None:
    answer = ask_json(loom, question, DAY)
    fact = headline(answer)
    quarters = [f"2025Q{i}" for i in (1, 2, 3, 4)]
    assert Decimal(fact["value_exact"]) == sum(Decimal(MILL[q]) for q in quarters)
    assert fact["formula"]["op"] == "sum" and fact["period"] == "2025"
    assert sorted(i["period"] for i in fact["inputs"]) == quarters
    assert label in answer["text"]


def test_a_year_missing_a_quarter_is_not_summed(loom: Path) -> None:
    answer = ask_json(loom, "fabric woven at the Mill in FY2026", DAY)
    assert not any(f.get("status") == "found" for f in answer.get("facts", []))
    total = sum(Decimal(MILL[f"2026Q{i}"]) for i in (1, 2, 3))
    assert str(total) not in answer["text"].replace(",", "")


def test_a_stock_is_never_summed_over_quarters(loom: Path) -> None:
    answer = ask_json(loom, "Mill staff in FY2025", DAY)
    assert "480" not in answer["text"]  # 4 x 120 FTE is no year's headcount
    assert not any(f.get("status") == "found" for f in answer.get("facts", []))


def test_a_withheld_totals_quarters_stay_withheld(loom: Path) -> None:
    answer = ask_json(loom, "Loom Group fabric woven FY2025", DAY)
    group = sum(Decimal(MILL[f"2025Q{i}"]) + 100 for i in (1, 2, 3, 4))
    assert str(group) not in answer["text"].replace(",", "")
    assert not any(f.get("status") == "found" and f.get("entity") == "LOOM_GROUP"
                   for f in answer.get("facts", []))


@pytest.mark.parametrize(("question", "notice"), [
    ("Mill fabric woven year to date", "no monthly figures"),
    ("tessuto prodotto dal Mulino da inizio esercizio", "non ci sono dati mensili"),
    ("Mill本财年至今的织布量", "没有月度数据"),
])
def test_year_to_date_over_quarterly_figures_sums_the_quarters_inside_it(
    loom: Path, question: str, notice: str
) -> None:
    # 20 January 2026, fiscal year to March: April-December 2025 so far, i.e. FY2026's Q1-Q3
    answer = ask_json(loom, question, DAY)
    fact = headline(answer)
    assert Decimal(fact["value_exact"]) == sum(Decimal(MILL[f"2026Q{i}"]) for i in (1, 2, 3))
    assert sorted(i["period"] for i in fact["inputs"]) == ["2026Q1", "2026Q2", "2026Q3"]
    assert notice in answer["text"]
