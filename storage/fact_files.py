"""Read a fact file (`.csv` or `.xlsx`) into validated facts, reporting every bad row.

A fact file is what people edit by hand or export from a spreadsheet, so the reader is strict
about meaning and lenient about form: codes match the glossary case-insensitively (stored
upper-case), an empty channel means TOTAL, columns may come in any order. It never loads a row
it is unsure of: each bad row is reported with its line number and every reason, and the caller
decides whether to load the good rows.

Values: plain decimal notation (`1320`, `-12.345`, `0.10`, `1e3`) is accepted and kept digit for
digit. A comma is accepted only as a thousands separator in correct groups (`1,320.5`), because
spreadsheets export that; anything else with a comma (`1,5`) is rejected as ambiguous, since it
may be a decimal comma. Text, NaN and infinities are rejected.

Values are bounded so every one is stored, shown and computed with exactly its digits: at most
`MAX_DIGITS` (28) significant digits, below 10^28 in magnitude and with at most 28 decimal
places (`MAX_DECIMALS`). A 130-byte cell such as `1e100000000` would otherwise become a
100-million-digit number; it is a row error instead.

Units: given the glossary's `MetricUnits` (core.knowledge.unit_kinds), a row in another unit of
its metric's dimension is converted exactly to the metric's unit (counted in the report: "12
rows of REVENUE converted from EUR_K to EUR_M"); a row of a money metric in another currency
(a unit reporting in its own: CNY beside a USD group) is kept as written, never converted
(counted: "8 rows of REVENUE kept in CNY_M, their own currency"); a row in another dimension
or in an unknown unit is rejected with the fix. An empty unit is the metric's.
"""

from __future__ import annotations

import csv
import datetime as dt
import difflib
import math
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, BinaryIO

from core.contracts.errors import IngestError
from core.contracts.types import Fact, Period, PeriodType, Source
from core.knowledge.unit_kinds import MetricUnits, RowUnit
from storage.read_limits import WORKBOOK_LIMITS, Deadline, ReadLimits, check_zip

COLUMNS = (
    "metric",
    "entity",
    "period_type",
    "period",
    "channel",
    "value",
    "unit",
    "source_doc",
    "source_locator",
)
TOTAL_CHANNEL = "TOTAL"
MAX_DIGITS = 28  # significant digits
MAX_INTEGER_DIGITS = 28  # |value| < 10^28
MAX_DECIMALS = 28  # digits after the decimal point
_PROGRESS_EVERY = 250

_PERIOD_FORMS: dict[PeriodType, tuple[re.Pattern[str], str]] = {
    PeriodType.FY: (re.compile(r"^\d{4}$"), "2025"),
    PeriodType.HY: (re.compile(r"^\d{4}H[12]$"), "2025H1 or 2025H2"),
    PeriodType.Q: (re.compile(r"^\d{4}Q[1-4]$"), "2025Q1 .. 2025Q4"),
    PeriodType.M: (re.compile(r"^\d{4}-(0[1-9]|1[0-2])$"), "2025-01 .. 2025-12"),
}
_PLAIN_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
_GROUPED_NUMBER = re.compile(r"^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$")

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class RowProblem:
    """Something wrong (error) or worth knowing (warning) about one line of the file."""

    line: int
    message: str
    where: str = ""  # a wide table's cell ("sheet PnL, cell C7"): said instead of the line

    def __str__(self) -> str:
        return f"{self.where or f'line {self.line}'}: {self.message}"


