"""A report table as it is (line items down, periods across) read into fact-table records.

Pure: a grid of cells in, records of the long fact-table columns out, with every problem at
its cell; the readers (storage.wide_files, storage.sql_sources) supply the grid and validate
the records like any fact row (storage.fact_files), so a wide table obeys exactly the rules
of a long one. What a finance table writes is read as it means it:

- headers "2019", "FY2019", "FY19", "Year ended 31 December 2019", "Q3 2024", "2024Q3",
  "H1 2024", "3M 2024" / "6M 2024" / "12M 2024" (year to date), "Three months ended 31 March
  2024", "As at 31 December 2019", "March 2024", a date cell; any other header is not a period
  and its column is skipped (said once);
- "(1,234)" is -1234, "—", "-", "n/a" and an empty cell are no figure, "$", "€", "%" and
  spaces inside a number are dropped, footnote markers ("Revenue (1)", "1,234*", "²") too;
- "in thousands" / "in millions" / "(000s)" above the table scales the declared unit;
- a row with a label and no figure is a section heading ("Operating expenses"), so a mapping
  may say "Operating expenses / Total" for the "Total" inside it; blank rows are skipped.

Each record cites its cell: `sheet=PnL;row=Revenue;col=FY2019;cell=C7`.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.contracts.fact_sources import ROWS_DOWN, WideLayout
from core.contracts.types import Period, PeriodType

Cell = tuple[Any, str]  # (value, reference like "C7")
_SCALE_SUFFIX = {"thousands": "_K", "millions": "_M", "billions": "_B"}
_HEADER_SEARCH = 30  # rows searched for the period headers when header_row is not given

_MONTHS = {m.lower(): i for i, m in enumerate(calendar.month_name) if m}
_MONTHS |= {m.lower(): i for i, m in enumerate(calendar.month_abbr) if m}
_MONTHS["sept"] = 9
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_FOOTNOTE = re.compile(r"(\s*(\(\s*[0-9a-z]\s*\)|\[\s*[0-9a-z]+\s*\]|[*†‡§¹²³⁴⁵⁶⁷⁸⁹⁰]+))+$")
_NO_FIGURE = {"", "-", "—", "–", "--", "n/a", "na", "nm", "n.m.", "—%", "-%", "nil"}
_YEAR = r"((?:19|20)\d\d)"
_FORMS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(rf"^(?:fy|f)\s?'?{_YEAR}$"), "fy"),
    (re.compile(r"^fy\s?'?(\d\d)$"), "fy2"),
    (re.compile(rf"^{_YEAR}(?:\s?a|\s?e)?$"), "fy"),
    (re.compile(rf"^q([1-4])\s?(?:fy)?'?{_YEAR}$"), "q"),
    (re.compile(rf"^{_YEAR}\s?-?\s?q([1-4])$"), "yq"),
    (re.compile(rf"^([1-4])q\s?'?{_YEAR}$"), "q"),
    (re.compile(rf"^h([12])\s?(?:fy)?'?{_YEAR}$"), "h"),
    (re.compile(rf"^{_YEAR}\s?-?\s?h([12])$"), "yh"),
    (re.compile(rf"^(\d{{1,2}})m\s?'?{_YEAR}$"), "ytd"),
    (re.compile(rf"^{_YEAR}-(0[1-9]|1[0-2])$"), "ym"),
]
_ENDED = re.compile(
    r"^(?:(?:fiscal\s+)?years?|twelve\s+months|12\s+months|(?P<q>three\s+months|3\s+months|"
    r"quarters?)|(?P<h>six\s+months|6\s+months|half[\s-]years?))\s+ended\s+(?P<day>.+)$")
_AS_AT = re.compile(r"^(?:as\s+(?:at|of)|at|balance\s+at)\s+(?P<day>.+)$")
_DAY_FORMS = [
    re.compile(rf"^(?P<d>\d{{1,2}})\s+(?P<m>{_MONTH})\.?,?\s+{_YEAR}$"),
    re.compile(rf"^(?P<m>{_MONTH})\.?\s+(?P<d>\d{{1,2}}),?\s+{_YEAR}$"),
    re.compile(rf"^{_YEAR}-(?P<mn>\d\d)-(?P<d>\d\d)$"),
]
_MONTH_YEAR = re.compile(rf"^(?P<m>{_MONTH})\.?,?\s+'?{_YEAR}$")
_SCALES = [
    (re.compile(r"\bin\s+thousands\b|\(\s*'?000s?\s*\)|\b000s\b|'000|\bin\s+migliaia\b"),
     "thousands"),
    (re.compile(r"\bin\s+millions\b|\bin\s+milioni\b|\bin\s+mln\b"), "millions"),
    (re.compile(r"\bin\s+billions\b|\bin\s+miliardi\b"), "billions"),
]


def clean_label(text: Any) -> str:
    """A label or header without its footnote markers and with its spacing collapsed."""
    if text is None:
        return ""
    out = " ".join(str(text).split())
    return _FOOTNOTE.sub("", out).strip()


def label_key(label: str) -> str:
    """A row label as labels are matched: footnote markers dropped, case and spacing ignored."""
    return " ".join(clean_label(label).casefold().split())


def proposed_code(label: str) -> str:
    """"Total revenue (1)" -> TOTAL_REVENUE: the metric code a row label loads as when no
    mapping is given, and the one `init` proposes."""
    words = re.findall(r"[A-Za-z0-9]+", clean_label(label).replace("&", " and "))
    code = "_".join(w.upper() for w in words)
    if not code:
        return ""
    return code if code[0].isalpha() else "M_" + code


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def header_period(value: Any, fiscal_year_end: str) -> Period | str | None:
    """The period a column header names, None when it names none, or why it cannot be one
    (a year ending on another day than the company's, nine months)."""
    if isinstance(value, dt.datetime):
        value = value.date()
    if isinstance(value, dt.date):
        return _ending(value, fiscal_year_end, "")
    text = clean_label(_text(value)).casefold().rstrip(",:")
    if not text:
        return None
    for pattern, kind in _FORMS:
        m = pattern.match(text)
        if m:
            return _form(kind, m.groups(), fiscal_year_end, clean_label(_text(value)))
    for pattern, kind in ((_ENDED, "ended"), (_AS_AT, "at")):
        m = pattern.match(text)
        if m:
            day = _day(m["day"].strip().rstrip(",:"))
            if day is None:
                return f"{_text(value)!r} names no day this table can read (like 31 December 2019)"
            want = "Q" if kind == "ended" and m["q"] else "HY" if kind == "ended" and m["h"] \
                else "FY" if kind == "ended" else ""
            return _ending(day, fiscal_year_end, want)
    day = _day(text)
    if day is not None:
        return _ending(day, fiscal_year_end, "")
    m = _MONTH_YEAR.match(text)
    if m:
        return Period(PeriodType.M, f"{m.group(2)}-{_MONTHS[m['m']]:02d}")
    return None


def _form(kind: str, groups: Sequence[str], fye: str, text: str) -> Period | str:
    if kind == "fy":
        return Period(PeriodType.FY, groups[0])
    if kind == "fy2":
        return Period(PeriodType.FY, f"20{groups[0]}")
    if kind in ("q", "h"):
        return Period(PeriodType.Q if kind == "q" else PeriodType.HY,
                      f"{groups[1]}{'Q' if kind == 'q' else 'H'}{groups[0]}")
    if kind in ("yq", "yh"):
        return Period(PeriodType.Q if kind == "yq" else PeriodType.HY,
                      f"{groups[0]}{'Q' if kind == 'yq' else 'H'}{groups[1]}")
    if kind == "ym":
        return Period(PeriodType.M, f"{groups[0]}-{groups[1]}")
    months, year = int(groups[0]), groups[1]  # year to date: 3M, 6M, 12M
    made = {3: Period(PeriodType.Q, f"{year}Q1"), 6: Period(PeriodType.HY, f"{year}H1"),
            12: Period(PeriodType.FY, year)}.get(months)
    return made or (f"{text!r}: {months} months from the start of the year is not a period "
                    "the fact table holds (3M, 6M and 12M are: a quarter, a half, a year)")


def _day(text: str) -> dt.date | None:
    for pattern in _DAY_FORMS:
        m = pattern.match(text)
        if m:
            groups = m.groupdict()
            month = int(groups["mn"]) if groups.get("mn") else _MONTHS[groups["m"]]
            year = int(next(g for g in m.groups() if g and len(g) == 4 and g.isdigit()))
            try:
                return dt.date(year, month, int(groups["d"]))
            except ValueError:
                return None
    return None


def _year_end(year: int, fye: str) -> dt.date:
    month, day = (int(p) for p in fye.split("-"))
    return dt.date(year, month, min(day, calendar.monthrange(year, month)[1]))


def _ending(day: dt.date, fye: str, want: str) -> Period | str:
    """The period ending on `day`: the fiscal year, else a half, a quarter, a month
    (`want` asks for one kind: "Year ended" is a year or an error, never a quarter)."""
    fy = day.year if day <= _year_end(day.year, fye) else day.year + 1
    end = _year_end(fy, fye)
    month_end = day.day == calendar.monthrange(day.year, day.month)[1]
    months_before = (end.year - day.year) * 12 + end.month - day.month
    found: list[Period] = []
    if day == end:
        found.append(Period(PeriodType.FY, str(fy)))
    if month_end and end.day == calendar.monthrange(end.year, end.month)[1]:
        if months_before % 6 == 0:
            found.append(Period(PeriodType.HY, f"{fy}H{2 - months_before // 6}"))
        if months_before % 3 == 0:
            found.append(Period(PeriodType.Q, f"{fy}Q{4 - months_before // 3}"))
        found.append(Period(PeriodType.M, f"{day.year}-{day.month:02d}"))
    for p in found:
        if not want or p.type.value == want:
            return p
    what = {"FY": "fiscal year", "HY": "half year", "Q": "quarter", "": "period"}[want]
    return (f"{day.isoformat()} ends no {what} of a company whose year ends {fye} (set "
            "fiscal_year_end in [scope] if the company's year ends then)")


def detect_scale(texts: Sequence[str]) -> str:
    """"thousands" when the title or header says "in thousands" ("(000s)", "'000"), etc."""
    for text in texts:
        low = text.casefold()
        for pattern, scale in _SCALES:
            if pattern.search(low):
                return scale
    return ""


def figure_text(value: Any) -> Any:
    """A cell's figure as the fact reader takes it, or None for no figure: "(1,234)" ->
    "-1,234", "$ 1,234*" -> "1,234", "—" -> None; numbers pass unchanged."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return value
    text = clean_label(value).replace("\u2212", "-").replace("\u00a0", " ")
    if text.casefold() in _NO_FIGURE:
        return None
    text = re.sub(r"[$€£¥%]|\b(?:usd|eur|gbp|rmb|cny)\b", "", text, flags=re.IGNORECASE).strip()
    negative = text.startswith("(") and text.endswith(")")
    if negative:
        text = text[1:-1].strip()
    text = text.replace(" ", "")
    if text in _NO_FIGURE:
        return None
    return f"-{text}" if negative and not text.startswith("-") else text


@dataclass
class WideResult:
    """Records of the fact-table columns, each with the cell it came from, and the problems."""

    records: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    errors: list[tuple[int, str, str]] = field(default_factory=list)  # (row, where, why)
    warnings: list[tuple[int, str, str]] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)  # every line item's label, in order
    sections: list[str] = field(default_factory=list)  # the section heading above each label
    header_texts: list[str] = field(default_factory=list)  # the period headers as written
    periods: list[Period] = field(default_factory=list)
    scale: str = ""  # the scale the table states ("thousands"), "" when none
    header: int = 0  # 1-based row (of the grid as read) of the period headers; 0: none found


def wide_records(grid: Sequence[Sequence[Cell]], layout: WideLayout, *, doc: str, sheet: str,
                 fiscal_year_end: str, known_metrics: Collection[str] | None,
                 unit_of: Callable[[str, str], str], table: int = 0,
                 metric_names: Mapping[str, str] | None = None) -> WideResult:
    """Read `grid` (rows of (value, ref) cells) as `layout` says.

    `known_metrics` None accepts every label (its proposed code); with no mapping declared, a
    label that is one of a metric's names (`metric_names`: label_key(name) -> code) is that
    metric; `unit_of(metric, table unit)` is the unit a line item's figures are written in."""
    out = WideResult()
    if layout.periods == ROWS_DOWN:  # line items across: read the transpose
        width = max((len(r) for r in grid), default=0)
        grid = [[r[c] if c < len(r) else (None, "") for r in grid] for c in range(width)]
    where0 = f"sheet {sheet}, " if sheet else f"table {table}, " if table else ""
    located = _header(grid, layout, fiscal_year_end, out, where0)
    if located is None:
        return out
    h, columns = located
    out.header = h + 1
    first = min(columns)
    out.scale = layout.scale or detect_scale(
        [_text(v) for row in grid[: h + 1] for v, _ in row if isinstance(v, str)])
    unit = layout.unit
    suffix = _SCALE_SUFFIX.get(out.scale, "")
    if unit and suffix and not re.search(r"_(K|M|B|BN)$", unit):
        unit += suffix
    elif out.scale and not unit:
        out.errors.append((h + 1, f"{where0}row {h + 1}",
                           f"the table says its figures are in {out.scale} but no unit is "
                           'declared: add unit = "USD" (or the currency) to its [[facts]] entry'))
        return out
    section = ""
    matched: set[str] = set()
    seen: dict[str, int] = {}
    skipped: list[str] = []
    for r in range(h + 1, len(grid)):
        row = grid[r]
        label_cell = next(((v, ref) for v, ref in row[:first] if clean_label(_text(v))), None)
        label = clean_label(_text(label_cell[0])) if label_cell else ""
        figures = [(c, figure_text(row[c][0]) if c < len(row) else None) for c in columns]
        figures = [(c, v) for c, v in figures if v is not None and str(v).strip()]
        line = r + 1
        if not figures:
            if label:
                section = label
            continue
        ref0 = row[figures[0][0]][1]
        if not label:
            out.warnings.append((line, f"{where0}cell {ref0}", "figures with no row label: not "
                                 "loaded (give the row a label to load it)"))
            continue
        out.labels.append(label)
        out.sections.append(section)
        metric, row_unit = _metric(label, section, layout, matched)
        if not layout.metrics and metric_names:
            metric = metric_names.get(label_key(label), metric)
        if known_metrics is not None and not layout.metrics and metric not in known_metrics:
            skipped.append(f"{label!r} ({metric})")
            continue
        if not metric:
            continue
        if metric in seen:
            out.warnings.append((line, f"{where0}row {line}", f"{label!r} is {metric} again "
                                 f"(first on row {seen[metric]}); this later row wins"))
        seen[metric] = line
        for c, value in figures:
            ref = row[c][1]
            header = columns[c][1]
            locator = ";".join(p for p in (
                f"sheet={_safe(sheet)}" if sheet else "", f"table={table}" if table else "",
                f"row={_safe(label)}",
                f"col={_safe(header)}", f"cell={ref}" if ref else "") if p)
            period = columns[c][0]
            out.records.append((line, {
                "metric": metric, "entity": layout.entity,
                "period_type": period.type.value, "period": period.value,
                "channel": layout.channel, "value": value,
                "unit": row_unit or unit_of(metric, unit), "source_doc": doc,
                "source_locator": locator, "__where__": f"{where0}cell {ref}" if ref else
                f"row {label!r}, column {header!r}"}))
    missing = [k for k in layout.metrics if k not in matched]
    if missing:
        out.errors.append((h + 1, f"{where0}metrics", "no row has the label(s) " + ", ".join(
            repr(k) for k in missing) + "; the labels are " + ", ".join(
            repr(x) for x in out.labels[:20])))
    if skipped:
        out.warnings.append((h + 1, f"{where0}rows", "not loaded, no metric of the glossary: "
                             + ", ".join(skipped[:20]) + (" …" if len(skipped) > 20 else "")
                             + "; add them to [metrics] or map the labels in metrics = {...}"))
    return out


def _safe(text: str) -> str:
    """A label or header inside a locator, whose parts are split at ';' and read '='."""
    return text.replace(";", ",").replace("=", " ")


def _metric(label: str, section: str, layout: WideLayout,
            matched: set[str]) -> tuple[str, str]:
    if not layout.metrics:
        return proposed_code(label), ""
    for key in (label_key(f"{section} / {label}") if section else "", label_key(label)):
        if key and key in layout.metrics:
            matched.add(key)
            target = layout.metrics[key]
            return target.metric, target.unit
    return "", ""


def _header(grid: Sequence[Sequence[Cell]], layout: WideLayout, fye: str, out: WideResult,
            where0: str) -> tuple[int, dict[int, tuple[Period, str]]] | None:
    """(row index, {column: (period, header text)}) of the period headers."""
    rows = [layout.header_row - 1] if layout.header_row else range(min(len(grid),
                                                                       _HEADER_SEARCH))
    for h in rows:
        if h >= len(grid):
            break
        columns: dict[int, tuple[Period, str]] = {}
        notes: list[tuple[int, str, str]] = []
        for c, (value, ref) in enumerate(grid[h]):
            if c == 0:
                continue
            found = header_period(value, fye)
            shown = clean_label(_text(value.date() if isinstance(value, dt.datetime) else value))
            if isinstance(found, Period):
                columns[c] = (found, shown)
            elif isinstance(found, str):
                notes.append((h + 1, f"{where0}cell {ref}", found))
            elif shown:
                notes.append((h + 1, f"{where0}cell {ref}",
                              f"header {shown!r} is not a period: its column is skipped"))
        if columns:
            out.periods = [p for p, _ in columns.values()]
            out.header_texts = [t for _, t in columns.values()]
            out.warnings += [n for n in notes if "is not a period" in n[2]]
            out.errors += [n for n in notes if "is not a period" not in n[2]]
            return h, columns
        if layout.header_row:
            out.errors.append((h + 1, f"{where0}row {h + 1}", "header_row has no period header "
                               "(like 2019, FY2019, Q3 2024 or Year ended 31 December 2019)"))
            return None
    out.errors.append((1, f"{where0}header", f"no row among the first {_HEADER_SEARCH} has period "
                       "headers (like 2019, FY2019, Q3 2024, Year ended 31 December 2019); "
                       "give header_row = N in the [[facts]] entry"))
    return None
