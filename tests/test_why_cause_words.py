"""A cause written without "because": "the fall came from …", "il calo deriva da …".

Found by the held-out company (bench/companies/tessaro): "Why did Cork revenue fall in 2025?"
quoted the document's opening summary, because the paragraph that names the cause says "The fall
came from contract sales: the framework contract with Dunmore Hotels … ended", with none of the
causal words the passage picker knew. Through the CLI, on a company written for this test.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_cli import ricorda

GLOSSARY = """
[scope]
default_entity = "ORTO_GROUP"
fiscal_year_end = "12-31"

[metrics.REVENUE]
names = ["revenue", "ricavi", "营收"]
unit = "EUR_M"

[entities.ORTO_GROUP]
names = ["Orto Group", "Orto"]

[entities.ORTO_CORK]
names = ["Orto Cork", "Cork"]
parent = "ORTO_GROUP"

[entities.ORTO_LYON]
names = ["Orto Lyon", "Lyon", "Lione"]
parent = "ORTO_GROUP"

[[documents]]
source = "docs"
path = "docs"
restricted = false
"""

FACTS = """metric,entity,period_type,period,channel,value,unit,source_doc,source_locator
REVENUE,ORTO_CORK,FY,2024,,71.2,EUR_M,AR2025.pdf,page=9
REVENUE,ORTO_CORK,FY,2025,,57.0,EUR_M,AR2025.pdf,page=9
REVENUE,ORTO_LYON,FY,2024,,40.1,EUR_M,AR2025.pdf,page=9
REVENUE,ORTO_LYON,FY,2025,,44.9,EUR_M,AR2025.pdf,page=9
"""

CORK = """# Orto Cork: revenue in 2025

Revenue at the Cork site fell in 2025 compared with 2024, after three years of growth. Retail
sales through the showrooms were broadly stable over the year, and the site kept its margin
close to the group's average.

## Showrooms

The Dublin and Galway showrooms were refitted in the spring; footfall recovered by the summer
and average order value rose slightly.

## Contract sales

The fall came from contract sales: the framework contract with Dunmore Hotels, which furnished
the chain's new openings, ended in March 2025 and was not renewed.
"""

LIONE = """# Orto Lione: ricavi 2025

I ricavi del sito di Lione sono cresciuti nel 2025 rispetto al 2024. Le vendite al dettaglio sono
rimaste stabili e il margine è in linea con quello del gruppo.

## Negozi

Il negozio di Villeurbanne è stato rinnovato in primavera.

## Vendite contract

La crescita deriva dal nuovo contratto con la catena alberghiera Belcour, firmato a gennaio 2025.
"""


@pytest.fixture(scope="module")
def orto(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("orto")
    kb = root / "kb"
    (kb / "docs").mkdir(parents=True)
    (kb / "glossary.toml").write_text(GLOSSARY, encoding="utf-8")
    (kb / "facts.csv").write_text(FACTS, encoding="utf-8")
    (kb / "docs" / "cork_2025.md").write_text(CORK, encoding="utf-8")
    (kb / "docs" / "lione_2025_it.md").write_text(LIONE, encoding="utf-8")
    data = root / "data"
    ricorda(data, "ingest", str(kb / "glossary.toml"), str(kb / "facts.csv"), str(kb / "docs"))
    return data


@pytest.mark.parametrize(("question", "reason"), [
    ("Why did Cork revenue fall in 2025?", "Dunmore Hotels"),
    ("Perché i ricavi di Lione sono cresciuti nel 2025?", "Belcour"),
])
def test_the_cause_is_quoted_first_without_a_because(
    orto: Path, question: str, reason: str
) -> None:
    text = json.loads(ricorda(orto, "ask", question, "--json").stdout)["text"]
    first_quote = text.split("“", 1)[1].split("”", 1)[0]
    assert reason in first_quote, text
