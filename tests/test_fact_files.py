"""Reading fact files: every bad row reported on its own line, good rows ready to load."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

import pytest
from openpyxl import Workbook

from core.contracts.errors import IngestError
from core.contracts.types import Period, PeriodType, Source
from storage.fact_files import COLUMNS, FactFileReport, read_fact_file

HEADER = ",".join(COLUMNS)
KNOWN = {
    "known_metrics": {"REVENUE", "EBITDA"},
    "known_entities": {"ORBIS_GROUP", "ORBIS_CN"},
    "known_channels": {"ONLINE", "RETAIL"},
}


def read(path: Path, **kwargs) -> FactFileReport:  # type: ignore[no-untyped-def]
    return read_fact_file(path, **{**KNOWN, **kwargs})


def write_csv(path: Path, lines: list[str], *, bom: bool = False) -> Path:
    text = "\n".join(lines) + "\n"
    path.write_bytes(("\ufeff" if bom else "").encode() + text.encode("utf-8"))
    return path


def test_a_clean_csv_with_a_bom_loads_with_codes_normalised(tmp_path: Path) -> None:
    path = write_csv(
        tmp_path / "facts.csv",
        [
            HEADER,
            'revenue,Orbis_CN,fy,2024,,1320,EUR_M,review.pptx,"slide=2,table=1"',
            'REVENUE,ORBIS_CN,hy,2025h1,online,"1,320.5",EUR_M,h1.pdf,page=3',
            "EBITDA,ORBIS_GROUP,M,2025-03,RETAIL, -0.10 ,EUR_M,march.xlsx,",
        ],
        bom=True,
    )
    report = read(path)
    assert report.ok and report.warnings == []
    assert report.rows_read == 3
    first, second, third = report.facts
    assert (first.metric, first.entity, first.period, first.channel) == (
        "REVENUE",
        "ORBIS_CN",
        Period(PeriodType.FY, "2024"),
        "TOTAL",
    )
    assert first.value == Decimal("1320") and first.source == Source(
        "review.pptx", "slide=2,table=1"
    )
    assert (second.period, second.channel, second.value) == (
        Period(PeriodType.HY, "2025H1"),
        "ONLINE",
        Decimal("1320.5"),
    )
    assert str(third.value) == "-0.10" and third.source == Source("march.xlsx", "")


def test_every_bad_row_is_reported_on_its_own_line_with_its_reason(tmp_path: Path) -> None:
    path = write_csv(
        tmp_path / "facts.csv",
        [
            HEADER,  # line 1
            "REVENUE,ORBIS_CN,FY,2024,,1320,EUR_M,review.pptx,slide=2",  # 2 ok
            "REVENU,ORBIS_CN,FY,2024,,1,EUR_M,a.pdf,",  # 3 unknown metric
            "REVENUE,VORTEX,FY,2024,,1,EUR_M,a.pdf,",  # 4 unknown entity
            "REVENUE,ORBIS_CN,FY,2024,WHOLESALE,1,EUR_M,a.pdf,",  # 5 unknown channel
            "REVENUE,ORBIS_CN,FY,2024,,about 12,EUR_M,a.pdf,",  # 6 text value
            'REVENUE,ORBIS_CN,FY,2024,,"1,5",EUR_M,a.pdf,',  # 7 decimal comma
            "REVENUE,ORBIS_CN,YR,2024,,1,EUR_M,a.pdf,",  # 8 bad period type
            "REVENUE,ORBIS_CN,Q,2025Q5,,1,EUR_M,a.pdf,",  # 9 period does not fit
            "REVENUE,ORBIS_CN,M,2025-13,,1,EUR_M,a.pdf,",  # 10 month 13
            "REVENUE,ORBIS_CN,FY,2023,,1,EUR_M,,slide=1",  # 11 empty source_doc
            'REVENUE,ORBIS_CN,FY,2022,,1,EUR_M,"multi',  # 12-13: one record over two lines
            'line.pdf",page=1',
            "",  # 14 blank: skipped
            "REVENUE,ORBIS_CN,HY,2025Q1,,,EUR_M,a.pdf,",  # 15 two problems at once
            "REVENUE,ORBIS_CN,FY,2024,,1,EUR_M,a.pdf,,extra",  # 16 too many fields
        ],
    )
    report = read(path)
    problems = {p.line: p.message for p in report.errors}
    assert sorted(problems) == [3, 4, 5, 6, 7, 8, 9, 10, 11, 15, 16]
    assert "unknown metric 'REVENU' (did you mean REVENUE?)" in problems[3]
    assert "unknown entity 'VORTEX'" in problems[4]
    assert "unknown channel 'WHOLESALE'" in problems[5]
    assert "'about 12' is not a number" in problems[6]
    assert "thousands separator" in problems[7]
    assert "period_type 'YR'" in problems[8]
    assert "'2025Q5' does not fit period_type Q" in problems[9]
    assert "'2025-13' does not fit period_type M" in problems[10]
    assert "source_doc is empty" in problems[11]
    assert "'2025Q1' does not fit period_type HY" in problems[15]
    assert "value is empty" in problems[15]
    assert "10 fields" in problems[16]
    assert [f.period.value for f in report.facts] == ["2024", "2022"]
    assert report.facts[1].source.doc == "multi\nline.pdf"
    assert not report.ok
    assert report.summary() == "facts.csv: 13 rows, 2 valid, 11 rejected, 0 warnings"


def test_a_duplicate_key_keeps_the_last_row_and_warns(tmp_path: Path) -> None:
    path = write_csv(
        tmp_path / "facts.csv",
        [
            HEADER,
            "REVENUE,ORBIS_CN,FY,2024,,1300,EUR_M,draft.pptx,",
            "REVENUE,ORBIS_CN,FY,2023,,1100,EUR_M,review.pptx,",
            "revenue,orbis_cn,FY,2024,TOTAL,1320,EUR_M,final.pptx,",
        ],
    )
    report = read(path)
    assert report.ok
    assert [str(w) for w in report.warnings] == [
        "line 4: duplicate of line 2 (REVENUE/ORBIS_CN/FY 2024/TOTAL); this later row wins"
    ]
    assert [(f.period.value, f.value, f.source.doc) for f in report.facts] == [
        ("2023", Decimal("1100"), "review.pptx"),
        ("2024", Decimal("1320"), "final.pptx"),
    ]


def test_without_a_glossary_any_code_is_accepted_upper_cased(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "f.csv", [HEADER, "gross_margin,acme,FY,2024,web,1,PCT,a.pdf,"])
    report = read_fact_file(path, known_metrics=None, known_entities=None, known_channels=None)
    assert [(f.metric, f.entity, f.channel) for f in report.facts] == [
        ("GROSS_MARGIN", "ACME", "WEB")
    ]


def test_columns_may_come_in_any_order(tmp_path: Path) -> None:
    path = write_csv(
        tmp_path / "f.csv",
        [
            "value,metric,entity,period_type,period,channel,unit,source_locator,source_doc",
            "7,REVENUE,ORBIS_CN,Q,2025Q3,,EUR_M,page=2,q3.pdf",
        ],
    )
    (only,) = read(path).facts
    assert (only.value, only.period.code, only.source) == (
        Decimal("7"),
        "2025Q3",
        Source("q3.pdf", "page=2"),
    )


@pytest.mark.parametrize(
    ("header", "named"),
    [
        (
            "metric,entity,period_type,period,channel,value,unit,source_doc",
            "missing columns: source_locator",
        ),
        (HEADER + ",comment", "unexpected columns: comment"),
        (
            "metric,entity,period_type,period,channel,amount,unit,source_doc,source_locator",
            "missing columns: value; unexpected columns: amount",
        ),
        (HEADER + ",metric", "repeated columns: metric"),
    ],
)
def test_a_wrong_header_names_the_columns(tmp_path: Path, header: str, named: str) -> None:
    path = write_csv(tmp_path / "facts.csv", [header, "REVENUE,ORBIS_CN,FY,2024,,1,EUR_M,a.pdf,"])
    with pytest.raises(IngestError, match=named) as caught:
        read(path)
    assert "facts.csv" in str(caught.value)


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"", "no header"),
        (b"\n\n", "no header"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary"),
        (
            HEADER.encode()
            + "\nREVENUE,ORBIS_CN,FY,2024,,1,EUR_M,caff\u00e8.pdf,\n".encode("latin-1"),
            "not UTF-8",
        ),
    ],
)
def test_an_unreadable_csv_is_an_ingest_error_naming_the_file(
    tmp_path: Path, content: bytes, reason: str
) -> None:
    path = tmp_path / "broken.csv"
    path.write_bytes(content)
    with pytest.raises(IngestError, match=reason) as caught:
        read(path)
    assert "broken.csv" in str(caught.value)


def test_a_byte_that_is_not_utf8_deep_in_a_large_file_is_named_by_line(tmp_path: Path) -> None:
    """The reader streams the file; the message still points at the exact line (and nothing
    of the file is loaded: the person fixes the export and ingests again)."""
    good = [f"REVENUE,ORBIS_CN,FY,{2000 + i % 25},,{i},EUR_M,a.pdf," for i in range(600)]
    path = tmp_path / "export.csv"
    with path.open("wb") as fh:
        fh.write(("\ufeff" + "\n".join([HEADER, *good]) + "\n").encode("utf-8"))
        fh.write("REVENUE,ORBIS_CN,FY,2024,,1,EUR_M,caff\u00e8.pdf,\n".encode("latin-1"))
    assert path.stat().st_size > 3 * 8192
    with pytest.raises(IngestError, match=r"export\.csv: not UTF-8 text \(byte 0xe8 on line 602,"):
        read(path)


def test_unsupported_or_missing_files_are_ingest_errors(tmp_path: Path) -> None:
    with pytest.raises(IngestError, match="unsupported"):
        read(tmp_path / "facts.json")
    with pytest.raises(IngestError, match=r"missing\.csv"):
        read(tmp_path / "missing.csv")
    with pytest.raises(IngestError, match=r"missing\.xlsx"):
        read(tmp_path / "missing.xlsx")


def test_progress_is_reported_up_to_the_total(tmp_path: Path) -> None:
    rows = [
        f"REVENUE,ORBIS_CN,M,{2000 + i // 12}-{i % 12 + 1:02d},,{i},EUR_M,a.pdf,"
        for i in range(600)
    ]
    path = write_csv(tmp_path / "facts.csv", [HEADER, *rows])
    calls: list[tuple[int, int]] = []
    report = read(path, progress=lambda done, total: calls.append((done, total)))
    assert len(report.facts) == 600
    assert calls[-1] == (600, 600)
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)
    assert all(total == 600 for _, total in calls)


# --- xlsx ----------------------------------------------------------------------------------


def write_xlsx(path: Path, rows: list[list[object]]) -> Path:
    book = Workbook()
    sheet = book.active
    for row in rows:
        sheet.append(row)
    book.create_sheet("notes").append(["ignored", "second sheet"])
    book.save(path)
    return path


def test_an_xlsx_sheet_loads_with_numbers_and_dates_as_spreadsheets_store_them(
    tmp_path: Path,
) -> None:
    path = write_xlsx(
        tmp_path / "facts.xlsx",
        [
            list(COLUMNS),
            ["REVENUE", "ORBIS_CN", "FY", 2024, None, 1320, "EUR_M", "review.pptx", "slide=2"],
            [
                "EBITDA",
                "orbis_group",
                "M",
                dt.datetime(2025, 3, 1),
                "online",
                0.1,
                "EUR_M",
                "m.xlsx",
                None,
            ],
            ["REVENUE", "ORBIS_CN", "Q", "2025Q3", None, "1,250.75", "EUR_M", "q3.pdf", "page=1"],
        ],
    )
    report = read(path)
    assert report.ok, report.errors
    assert [(f.period.code, f.channel, str(f.value)) for f in report.facts] == [
        ("FY2024", "TOTAL", "1320"),
        ("2025-03", "ONLINE", "0.1"),
        ("2025Q3", "TOTAL", "1250.75"),
    ]


def test_xlsx_bad_rows_carry_their_sheet_row_numbers(tmp_path: Path) -> None:
    path = write_xlsx(
        tmp_path / "facts.xlsx",
        [
            list(COLUMNS),
            ["REVENUE", "ORBIS_CN", "FY", 2024, None, 1320, "EUR_M", "review.pptx", None],
            [None] * 9,  # row 3: blank, skipped
            ["REVENUE", "ORBIS_CN", "FY", 2023, None, "n/a", "EUR_M", "review.pptx", None],
            ["REVENUE", "ORBIS_CN", "FY", 2022, None, True, "EUR_M", "review.pptx", None],
            ["REVENUE", "MARS", "FY", 2021, None, 5, "EUR_M", None, None],
        ],
    )
    report = read(path)
    problems = {p.line: p.message for p in report.errors}
    assert sorted(problems) == [4, 5, 6]
    assert "'n/a' is not a number" in problems[4]
    assert "not a number" in problems[5]
    assert "unknown entity 'MARS'" in problems[6] and "source_doc is empty" in problems[6]
    assert len(report.facts) == 1


def test_an_xlsx_with_a_missing_column_or_no_header_is_refused(tmp_path: Path) -> None:
    missing = write_xlsx(tmp_path / "missing.xlsx", [list(COLUMNS[:-1]), ["REVENUE"]])
    with pytest.raises(IngestError, match="missing columns: source_locator"):
        read(missing)
    empty = write_xlsx(tmp_path / "empty.xlsx", [])
    with pytest.raises(IngestError, match=r"empty\.xlsx: no header"):
        read(empty)


def test_a_file_that_is_not_a_workbook_is_an_ingest_error(tmp_path: Path) -> None:
    path = tmp_path / "facts.xlsx"
    path.write_bytes(b"metric,entity\nnot really a workbook\n")
    with pytest.raises(IngestError, match=r"facts\.xlsx: not a readable \.xlsx"):
        read(path)