@dataclass
class FactFileReport:
    """The good facts of a file plus every problem found, for the CLI to print."""

    path: Path
    facts: list[Fact] = field(default_factory=list)
    errors: list[RowProblem] = field(default_factory=list)
    warnings: list[RowProblem] = field(default_factory=list)
    rows_read: int = 0
    # problems past `max_problems` (read_fact_file): counted, not kept
    more_errors: int = 0
    more_warnings: int = 0
    # (metric, from unit, to unit) -> rows converted at read (core.knowledge.unit_kinds)
    conversions: dict[tuple[str, str, str], int] = field(default_factory=dict)
    # (metric, unit) -> rows kept in another currency than the metric's (never converted)
    own_currency: dict[tuple[str, str], int] = field(default_factory=dict)

    def conversion_lines(self) -> list[str]:
        """"12 rows of REVENUE converted from EUR_K to EUR_M", one per metric and unit; and
        "8 rows of REVENUE kept in CNY_M, their own currency: …"."""
        return [
            f"{n} row{'s' if n != 1 else ''} of {metric} converted from {source} to {target}"
            for (metric, source, target), n in sorted(self.conversions.items())
        ] + [
            f"{n} row{'s' if n != 1 else ''} of {metric} kept in {unit}, their own currency: "
            "never converted, and never added to, ranked with or divided by another "
            "currency's figures"
            for (metric, unit), n in sorted(self.own_currency.items())
        ]

    @property
    def ok(self) -> bool:
        return not self.errors

    def admit(self, validator: _RowValidator, line: int, record: Record,
              max_problems: int | None) -> Fact | None:
        """One row read: its fact, or None with the problem noted (counted past
        `max_problems`); a unit converted or kept in its own currency is counted."""
        self.rows_read += 1
        fact, reasons, converted_from = validator.validate(record)
        if fact is None:
            if max_problems is not None and len(self.errors) >= max_problems:
                self.more_errors += 1
            else:
                self.errors.append(RowProblem(line, "; ".join(reasons),
                                              str(record.get("__where__", ""))))
        elif converted_from:
            counted = (fact.metric, converted_from, fact.unit)
            self.conversions[counted] = self.conversions.get(counted, 0) + 1
        elif validator.units is not None and validator.units.units.get(
                fact.metric, fact.unit) not in ("", fact.unit):
            own = (fact.metric, fact.unit)  # a unit's own currency: kept, counted
            self.own_currency[own] = self.own_currency.get(own, 0) + 1
        return fact

    def summary(self) -> str:
        return (
            f"{self.path.name}: {self.rows_read} rows, {len(self.facts)} valid, "
            f"{len(self.errors)} rejected, {len(self.warnings)} warnings"
        )


def read_fact_file(
    path: Path | str,
    *,
    known_metrics: Collection[str] | None,
    known_entities: Collection[str] | None,
    known_channels: Collection[str] | None,
    progress: Progress | None = None,
    limits: ReadLimits = WORKBOOK_LIMITS,
    units: MetricUnits | None = None,
    max_problems: int | None = None,
) -> FactFileReport:
    """Read and validate a `.csv` or `.xlsx` fact file.

    `known_*` are the glossary codes; `None` accepts any code (upper-cased). TOTAL is always a
    known channel. `units` settles each row's unit (converted or rejected; None: kept as
    written). Raises IngestError when the file as a whole cannot be read (not found, not
    UTF-8, binary, no header, wrong columns, a workbook over `limits`); row-level problems go
    into the report; past `max_problems` of a kind they are only counted (`more_errors`,
    `more_warnings`), so a file of a million bad rows is read in bounded memory.
    """
    path = Path(path)
    total, rows = _file_rows(path, limits)
    return read_records(path, rows, total, known_metrics=known_metrics,
                        known_entities=known_entities, known_channels=known_channels,
                        progress=progress, units=units, max_problems=max_problems)


def read_records(
    path: Path,
    rows: Iterable[tuple[int, Record]],
    total: int,
    *,
    known_metrics: Collection[str] | None,
    known_entities: Collection[str] | None,
    known_channels: Collection[str] | None,
    progress: Progress | None = None,
    units: MetricUnits | None = None,
    max_problems: int | None = None,
) -> FactFileReport:
    """Validate records of the fact-table columns, from a file or from a declared source
    (storage.wide_files, storage.sql_sources): one set of rules for every way figures come in.
    A record's `__where__` (a cell) is where its problems are said to be."""
    validator = _validator(known_metrics, known_entities, known_channels, units)
    report = FactFileReport(path=path)
    kept: dict[tuple[str, ...], tuple[int, Fact]] = {}
    for done, (line, record) in enumerate(rows, start=1):
        fact = report.admit(validator, line, record, max_problems)
        if fact is not None:
            where = str(record.get("__where__", ""))
            key = (fact.metric, fact.entity, fact.period.type, fact.period.value, fact.channel)
            earlier = kept.pop(key, None)
            if earlier is not None and max_problems is not None and len(
                    report.warnings) >= max_problems:
                report.more_warnings += 1
            elif earlier is not None:
                report.warnings.append(
                    RowProblem(
                        line,
                        f"duplicate of line {earlier[0]} ({_key_text(fact)}); this later row wins",
                        where,
                    )
                )
            kept[key] = (line, fact)
        if progress is not None and done % _PROGRESS_EVERY == 0:
            progress(done, max(total, done))
    report.facts = [fact for _line, fact in sorted(kept.values(), key=lambda item: item[0])]
    if progress is not None:
        progress(report.rows_read, report.rows_read)
    return report


