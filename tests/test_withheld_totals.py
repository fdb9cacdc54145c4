"""Issue 33, end to end through the CLI, on a small knowledge base written for the test: a
March fiscal year, the group's revenue by month, a restricted unit with yearly figures only, and
an EBITDA that is not the sum of the units' (central costs).

- the restricted unit's yearly revenue cannot be worked out from any answers an uncleared chat
  gets (solved exactly: tests.linear_disclosure), the group's months summed included;
- no group figure other than the stored one is ever stated under the group's name;
- a Chinese series is in 亿欧元, its values too; a five-year breakdown charts all fifteen values.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from core.contracts.types import Period, PeriodType
from core.knowledge.period_relations import time_relations, year_periods
from tests.linear_disclosure import Knowledge

REPO = Path(__file__).resolve().parents[1]
FYE = "03-31"
YEARS = range(2022, 2027)
PUBLIC = ("ACME_IT", "ACME_DE", "ACME_PL")
LAB, GROUP = "ACME_LAB", "ACME_GROUP"

GLOSSARY = """
[scope]
default_entity = "ACME_GROUP"
fiscal_year_end = "03-31"
restricted_chats = ["console:admin"]
disclosure = "protect"

[metrics.REVENUE]
names = ["Revenue", "ricavi", "fatturato", "营收"]
unit = "EUR_M"
labels = { it = "Ricavi", zh = "营收" }

[metrics.EBITDA]
names = ["EBITDA"]
unit = "EUR_M"

[entities.ACME_GROUP]
names = ["Acme Group", "Gruppo Acme", "Acme集团", "集团"]
forms = ["group", "gruppo"]

[entities.ACME_IT]
names = ["Italy", "Italia", "意大利"]
parent = "ACME_GROUP"

[entities.ACME_DE]
names = ["Germany", "Germania", "德国"]
parent = "ACME_GROUP"

[entities.ACME_PL]
names = ["Poland", "Polonia", "波兰"]
parent = "ACME_GROUP"

[entities.ACME_LAB]
names = ["Acme Lab"]
parent = "ACME_GROUP"
restricted = true

[channels.TOTAL]
names = ["Total"]

[units.EUR_M]
en = "€{value}M"
it = "{value} M€"
zh = { format = "{value}亿欧元", shift = -2 }
"""


def revenue(entity: str, year: int) -> Decimal:
    base = {"ACME_IT": 300, "ACME_DE": 250, "ACME_PL": 100, LAB: 40}
    if entity == GROUP:
        return sum((revenue(e, year) for e in base), Decimal(0))
    return Decimal(base[entity] + 7 * (year - 2022)) + Decimal("0.17")


# EBITDA: the group's is after central costs, so never the units' sum; the unit has no figure
# for FY2025
EBITDA = {("ACME_IT", 2025): "45", ("ACME_DE", 2025): "38", ("ACME_PL", 2025): "9",
          (GROUP, 2025): "75", ("ACME_IT", 2026): "50", ("ACME_DE", 2026): "40",
          ("ACME_PL", 2026): "10", (LAB, 2026): "-5", (GROUP, 2026): "80"}


def write_kb(root: Path) -> tuple[Path, Path]:
    rows = ["metric,entity,period_type,period,channel,value,unit,source_doc,source_locator"]
    for year in YEARS:
        for e in (*PUBLIC, LAB, GROUP):
            rows.append(f"REVENUE,{e},FY,{year},TOTAL,{revenue(e, year)},EUR_M,ar{year}.pdf,p1")
    months = [p for p in year_periods(2026, FYE) if p.type is PeriodType.M]
    total, parts = revenue(GROUP, 2026), []
    for i, _ in enumerate(months[:-1]):
        parts.append((total / 12).quantize(Decimal("0.01")) + i - 5)
    parts.append(total - sum(parts, Decimal(0)))
    for m, v in zip(months, parts, strict=True):
        rows.append(f"REVENUE,{GROUP},M,{m.value},TOTAL,{v},EUR_M,monthly.pdf,{m.value}")
    for (e, year), v in EBITDA.items():
        rows.append(f"EBITDA,{e},FY,{year},TOTAL,{v},EUR_M,ar{year}.pdf,p9")
    (root / "glossary.toml").write_text(GLOSSARY, encoding="utf-8")
    (root / "facts.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return root / "glossary.toml", root / "facts.csv"


def ricorda(data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "RICORDA_DATA_DIR": str(data), "RICORDA_EMBEDDER": "hashing",
           "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "bot", *args], env=env, cwd=REPO,
                          capture_output=True, text=True, timeout=180)


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("acme33")
    data = root / "data"
    done = ricorda(data, "ingest", *map(str, write_kb(root)))
    assert done.returncode == 0, done.stdout + done.stderr
    return data


def ask(kb: Path, question: str) -> dict[str, Any]:
    done = ricorda(kb, "ask", question, "--json", "--reference-date", "2026-06-15")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def found_cells(facts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every stored figure an answer shows: its facts, and the inputs of what it computed."""
    out = []
    for f in facts:
        if f.get("status") == "found" and f.get("source") is not None:
            out.append(f)
        out += found_cells(f.get("inputs", []))
    return out


ATTACK = [
    "total group revenue from April 2025 to March 2026",
    "Acme Group revenue from April 2025 to March 2026",
    "What was Acme Group revenue in FY2026?",
    "revenue by entity FY2026",
    "revenue by entity FY2022-FY2026",
    "Acme Group revenue in H1 2026",
    "Acme Group revenue in Q4 2026",
    "Acme Group revenue in March 2026",
    "average Acme Group revenue from April 2025 to March 2026",
    "Italy revenue FY2026", "Germany revenue FY2026", "Poland revenue FY2026",
]


