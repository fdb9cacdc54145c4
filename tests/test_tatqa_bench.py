"""The TAT-QA bench (bench/bench_tatqa.py, bench/tatqa/convert.py) on a small sample in
TAT-QA's format written for this test: a table becomes facts and a glossary that loads with
`ricorda ingest`, questions are classed by form, answers scored with TAT-QA's scale, and only
the train split is accepted."""

from __future__ import annotations

import csv
import json
import re
from decimal import Decimal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bench.bench_tatqa import CORRECT, MISSED, WRONG, form, gold, score, selected, train_only
from bench.tatqa.convert import convert, load, number, write

SAMPLE = Path(__file__).parent / "data" / "tatqa_sample.json"
ITEMS = load(SAMPLE)


def test_cells_read_as_a_report_writes_them() -> None:
    assert number("$ 41,250") == (Decimal(41250), False)
    assert number("(21,300)") == (Decimal(-21300), False)
    assert number("60.3%") == (Decimal("60.3"), True)
    assert number("-") is None and number("") is None and number("n/a") is None


def test_a_table_becomes_a_company_with_its_scale_sign_and_year_end(tmp_path: Path) -> None:
    revenue, receivables = (convert(i) for i in ITEMS)
    assert revenue is not None and receivables is not None
    assert revenue.unit == "USD_K" and revenue.years == ["2018", "2019"]
    assert receivables.unit == "GBP_M" and receivables.fiscal_year_end == "06-30"
    rows = {(revenue.labels[c], y): (v, u) for c, y, v, u in revenue.rows}
    assert rows[("Cost of revenue", "2019")] == (Decimal(-21300), "USD_K")
    assert rows[("Gross margin %", "2018")] == (Decimal("58.4"), "PCT")
    assert "Total" not in revenue.labels.values()  # the built-in channel's name
    write(revenue, tmp_path / "kb")
    with (tmp_path / "kb" / "facts.csv").open(encoding="utf-8") as fh:
        assert len(list(csv.DictReader(fh))) == 10
    glossary = (tmp_path / "kb" / "glossary.toml").read_text(encoding="utf-8")
    assert 'names = ["Product revenue"]' in glossary
    assert re.search(r'\[metrics\.\w+\]\nnames = \["TODO', glossary) is None  # every name filled
    from bot.cli.commands import app

    result = CliRunner().invoke(app, ["--data-dir", str(tmp_path / "data"), "ingest",
                                      str(tmp_path / "kb" / "glossary.toml"),
                                      str(tmp_path / "kb" / "facts.csv")])
    assert result.exit_code == 0 and " 0 rejected" in result.output, result.output


def test_only_table_questions_with_one_number_are_asked_and_classed_by_form() -> None:
    chosen = selected(ITEMS, 100)
    assert [q["uid"] for _, q, _ in chosen] == ["q1", "q2", "q3", "q4", "q5", "q7", "q8"]
    assert [form(q) for _, q, _ in chosen] == ["lookup", "difference", "average",
                                               "pct_change", "which_year", "lookup", "count"]


def test_answers_are_scored_with_tatqa_scale() -> None:
    chosen = {q["uid"]: (q, c) for _, q, c in selected(ITEMS, 100)}
    q, company = chosen["q4"]  # % change 8.27: a fraction or a percentage, rounded
    growth = {"status": "found", "derived": True, "value_exact": "0.08267716535433070866"}
    assert score(q, {"facts": [growth], "text": ""}, company)[0] == CORRECT
    q, company = chosen["q1"]
    other = {"status": "found", "value_exact": "38100", "period": "2018"}
    assert score(q, {"facts": [other], "text": ""}, company)[0] == WRONG
    assert score(q, {"facts": [], "text": "I have no figure"}, company)[0] == MISSED
    q, company = chosen["q5"]
    assert gold(q) == Decimal(2019)
    assert score(q, {"facts": [], "text": "2019: Service revenue was higher"}, company)[0] \
        == CORRECT


def test_dev_and_test_splits_are_refused(tmp_path: Path) -> None:
    dev = tmp_path / "tatqa_dataset_dev.json"
    dev.write_text(json.dumps(ITEMS), encoding="utf-8")
    with pytest.raises(SystemExit):
        train_only(dev, ITEMS)
    marked = [{**ITEMS[0], "meta_split": "test"}]
    with pytest.raises(SystemExit):
        train_only(SAMPLE, marked)