def stream_fact_file(
    path: Path | str,
    *,
    known_metrics: Collection[str] | None,
    known_entities: Collection[str] | None,
    known_channels: Collection[str] | None,
    progress: Progress | None = None,
    limits: ReadLimits = WORKBOOK_LIMITS,
    units: MetricUnits | None = None,
    max_problems: int = 1000,
) -> tuple[FactFileReport, Iterator[Fact]]:
    """`read_fact_file` for a load of any size (`ricorda ingest`): the file is opened and its
    header checked now (IngestError), then each valid fact is yielded as its row is read, in
    file order, never held; the report fills as the facts are drawn (`report.facts` stays
    empty) and is complete once they all are.

    A key repeated in the file is yielded each time, so the last row wins where they are
    stored (storage.fact_store upserts them in order); each repeat is warned about once the
    last row is read, from a 16-byte-per-row index of the keys' hashes (a 64-bit hash: two
    different keys taken for one would cost a wrong warning, never a figure). Problems past
    `max_problems` of a kind are counted, not kept, so a million bad rows are read in bounded
    memory too. A file that cannot be read to its end raises IngestError from the iterator:
    drawn inside the loading transaction, nothing of it is stored.
    """
    path = Path(path)
    total, rows = _file_rows(path, limits)
    validator = _validator(known_metrics, known_entities, known_channels, units)
    report = FactFileReport(path=path)

    def facts() -> Iterator[Fact]:
        keys = _KeyLines()
        for done, (line, record) in enumerate(rows, start=1):
            fact = report.admit(validator, line, record, max_problems)
            if fact is not None:
                keys.add(hash((fact.metric, fact.entity, fact.period.type.value,
                               fact.period.value, fact.channel)), line)
                yield fact
            if progress is not None and done % _PROGRESS_EVERY == 0:
                progress(done, max(total, done))
        for line, earlier in keys.repeats():
            if len(report.warnings) >= max_problems:
                report.more_warnings += 1
            else:
                report.warnings.append(RowProblem(
                    line, f"duplicate of line {earlier} (the same metric, entity, period and "
                    "channel); this later row wins"))
        if progress is not None:
            progress(report.rows_read, report.rows_read)

    return report, facts()


def _file_rows(path: Path, limits: ReadLimits) -> tuple[int, Iterable[tuple[int, Record]]]:
    """(row count estimate, numbered records) of a `.csv` or `.xlsx` fact file."""
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return _csv_rows(path)
    if suffix == ".xlsx":
        return _xlsx_rows(path, limits)
    raise IngestError(f"{path.name}: unsupported fact file type {suffix!r}; use .csv or .xlsx")


def _validator(known_metrics: Collection[str] | None, known_entities: Collection[str] | None,
               known_channels: Collection[str] | None,
               units: MetricUnits | None) -> _RowValidator:
    return _RowValidator(
        metrics=_Codes("metric", known_metrics),
        entities=_Codes("entity", known_entities),
        channels=_Codes("channel", known_channels, always=(TOTAL_CHANNEL,)),
        units=units,
    )


class _KeyLines:
    """Each valid row's key hash and line, 16 bytes a row (numpy arrays filled block by block),
    for the repeats found once the file is read."""

    _BLOCK = 65_536

    def __init__(self) -> None:
        import numpy as np

        self._np = np
        self._done: list[Any] = []
        self._block = np.empty((self._BLOCK, 2), dtype=np.int64)
        self._n = 0

    def add(self, key_hash: int, line: int) -> None:
        self._block[self._n] = (key_hash, line)
        self._n += 1
        if self._n == self._BLOCK:
            self._done.append(self._block)
            self._block = self._np.empty((self._BLOCK, 2), dtype=self._np.int64)
            self._n = 0

    def repeats(self) -> list[tuple[int, int]]:
        """(line, the line of the same key's row before it), in line order."""
        np = self._np
        table = np.concatenate([*self._done, self._block[: self._n]])
        self._done, self._block = [], self._block[:0]
        if len(table) < 2:
            return []
        order = np.lexsort((table[:, 1], table[:, 0]))  # by hash, then line
        hashes, lines = table[order, 0], table[order, 1]
        again = np.flatnonzero(hashes[1:] == hashes[:-1]) + 1
        return sorted((int(lines[i]), int(lines[i - 1])) for i in again)


