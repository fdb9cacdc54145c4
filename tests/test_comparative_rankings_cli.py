""""Which unit had the lower margin?": a comparative after "which" is a ranking, end to end.

Found by the held-out company (bench/companies/tessaro): "which division had the higher gross
margin" answered the group's margin, and "… the lower gross margin" asked which figure was
meant, because "lower" is also a word of a metric's name ("Inventories, at lower of cost and
net realisable value") and read as naming it. Comparatives and superlatives ask for a ranking;
they never tell two metrics apart.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.period_companies import ask_json, ingest_company

GLOSSARY = """
[scope]
default_entity = "FALCO_GROUP"
fiscal_year_end = "12-31"

[metrics.GROSS_MARGIN]
names = ["gross margin", "margine lordo", "毛利率"]
unit = "PCT"

[metrics.INVENTORIES]
names = ["Inventories, at lower of cost and net realisable value", "inventories", "rimanenze"]
unit = "EUR_K"

[entities.FALCO_GROUP]
names = ["Falco Group", "Falco", "gruppo"]

[entities.FALCO_NORD]
names = ["Falco Nord", "Nord", "北部"]
parent = "FALCO_GROUP"

[entities.FALCO_SUD]
names = ["Falco Sud", "Sud", "南部"]
parent = "FALCO_GROUP"

[entities.FALCO_EST]
names = ["Falco Est", "Est", "东部"]
parent = "FALCO_GROUP"
"""

MARGINS = {"FALCO_NORD": "41.5", "FALCO_SUD": "33.2", "FALCO_EST": "37.9", "FALCO_GROUP": "38.0"}


def _facts() -> str:
    rows = ["metric,entity,period_type,period,channel,value,unit,source_doc,source_locator"]
    for e, v in MARGINS.items():
        rows.append(f"GROSS_MARGIN,{e},FY,2025,,{v},PCT,AR2025.pdf,page=9")
    rows.append("INVENTORIES,FALCO_GROUP,FY,2025,,48210,EUR_K,AR2025.pdf,page=40")
    return "\n".join(rows) + "\n"


@pytest.fixture(scope="module")
def falco(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ingest_company(tmp_path_factory.mktemp("falco") / "data", "falco", GLOSSARY,
                          _facts())


@pytest.mark.parametrize(("question", "order"), [
    ("which unit had the lower gross margin in 2025?", ["Falco Sud", "Falco Est", "Falco Nord"]),
    ("which unit had the higher gross margin in 2025?", ["Falco Nord", "Falco Est", "Falco Sud"]),
    ("2025年哪个单位的毛利率更低？", ["南部", "东部", "北部"]),
])
def test_a_comparative_after_which_ranks_the_units(
    falco: Path, question: str, order: list[str]
) -> None:
    answer = ask_json(falco, question, "2026-03-01")
    table = answer["tables"][0]
    assert table["kind"] == "ranking"
    assert [row[0].split(". ", 1)[-1] for row in table["rows"]] == order


def test_a_metric_named_with_a_comparative_word_is_still_found(falco: Path) -> None:
    answer = ask_json(falco, "Inventories, at lower of cost and net realisable value 2025",
                      "2026-03-01")
    assert answer["facts"][0]["value_exact"] == "48210"
