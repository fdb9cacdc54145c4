"""Numbers at the edges: a tiny cell that means a 100-million-digit number, values past the
28 digits a default decimal keeps, values a JSON float cannot hold. Every value is either kept
with exactly its digits (in the table, the answer text, `ask --json` and the two-period
difference) or refused at ingest with a row error that says why."""

from __future__ import annotations

import json
import time
from decimal import Decimal, localcontext
from pathlib import Path

import pytest

from bot.kb.ingest import ingest_paths
from bot.settings.model import load_settings
from bot.wiring.build import build_app
from core.contracts.types import Fact, FactStatus, Period, PeriodType, Request, Source
from core.knowledge.glossary import load_glossary
from core.pipeline.pipeline import Pipeline
from core.planning.answering import Answerer
from storage.fact_files import COLUMNS, read_fact_file
from tests.acme import ACME, REF, MemoryFacts, MemoryTurns

KNOWN = {"known_metrics": {"REVENUE"}, "known_entities": {"ACME_CN"}, "known_channels": None}
HEADER = ",".join(COLUMNS)


def _csv(tmp_path: Path, values: list[str], name: str = "facts.csv") -> Path:
    rows = [
        f"REVENUE,ACME_CN,FY,{2000 + i},TOTAL,{v},USD_M,r.pdf,p=1" for i, v in enumerate(values)
    ]
    path = tmp_path / name
    path.write_text("\n".join([HEADER, *rows]) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("cell", "reason"),
    [
        ("1e100000000", "too large"),
        ("1e3000000000", "too large"),
        ("-1e" + "9" * 40, "too large"),
        ("1" * 29, "too large"),
        ("1e-400", "decimal places"),
        ("0." + "0" * 40 + "1", "decimal places"),
        ("1234567890.1234567890123456789", "significant digits"),
    ],
)
def test_out_of_bounds_values_are_row_errors(tmp_path: Path, cell: str, reason: str) -> None:
    started = time.perf_counter()
    report = read_fact_file(_csv(tmp_path, ["478.2", cell]), **KNOWN)
    assert time.perf_counter() - started < 2
    assert [f.value for f in report.facts] == [Decimal("478.2")]  # the good row still loads
    (error,) = report.errors
    assert error.line == 3 and reason in error.message and len(error.message) < 200


@pytest.mark.parametrize(
    "cell",
    [
        "12345678901234567.89",
        "9" * 28,
        "0." + "0" * 27 + "1",
        "1e27",
        "-0.10",
        "1234567890.123456789012345678",
    ],
)
def test_values_within_the_bounds_keep_every_digit(tmp_path: Path, cell: str) -> None:
    report = read_fact_file(_csv(tmp_path, [cell]), **KNOWN)
    assert not report.errors
    assert report.facts[0].value == Decimal(cell)


def test_xlsx_values_are_bounded_too(tmp_path: Path) -> None:
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.append(list(COLUMNS))
    for i, value in enumerate([478.2, 1e300, 10**40, 5e-320, 12]):
        sheet.append(["REVENUE", "ACME_CN", "FY", str(2000 + i), "TOTAL", value, "USD_M", "r", ""])
    book.save(tmp_path / "facts.xlsx")
    report = read_fact_file(tmp_path / "facts.xlsx", **KNOWN)
    assert [str(f.value) for f in report.facts] == ["478.2", "12"]
    assert [e.line for e in report.errors] == [3, 4, 5]


def test_a_huge_exponent_cell_never_reaches_the_table_or_an_answer(tmp_path: Path) -> None:
    facts = _csv(tmp_path, ["478.2", "1e100000000"])
    app = build_app(load_settings(data_dir=tmp_path / "data", embedder="hashing"))
    try:
        summary = ingest_paths(app, [ACME / "glossary.toml", facts])
        assert any("line 3" in p and "too large" in p for p in summary.problems)
        ans = Pipeline(app.core.answerer).answer(
            Request("ACME China revenue FY2001", reference_date=REF))
        assert ans.facts[0].status is FactStatus.NOT_FOUND
    finally:
        app.close()


def _answerer(values: dict[str, str]) -> Answerer:
    facts = [
        Fact("REVENUE", "ACME_CN", Period(PeriodType.FY, year), "TOTAL", Decimal(v), "USD_M",
             Source("r.pdf", "p=1"))
        for year, v in values.items()
    ]  # fmt: skip
    return Answerer(
        glossary=load_glossary(ACME / "glossary.toml"),
        facts=MemoryFacts(facts),
        turns=MemoryTurns(),
        today=lambda: REF,
    )


def test_json_gives_the_exact_decimal_beside_the_number() -> None:
    ans = Pipeline(_answerer({"2024": "12345678901234567.89"})).answer(
        Request("ACME China revenue FY2024", reference_date=REF)
    )
    fact = json.loads(json.dumps(ans.to_dict()))["facts"][0]
    assert fact["value_exact"] == "12345678901234567.89"
    assert fact["value"] == pytest.approx(12345678901234567.89)  # kept: the number, for tools
    assert "12,345,678,901,234,567.89" in ans.text


def test_the_two_period_difference_is_exact() -> None:
    earlier, later = "0." + "0" * 27 + "1", "9" * 28
    ans = Pipeline(_answerer({"2024": earlier, "2025": later})).answer(
        Request("ACME China revenue FY2024 and FY2025", reference_date=REF)
    )
    with localcontext() as ctx:  # 56 digits: the default context (28) would round
        ctx.prec = 100
        exact = Decimal(later) - Decimal(earlier)
    assert len(exact.as_tuple().digits) == 56
    shown = f"{int(exact):,}." + "9" * 28
    assert shown in ans.text, ans.text
    assert "%" in ans.text.splitlines()[-1]