# --- file formats --------------------------------------------------------------------------

Record = dict[str, Any]


def _csv_rows(path: Path) -> tuple[int, Iterator[tuple[int, Record]]]:
    """Rows streamed from the file: a large export is never held whole in memory (a 20 MB file
    as bytes, text and parsed cells at once took ~250 MB more than the facts themselves)."""
    try:
        with path.open("rb") as raw:
            head = raw.read(8192)
            total = _count_lines(raw, head)
        if b"\x00" in head:
            raise IngestError(f"{path.name}: looks like a binary file, not a UTF-8 CSV")
        fh = path.open(encoding="utf-8-sig", newline="")
    except OSError as exc:
        raise IngestError(f"{path.name}: cannot read the file ({exc.strerror or exc})") from exc
    reader = csv.reader(fh)
    try:
        header = _csv_next(path, reader)
        if header is None or not any(cell.strip() for cell in header):
            raise IngestError(f"{path.name}: no header; the first line must be {','.join(COLUMNS)}")
        positions = _check_header(path, header)
    except IngestError:
        fh.close()
        raise

    def rows() -> Iterator[tuple[int, Record]]:
        with fh:
            last_line = reader.line_num
            while (cells := _csv_next(path, reader)) is not None:
                start, last_line = last_line + 1, reader.line_num
                if any(cell.strip() for cell in cells):
                    yield start, _record(cells, positions)

    return max(total - 1, 0), rows()


def _bad_byte(path: Path) -> str:
    """Where the first byte that is not UTF-8 is (the text reader decodes 8 KB ahead, so its
    own position is not precise): read again, once, on this error path only."""
    data = path.read_bytes()
    bom = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    try:
        data[bom:].decode("utf-8")
    except UnicodeDecodeError as exc:
        at = bom + exc.start
        line = data.count(b"\n", 0, at) + 1
        return f"byte 0x{data[at]:02x} on line {line}, offset {at}"
    return "a byte that is not UTF-8"


def _count_lines(fh: BinaryIO, head: bytes) -> int:
    """Lines in the file (for the progress bar), counted in 1 MB blocks."""
    lines = head.count(b"\n")
    while block := fh.read(1 << 20):
        lines += block.count(b"\n")
    return lines


def _csv_next(path: Path, reader: Any) -> list[str] | None:
    """The next row; a decoding or CSV syntax problem is an IngestError naming the line."""
    try:
        return next(reader, None)
    except UnicodeDecodeError as exc:
        raise IngestError(f"{path.name}: not UTF-8 text ({_bad_byte(path)}); save the file as "
                          "CSV UTF-8") from exc
    except csv.Error as exc:
        raise IngestError(f"{path.name}: line {reader.line_num}: malformed CSV ({exc})") from exc


def _xlsx_rows(path: Path, limits: ReadLimits) -> tuple[int, Iterator[tuple[int, Record]]]:
    import zipfile

    from openpyxl import load_workbook
    from openpyxl.utils.exceptions import InvalidFileException

    check_zip(path, limits)  # before openpyxl unpacks anything
    deadline = Deadline(path, limits)
    try:
        workbook = load_workbook(path, read_only=True, data_only=True)
    except FileNotFoundError as exc:
        raise IngestError(f"{path.name}: file not found") from exc
    except (zipfile.BadZipFile, InvalidFileException, KeyError, OSError, ValueError) as exc:
        raise IngestError(f"{path.name}: not a readable .xlsx workbook ({exc})") from exc
    except Exception as exc:  # corrupt deflate data, bad XML...: a broken upload, not a crash
        reason = exc.__class__.__name__
        raise IngestError(f"{path.name}: corrupt .xlsx workbook ({reason})") from exc
    sheet = workbook.worksheets[0]
    cells_iter = _corrupt_as_ingest_error(path, sheet.iter_rows(values_only=True))
    try:
        first = next(cells_iter, None)
    except IngestError:
        workbook.close()
        raise
    header = [_header_text(v) for v in first] if first else []
    if not any(header):
        workbook.close()
        raise IngestError(
            f"{path.name}: no header on the first sheet; row 1 must be {','.join(COLUMNS)}"
        )
    try:
        positions = _check_header(path, header)
    except IngestError:
        workbook.close()
        raise
    max_row = sheet.max_row
    total = max_row - 1 if max_row else 0

    def rows() -> Iterator[tuple[int, Record]]:
        try:
            for line, values in enumerate(cells_iter, start=2):
                if line % _PROGRESS_EVERY == 0:
                    deadline.check()
                if any(v is not None and str(v).strip() for v in values):
                    away = deadline.clock()
                    yield line, _record(list(values), positions)
                    # a streamed load writes between rows: that time is not reading the file
                    deadline.ends += deadline.clock() - away
        finally:
            workbook.close()

    return total, rows()