def test_the_restricted_units_yearly_revenue_cannot_be_computed_from_any_answers(kb: Path
                                                                                  ) -> None:
    k = Knowledge()
    for year in YEARS:
        for e in (*PUBLIC, LAB, GROUP):
            for total, parts in time_relations(year, FYE):
                k.add_sum((e, total), [(e, p) for p in parts])
        for p in year_periods(year, FYE):
            k.add_sum((GROUP, p), [(e, p) for e in (*PUBLIC, LAB)])
    texts = []
    for question in ATTACK:
        out = ask(kb, question)
        texts.append(out["text"])
        for f in found_cells(out["facts"]):
            if f["metric_code"] == "REVENUE":
                k.shown((f["entity"], Period(PeriodType(f["period_type"]), f["period"])))
    fy2026 = Period(PeriodType.FY, "2026")
    assert not k.determined((LAB, fy2026)), "\n\n".join(texts)
    assert "Acme Lab" not in "".join(texts)
    assert f"€{revenue(GROUP, 2026):,}M" not in "".join(texts)  # the group's stored total


def test_no_group_figure_other_than_the_stored_one_is_stated_under_its_name(kb: Path) -> None:
    stored = {("EBITDA", str(y)): Decimal(v) for (e, y), v in EBITDA.items() if e == GROUP}
    stored |= {("REVENUE", str(y)): revenue(GROUP, y) for y in YEARS}
    for question in ("Acme Group EBITDA FY2025", "EBITDA by entity FY2025",
                     "Acme Group EBITDA FY2026", "EBITDA by entity FY2026",
                     "What was group revenue in FY2025?", "revenue by entity FY2025",
                     "Qual è stato l'EBITDA del Gruppo Acme nel 2025?"):
        out = ask(kb, question)
        for f in out["facts"]:
            if f.get("status") == "found" and f.get("entity") == GROUP:
                assert Decimal(f["value_exact"]) == stored[(f["metric_code"], f["period"])]
        assert "excluding undisclosed" not in out["text"] and "escluse" not in out["text"]
        # the units' sum of FY2025 EBITDA (92) is theirs, never the group's
        assert "Acme Group EBITDA, FY2025: €92" not in out["text"]


def test_a_chinese_series_is_in_the_unit_of_its_axis(kb: Path) -> None:
    out = ask(kb, "意大利2022年到2026年的营收")
    (table,) = out["tables"]
    assert table["unit"] == "亿欧元"
    values = [p["value"] for p in table["series"]]
    assert values == [float(revenue("ACME_IT", y) / 100) for y in YEARS]  # 3.0017, not 300.17


def test_a_five_year_breakdown_charts_every_period(kb: Path) -> None:
    out = ask(kb, "revenue by entity FY2022-FY2026")
    (table,) = out["tables"]
    assert len(table["series"]) == 15  # three visible units x five years
    assert {(p["label"], p["period"].split()[0]) for p in table["series"]} == {
        (name, f"FY{y}") for name in ("Italy", "Germany", "Poland") for y in YEARS}
    assert {p["value"] for p in table["series"] if p["label"] == "Italy"} == {
        float(revenue("ACME_IT", y)) for y in YEARS}


def visible_line(out: dict[str, Any]) -> list[Any]:
    """The visible units' sums an answer states: in its text and under `visible_members`."""
    return [f["disclosure"]["visible_members"] for f in out["facts"]
            if (f.get("disclosure") or {}).get("visible_members")]


@pytest.mark.parametrize("question", ["Acme Group EBITDA FY2025", "EBITDA by entity FY2025",
                                      "Qual è stato l'EBITDA del Gruppo Acme nel 2025?",
                                      "2025年集团的EBITDA"])
def test_no_visible_units_sum_for_a_metric_that_does_not_add_up_in_another_period(
        kb: Path, question: str) -> None:
    # FY2025 EBITDA is withheld (the lab has no figure); FY2026 shows the group (80) is not
    # the units' sum (95), though the glossary does not say so: 92 is no sum it claims to be
    out = ask(kb, question)
    assert any(f.get("reason") == "withheld" for f in out["facts"]), out["text"]
    assert visible_line(out) == [], out["text"]
    for text in ("together", "insieme", "合计", "€92", "92 M€", "0.92亿欧元"):
        assert text not in out["text"], out["text"]


def test_the_visible_units_sum_stays_for_a_metric_that_adds_up(kb: Path) -> None:
    out = ask(kb, "What was group revenue in FY2025?")
    (line,) = visible_line(out)
    assert Decimal(line["sum_exact"]) == sum((revenue(e, 2025) for e in PUBLIC), Decimal(0))
    assert "Italy, Germany and Poland together" in out["text"]


def test_the_docs_say_what_is_withheld_what_is_covered_and_what_is_not() -> None:
    """Issue 33's "Done when": docs/disclosure.md has the rule, what it covers (members,
    periods, public passages) and cannot (a figure in words, a document outside the knowledge
    base), and a before/after table; the README's path and own-data.md name the policy,
    restricted units and [competitors]."""
    page = (REPO / "docs" / "disclosure.md").read_text(encoding="utf-8")
    for text in ("### The rule: withhold, never rename", "### What it covers, and what it cannot",
                 "relations over members", "over periods", "Public passages that state a "
                 "withheld figure", "written in words", "outside the knowledge base",
                 "### Before and after", "| question | before | after |"):
        assert text in page, text
    for doc in ("README.md", "docs/own-data.md"):
        text = (REPO / doc).read_text(encoding="utf-8")
        assert 'disclosure = "protect"' in text and "[competitors]" in text, doc
        assert "restricted" in text, doc
