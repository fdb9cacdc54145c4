"""A glossary's golden file run by `ricorda ingest` (issue 35 point 1): a changed fact row is
reported as a regression naming the question, and the ingest exits 1."""

from __future__ import annotations

from pathlib import Path

from tests.test_cli import ricorda
from tests.test_mattermost_adapter import demo_data

ENV = {"RICORDA_EMBEDDER": "hashing"}
ROW = 'REVENUE,ORBIS_IT,FY,2021,TOTAL,268.2,EUR_M,Orbis_FY2021_Annual_Report.pdf'
GOLDEN = """questions:
  - name: italy-2021
    ask: Revenue of Orbis Italy in FY2021
    expect:
      figure: {metric: REVENUE, entity: ORBIS_IT, period: 2021, value: 268.2, unit: EUR_M}
  - name: labs-refused
    ask: Revenue of Orbis Labs in 2024
    expect:
      outcome: refused
"""


def test_ingest_runs_the_glossarys_golden_file_and_reports_a_changed_figure(
        tmp_path: Path) -> None:
    data = demo_data(tmp_path, "telegram:9001")
    demo = tmp_path / "demo"
    (demo / "golden.yaml").write_text(GOLDEN)
    glossary = demo / "glossary.toml"
    glossary.write_text(glossary.read_text() + '\n[golden]\nfile = "golden.yaml"\n')
    done = ricorda(data, "ingest", str(glossary), env=ENV)
    assert "golden: 2 of 2 questions of golden.yaml still pass" in done.stdout
    facts = demo / "facts.csv"
    text = facts.read_text()
    assert ROW in text
    facts.write_text(text.replace(ROW, ROW.replace("268.2", "270.0")))
    changed = ricorda(data, "ingest", str(facts), check=False, env=ENV)
    assert changed.returncode == 1, changed.stdout + changed.stderr
    assert "golden: 1 of 2 questions of golden.yaml still pass" in changed.stdout
    assert "golden regression italy-2021:" in changed.stderr
    assert "labs-refused" not in changed.stderr