def _corrupt_as_ingest_error(path: Path, rows: Iterator[Any]) -> Iterator[Any]:
    """Sheet rows are decompressed and parsed lazily: a corrupt part fails mid-iteration."""
    try:
        yield from rows
    except Exception as exc:
        reason = exc.__class__.__name__
        raise IngestError(f"{path.name}: corrupt .xlsx workbook ({reason})") from exc


def _header_text(value: Any) -> str:
    return "" if value is None else str(value)


def _check_header(path: Path, header: Sequence[str]) -> dict[str, int]:
    """Map column name -> position; name every missing, unexpected or repeated column."""
    names = [cell.strip().lower() for cell in header]
    while names and not names[-1]:
        names.pop()
    positions: dict[str, int] = {}
    repeated: list[str] = []
    for i, name in enumerate(names):
        if name in positions:
            repeated.append(name)
        positions[name] = i
    missing = [c for c in COLUMNS if c not in positions]
    extra = [n or f"(empty, column {i + 1})" for i, n in enumerate(names) if n not in COLUMNS]
    if missing or extra or repeated:
        parts = []
        if missing:
            parts.append("missing columns: " + ", ".join(missing))
        if extra:
            parts.append("unexpected columns: " + ", ".join(extra))
        if repeated:
            parts.append("repeated columns: " + ", ".join(repeated))
        raise IngestError(
            f"{path.name}: bad header ({'; '.join(parts)}); expected {','.join(COLUMNS)}"
        )
    return positions


def _record(cells: Sequence[Any], positions: dict[str, int]) -> Record:
    record: Record = {name: cells[i] if i < len(cells) else None for name, i in positions.items()}
    width = len(positions)
    extra = [c for c in cells[width:] if c is not None and str(c).strip()]
    if extra:
        record["__extra__"] = len(cells)
    elif len(cells) < width:
        record["__short__"] = len(cells)
    return record


# --- row validation ------------------------------------------------------------------------


