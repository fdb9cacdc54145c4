"""Read a wide table declared in the glossary (`[[facts]] file = ...`) from a `.xlsx` sheet or
a `.csv` file: the grid of cells goes through core.knowledge.wide_tables (periods, scales,
parentheses, footnotes) and its records through the fact-file rules (storage.fact_files), so
a report table is validated exactly as a long fact file is.

A workbook is opened whole (not read-only): a report sheet is small, and only then does
openpyxl say which cells are merged. A merged header cell stands for several columns, so one
period would name two columns of figures: the sheet is refused with the cells to unmerge.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from core.contracts.errors import IngestError
from core.contracts.fact_sources import ROWS_DOWN, FactSource, WideLayout
from core.knowledge.unit_kinds import MetricUnits
from core.knowledge.wide_tables import Cell, WideResult, wide_records
from storage.fact_files import FactFileReport, RowProblem, read_records
from storage.read_limits import DOCUMENT_LIMITS, Deadline, ReadLimits, check_zip

Merged = list[tuple[int, int, int, int, str]]  # (min row, min col, max row, max col, "B3:C3")


def read_wide_file(source: FactSource, *, fiscal_year_end: str,
                   known_metrics: Collection[str] | None,
                   known_entities: Collection[str] | None,
                   known_channels: Collection[str] | None,
                   units: MetricUnits | None = None, limits: ReadLimits = DOCUMENT_LIMITS,
                   max_problems: int | None = None,
                   metric_names: Mapping[str, str] | None = None) -> FactFileReport:
    """The facts of a declared wide file; IngestError when it cannot be read as a whole (not
    found, no such sheet, merged header cells, no period headers)."""
    assert source.path is not None and source.wide is not None
    path = source.path
    if not path.is_file():
        raise IngestError(f"{source.name}: file {path} not found: fix file = ... in its "
                          "[[facts]] entry, relative to the glossary")
    grid, merged, sheet = read_grid(source, limits)
    return records_report(source, source.wide, grid, merged, fiscal_year_end=fiscal_year_end,
                          known_metrics=known_metrics, known_entities=known_entities,
                          known_channels=known_channels, units=units,
                          max_problems=max_problems, sheet=sheet,
                          metric_names=metric_names)


def read_grid(source: FactSource,
              limits: ReadLimits = DOCUMENT_LIMITS) -> tuple[list[list[Cell]], Merged, str]:
    """(rows of (value, cell reference), merged ranges, sheet name) of a declared file."""
    assert source.path is not None
    suffix = source.path.suffix.lower()
    if suffix == ".xlsx":
        return _xlsx_grid(source, limits)
    if suffix == ".docx":
        return _docx_grid(source, limits)
    if suffix == ".md":
        return _markdown_grid(source), [], ""
    return _csv_grid(source.path), [], ""


def records_report(source: FactSource, layout: WideLayout, grid: list[list[Cell]],
                   merged: Merged, *, fiscal_year_end: str,
                   known_metrics: Collection[str] | None,
                   known_entities: Collection[str] | None,
                   known_channels: Collection[str] | None, units: MetricUnits | None,
                   max_problems: int | None, sheet: str = "", doc: str = "",
                   metric_names: Mapping[str, str] | None = None) -> FactFileReport:
    """A grid read as `layout` into a validated report (shared with wide SQL results)."""

    def unit_of(metric: str, table_unit: str) -> str:
        # a line item of another kind than the table's unit (a margin in PCT, headcount in a
        # table "in thousands" of euros) is in its metric's own unit, never scaled
        if units is None or not table_unit:
            return table_unit
        declared = units.units.get(metric, "")
        mine, theirs = units.kinds.get(declared), units.kinds.get(table_unit)
        if mine is not None and theirs is not None and mine.dimension != theirs.dimension:
            return declared
        return table_unit

    label = source.path.name if source.path else source.name
    result = wide_records(grid, layout, doc=doc or label, sheet=sheet,
                          fiscal_year_end=fiscal_year_end, known_metrics=known_metrics,
                          unit_of=unit_of, table=source.table, metric_names=metric_names)
    where = f"{label}" + (f", sheet {sheet}" if sheet else "") + (
        f", table {source.table}" if source.table else "")
    _refuse_merged_header(where, layout, result, merged)
    if result.header == 0 and result.errors:
        raise IngestError(f"{where}: {result.errors[0][2]}")
    report = read_records(source.path or Path(source.name), iter(result.records),
                          len(result.records), known_metrics=known_metrics,
                          known_entities=known_entities, known_channels=known_channels,
                          units=units, max_problems=max_problems)
    report.errors[:0] = [RowProblem(line, why, at) for line, at, why in result.errors]
    report.warnings[:0] = [RowProblem(line, why, at) for line, at, why in result.warnings]
    report.rows_read = len(result.labels)
    return report


def _refuse_merged_header(where: str, layout: WideLayout, result: WideResult,
                          merged: Merged) -> None:
    h = result.header
    for min_row, min_col, max_row, max_col, ref in merged:
        # no header found: a merged cell over the figures' columns may be why (the merged
        # text "FY2019 FY2018" reads as no period); a title merged from column A is not
        if layout.periods == ROWS_DOWN:
            across = (min_col <= h <= max_col if h else min_row > 1) and max_row > min_row
        else:
            across = (min_row <= h <= max_row if h else min_col > 1) and max_col > min_col
        if across:
            raise IngestError(
                f"{where}: the header cells {ref} are merged, so one header would stand for "
                "several columns of figures: unmerge them and write each column's own period "
                "(like 2019, 2018); nothing was loaded from this sheet")


def _xlsx_grid(source: FactSource,
               limits: ReadLimits) -> tuple[list[list[Cell]], Merged, str]:
    import zipfile

    from openpyxl import load_workbook
    from openpyxl.utils.exceptions import InvalidFileException

    path = source.path
    assert path is not None
    check_zip(path, limits)  # before openpyxl unpacks anything
    deadline = Deadline(path, limits)
    try:
        workbook = load_workbook(path, data_only=True)
    except (zipfile.BadZipFile, InvalidFileException, KeyError, OSError, ValueError) as exc:
        raise IngestError(f"{path.name}: not a readable .xlsx workbook ({exc})") from None
    except Exception as exc:  # corrupt deflate data, bad XML...: a broken upload, not a crash
        raise IngestError(f"{path.name}: corrupt .xlsx workbook ({exc.__class__.__name__})") \
            from None
    try:
        if source.sheet:
            if source.sheet not in workbook.sheetnames:
                raise IngestError(f"{path.name}: no sheet {source.sheet!r}; its sheets are "
                                  f"{', '.join(workbook.sheetnames)}: fix sheet = ... in its "
                                  "[[facts]] entry")
            sheet = workbook[source.sheet]
        else:
            sheet = workbook.worksheets[0]
        grid: list[list[Cell]] = []
        for i, row in enumerate(sheet.iter_rows()):
            if i % 200 == 0:
                deadline.check()
            grid.append([(_shown(c), getattr(c, "coordinate", "")) for c in row])
        merged = [(r.min_row, r.min_col, r.max_row, r.max_col, r.coord)
                  for r in sheet.merged_cells.ranges]
        return grid, merged, sheet.title
    finally:
        workbook.close()


def _docx_grid(source: FactSource, limits: ReadLimits) -> tuple[list[list[Cell]], Merged, str]:
    """The declared table of a .docx: python-docx repeats a merged cell's object across the
    columns it spans, which is how a merged header is found."""
    import docx
    from openpyxl.utils import get_column_letter

    path = source.path
    assert path is not None
    check_zip(path, limits)
    try:
        document = docx.Document(str(path))
    except Exception as exc:
        raise IngestError(f"{path.name}: not a readable .docx document "
                          f"({exc.__class__.__name__})") from None
    tables = document.tables
    if source.table > len(tables):
        raise IngestError(f"{path.name}: table {source.table} not found, the document has "
                          f"{len(tables)} table(s): fix table = ... in its [[facts]] entry")
    grid: list[list[Cell]] = []
    merged: Merged = []
    for r, row in enumerate(tables[source.table - 1].rows, start=1):
        cells = list(row.cells)
        out: list[Cell] = []
        for c, cell in enumerate(cells, start=1):
            if c > 1 and cell._tc is cells[c - 2]._tc:  # the same cell, spanning this column
                merged.append((r, c - 1, r, c, f"{get_column_letter(c - 1)}{r}:"
                               f"{get_column_letter(c)}{r}"))
                out.append((None, f"{get_column_letter(c)}{r}"))
            else:
                out.append((_cell(cell.text), f"{get_column_letter(c)}{r}"))
        grid.append(out)
    return grid, merged, ""


def _markdown_grid(source: FactSource) -> list[list[Cell]]:
    """The declared pipe table of a .md document (`| a | b |` rows; the `|---|` line skipped)."""
    from openpyxl.utils import get_column_letter

    path = source.path
    assert path is not None
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise IngestError(f"{path.name}: cannot read the document ({exc})") from None
    tables: list[list[list[str]]] = []
    current: list[list[str]] | None = None
    for line in lines:
        text = line.strip()
        if text.startswith("|"):
            if current is None:
                current = []
                tables.append(current)
            cells = [c.strip() for c in text.strip("|").split("|")]
            if not all(re.fullmatch(r":?-{2,}:?", c) for c in cells if c):
                current.append(cells)
        else:
            current = None
    if source.table > len(tables):
        raise IngestError(f"{path.name}: table {source.table} not found, the document has "
                          f"{len(tables)} table(s): fix table = ... in its [[facts]] entry")
    rows = tables[source.table - 1]
    return [[(_cell(v), f"{get_column_letter(c + 1)}{r + 1}") for c, v in enumerate(row)]
            for r, row in enumerate(rows)]


def _shown(cell: Any) -> Any:
    """A cell's value as the sheet shows it: 0.125 formatted "12.5%" is 12.5 (a percentage),
    computed exactly from the shortest repr of the float."""
    value = cell.value
    if isinstance(value, int | float) and not isinstance(value, bool) and "%" in str(
            getattr(cell, "number_format", "") or ""):
        from decimal import Decimal

        return format(Decimal(repr(value)).scaleb(2), "f")  # the point moved: 31.85, not 31.8500
    return value


def _csv_grid(path: Path) -> list[list[Cell]]:
    from openpyxl.utils import get_column_letter

    try:
        with path.open(encoding="utf-8-sig", newline="") as fh:
            rows = list(csv.reader(fh))
    except UnicodeDecodeError:
        raise IngestError(f"{path.name}: not UTF-8 text: save the file as CSV UTF-8") from None
    except csv.Error as exc:
        raise IngestError(f"{path.name}: malformed CSV ({exc})") from None
    except OSError as exc:
        raise IngestError(f"{path.name}: cannot read the file ({exc.strerror})") from None
    return [[(_cell(v), f"{get_column_letter(c + 1)}{r + 1}") for c, v in enumerate(row)]
            for r, row in enumerate(rows)]


def _cell(text: str) -> Any:
    return text if text.strip() else None
