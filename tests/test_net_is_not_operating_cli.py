""""Net profit" is never read as the operating profit, end to end.

Found by the held-out company Vireo (bench/companies/vireo), scored blind: "What was Vireo's
net profit in FY2026?" was answered "Read 's net profit' as Operating profit" with the EBIT:
another metric under the question's name. "net" is a qualifier the loose reading of metric names
leaves out ("Net cash used in investing activities" is asked as "cash spent on investing"), but
like "gross" it names another figure when the metric's own name says "operating".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.period_companies import ask_json, ingest_company

GLOSSARY = """
[scope]
default_entity = "PIVO_GROUP"
fiscal_year_end = "12-31"

[metrics.OPERATING_PROFIT]
names = ["Operating profit", "EBIT", "utile operativo", "营业利润"]
unit = "EUR_M"

[metrics.SALES]
names = ["sales", "vendite", "销售额"]
unit = "EUR_M"

[entities.PIVO_GROUP]
names = ["Pivo Group", "Pivo"]
"""

FACTS = """metric,entity,period_type,period,channel,value,unit,source_doc,source_locator
OPERATING_PROFIT,PIVO_GROUP,FY,2025,,86.4,EUR_M,AR2025.pdf,page=11
SALES,PIVO_GROUP,FY,2025,,912.0,EUR_M,AR2025.pdf,page=7
"""


@pytest.fixture(scope="module")
def pivo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ingest_company(tmp_path_factory.mktemp("pivo") / "data", "pivo", GLOSSARY, FACTS)


@pytest.mark.parametrize("question", [
    "What was Pivo's net profit in 2025?",
    "Qual è stato l'utile netto di Pivo nel 2025?",
])
def test_net_profit_is_no_figure_not_the_operating_profit(pivo: Path, question: str) -> None:
    answer = ask_json(pivo, question, "2026-03-01")
    assert "86.4" not in answer["text"] and "86,4" not in answer["text"]
    assert not any(f.get("status") == "found" for f in answer.get("facts", []))


def test_operating_profit_is_still_read(pivo: Path) -> None:
    answer = ask_json(pivo, "Pivo operating profits in 2025", "2026-03-01")
    assert answer["facts"][0]["value_exact"] == "86.4"
