"""Issue 39: "in which month was China revenue highest?" over a long monthly history is counted
against the per-question lookup bound. End to end through `ricorda ask --json`: the facts the
answer carries are the lookups it made (one per period ranked), counted, never timed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.period_companies import ingest_company
from tests.test_cli import ricorda

GLOSSARY = """
[scope]
default_entity = "LONG_GROUP"
fiscal_year_end = "03-31"

[metrics.REVENUE]
names = ["revenue", "ricavi", "营收"]
unit = "EUR_K"

[entities.LONG_GROUP]
names = ["Long Group"]

[entities.LONG_CN]
names = ["China", "Cina", "中国"]
parent = "LONG_GROUP"
"""
PEAK = "1950-07"  # the highest month, far back: outside the most recent 200


def _facts(years: int) -> str:
    rows = ["metric,entity,period_type,period,channel,value,unit,source_doc,source_locator"]
    for i in range(years * 12):
        year, month = divmod(2026 * 12 + 2 - i, 12)  # back from March 2026
        code = f"{year}-{month + 1:02d}"
        value = 9999 if code == PEAK else 100 + i % 37
        rows.append(f"REVENUE,LONG_CN,M,{code},TOTAL,{value},EUR_K,MR{code}.pdf,page=1")
    return "\n".join(rows) + "\n"


@pytest.fixture(scope="module")
def century(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("century") / "data"
    return ingest_company(data, "century", GLOSSARY, _facts(100))  # 1,200 months


def _ask(data: Path, question: str, **env: str) -> dict:
    import json

    out = ricorda(data, "ask", "--json", "--reference-date", "2026-05-10", question, env=env)
    return json.loads(out.stdout)


@pytest.mark.parametrize(("question", "said"), [
    ("in which month was China revenue highest?", "latest 200 of 1,200 periods"),
    ("in quale mese i ricavi della Cina sono stati più alti?", "ultimi 200 dei 1.200 periodi"),
    ("中国哪个月营收最高？", "最近的200个"),
])
def test_a_ranking_of_every_month_stays_within_the_lookup_bound(
    century: Path, question: str, said: str
) -> None:
    answer = _ask(century, question)
    assert len(answer["facts"]) == 200  # the default bound, not 1,200
    assert said in answer["text"]
    periods = sorted(f["period"] for f in answer["facts"])
    assert periods[0] == "2009-08" and periods[-1] == "2026-03"  # the most recent first
    assert len(answer["tables"][0]["rows"]) <= 24


def test_the_bound_is_the_configured_one(century: Path) -> None:
    answer = _ask(century, "in which month was China revenue highest?",
                  RICORDA_MAX_LOOKUPS="60")
    assert len(answer["facts"]) == 60
    assert "latest 60 of 1,200 periods" in answer["text"]