class _Codes:
    """Case-insensitive match of a code against the glossary's codes."""

    def __init__(
        self, kind: str, known: Collection[str] | None, always: Sequence[str] = ()
    ) -> None:
        self.kind = kind
        self.known: dict[str, str] | None = None
        if known is not None:
            self.known = {c.casefold(): c.upper() for c in (*known, *always)}

    def match(self, raw: str) -> tuple[str | None, str | None]:
        """(code, None) on success, (None, reason) otherwise."""
        if not raw:
            return None, f"{self.kind} is empty"
        if self.known is None:
            return raw.upper(), None
        code = self.known.get(raw.casefold())
        if code is not None:
            return code, None
        close = difflib.get_close_matches(raw.upper(), list(self.known.values()), n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        return None, f"unknown {self.kind} {raw!r}{hint}"


@dataclass
class _RowValidator:
    metrics: _Codes
    entities: _Codes
    channels: _Codes
    units: MetricUnits | None = None

    def validate(self, record: Record) -> tuple[Fact | None, list[str], str]:
        """The fact, or None and every reason; and the unit the row was converted from."""
        reasons: list[str] = []
        if "__extra__" in record:
            reasons.append(f"{record['__extra__']} fields, expected {len(COLUMNS)}")
        if "__short__" in record:
            reasons.append(f"only {record['__short__']} fields, expected {len(COLUMNS)}")

        def code(codes: _Codes, raw: Any) -> str | None:
            found, reason = codes.match(_text(raw))
            if reason:
                reasons.append(reason)
            return found

        metric = code(self.metrics, record["metric"])
        entity = code(self.entities, record["entity"])
        channel_raw = _text(record["channel"])
        channel = code(self.channels, channel_raw) if channel_raw else TOTAL_CHANNEL
        period = _period(record["period_type"], record["period"], reasons)
        value = _value(record["value"], reasons)
        source_doc = _text(record["source_doc"])
        if not source_doc:
            reasons.append("source_doc is empty (every number needs its source)")
        unit = _text(record["unit"])
        settled: RowUnit | str | None = None
        if self.units is not None and metric is not None and value is not None:
            settled = self.units.settle(metric, unit, value)
            if isinstance(settled, str):
                reasons.append(settled)
            else:
                value, unit = settled.value, settled.unit
                value = _bounded(value, f"{value} {unit}"[:40], reasons)
        if reasons or None in (metric, entity, channel, period, value):
            return None, reasons, ""
        fact = Fact(
            metric=metric,  # type: ignore[arg-type]
            entity=entity,  # type: ignore[arg-type]
            period=period,  # type: ignore[arg-type]
            channel=channel,  # type: ignore[arg-type]
            value=value,  # type: ignore[arg-type]
            unit=unit,
            source=Source(source_doc, _text(record["source_locator"])),
        )
        return fact, [], settled.converted_from if isinstance(settled, RowUnit) else ""


def _text(raw: Any) -> str:
    """A cell as text: spreadsheets give ints/floats/dates where a CSV gives strings."""
    if raw is None:
        return ""
    if isinstance(raw, bool):
        return str(raw).upper()
    if isinstance(raw, float) and raw.is_integer():
        return str(int(raw))
    if isinstance(raw, dt.datetime | dt.date):
        return raw.isoformat()
    return str(raw).strip()


def _period(raw_type: Any, raw_value: Any, reasons: list[str]) -> Period | None:
    type_text = _text(raw_type)
    try:
        ptype = PeriodType(type_text.upper())
    except ValueError:
        reasons.append(f"period_type {type_text!r} is not one of FY, HY, Q, M")
        return None
    if isinstance(raw_value, dt.datetime | dt.date) and ptype is PeriodType.M:
        written = f"{raw_value.year:04d}-{raw_value.month:02d}"  # Excel turned 2025-03 into a date
    else:
        written = _text(raw_value)
    value = written.upper()
    pattern, example = _PERIOD_FORMS[ptype]
    if not pattern.match(value):
        reasons.append(
            f"period {written!r} does not fit period_type {ptype.value} (expected {example})"
        )
        return None
    return Period(ptype, value)


def _value(raw: Any, reasons: list[str]) -> Decimal | None:
    if isinstance(raw, bool | dt.datetime | dt.date):
        reasons.append(f"value {raw!r} is not a number")
        return None
    if isinstance(raw, int):
        return _bounded(Decimal(raw), str(raw)[:40], reasons)
    if isinstance(raw, float):
        if not math.isfinite(raw):
            reasons.append(f"value {raw!r} is not a number")
            return None
        # shortest repr: 0.1 stays 0.1, not 0.1000000000000000055
        return _bounded(Decimal(repr(raw)), repr(raw), reasons)
    text = _text(raw)
    if not text:
        reasons.append("value is empty")
        return None
    if _GROUPED_NUMBER.match(text):
        text = text.replace(",", "")
    elif "," in text:
        reasons.append(
            f"value {text!r}: a comma is only accepted as a thousands separator; "
            "write decimals with a dot"
        )
        return None
    if not _PLAIN_NUMBER.match(text):
        reasons.append(f"value {text!r} is not a number")
        return None
    try:
        value = Decimal(text)
    except InvalidOperation:  # an exponent beyond what a decimal can hold
        reasons.append(f"value {text[:40]!r}: {_TOO_LARGE}")
        return None
    return _bounded(value, text[:40], reasons)


_TOO_LARGE = f"too large (at most {MAX_INTEGER_DIGITS} digits before the decimal point)"


def _bounded(value: Decimal, shown: str, reasons: list[str]) -> Decimal | None:
    """`value` when it fits the bounds of the module docstring, else None and the reason.
    Checked on the decimal's exponent and digit count, without ever expanding it."""
    _sign, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int)  # finite: NaN and infinities were rejected before
    if value and value.adjusted() >= MAX_INTEGER_DIGITS:
        reasons.append(f"value {shown!r}: {_TOO_LARGE}")
        return None
    if exponent < -MAX_DECIMALS:
        reasons.append(
            f"value {shown!r}: more than {MAX_DECIMALS} decimal places "
            "(too small or too precise to keep exactly)"
        )
        return None
    significant = len(digits) - next((i for i, d in enumerate(digits) if d), len(digits))
    if significant > MAX_DIGITS:
        reasons.append(
            f"value {shown!r}: {significant} significant digits, at most {MAX_DIGITS} are kept "
            "exactly"
        )
        return None
    return value


def _key_text(fact: Fact) -> str:
    return (
        f"{fact.metric}/{fact.entity}/{fact.period.type.value} {fact.period.value}/{fact.channel}"
    )
