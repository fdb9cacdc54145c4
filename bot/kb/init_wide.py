"""`ricorda init report.xlsx`: a starter glossary from a report table as it is.

When the file is not a long fact table (its header is not metric, entity, period ...), init
reads it as a wide one (core.knowledge.wide_tables): every sheet with period headers becomes a
`[[facts]]` entry, and every line item a metric whose code is proposed from its label
("Total revenue (1)" -> TOTAL_REVENUE) and whose first name is the label itself, mapped
explicitly in `[facts.metrics]` so the declaration says what each row loads as. A label met
twice ("Total" under two headings) is mapped by "Heading / Label". The scale the table states
("in thousands") and the fiscal year end its headers name ("Year ended 30 June 2019") are
used; the currency is left for the reader to fill in (a TODO comment), since a table rarely
says it in a way worth guessing.
"""

from __future__ import annotations

import re
from pathlib import Path

import tomlkit

from core.contracts.errors import IngestError
from core.contracts.fact_sources import FactSource, WideLayout
from core.knowledge.glossary import parse_glossary
from core.knowledge.wide_tables import proposed_code, wide_records
from storage.wide_files import read_grid

ENTITY = "COMPANY"
_GENERIC = {"total", "subtotal", "sub-total", "other", "others", "net", "total net"}
_ENDED = re.compile(r"ended\s+(\d{1,2})\s+([a-z]+)|ended\s+([a-z]+)\.?\s+(\d{1,2})", re.I)


def wide_starter(table: Path, *, out: Path | None = None) -> str:
    """The glossary text declaring every sheet of `table` that has period headers."""
    from openpyxl import load_workbook

    sheets = [""]
    if table.suffix.lower() == ".xlsx":
        try:
            workbook = load_workbook(table, read_only=True)
            sheets = list(workbook.sheetnames)
            workbook.close()
        except Exception as exc:
            raise IngestError(f"{table.name}: not a readable .xlsx workbook "
                              f"({exc.__class__.__name__})") from None
    fy_end = "12-31"
    found: list[tuple[str, list[tuple[str, str]], str]] = []  # (sheet, [(key, code)], scale)
    codes: dict[str, str] = {}  # code -> label (its display name)
    problems: list[str] = []
    for sheet in sheets:
        source = FactSource(table.name, 0, path=table.resolve(), sheet=sheet,
                            wide=WideLayout(ENTITY, unit="USD"))
        try:
            grid, _merged, _title = read_grid(source)
        except IngestError as exc:
            problems.append(str(exc))
            continue
        result = wide_records(grid, source.wide, doc=table.name, sheet=sheet,  # type: ignore[arg-type]
                              fiscal_year_end=fy_end, known_metrics=None,
                              unit_of=lambda _m, unit: unit)
        if not result.header:
            problems.append(f"sheet {sheet}: " + "; ".join(e[2] for e in result.errors[:1]))
            continue
        fy_end = _year_end(result.header_texts) or fy_end
        keys: list[tuple[str, str]] = []
        for section, label in zip(result.sections, result.labels, strict=True):
            # "Total" under "Operating expenses": named by both, mapped by "heading / label"
            inner = bool(section) and (result.labels.count(label) > 1
                                       or label.casefold() in _GENERIC)
            key = f"{section} / {label}" if inner else label
            name = f"{label} {section[:1].lower()}{section[1:]}" if inner else label
            code = proposed_code(name) or f"LINE_{len(codes) + 1}"
            if any(k == key for k, _ in keys):
                continue
            codes.setdefault(code, name)
            keys.append((key, code))
        found.append((sheet, keys, result.scale))
    if not found:
        raise IngestError(f"{table.name}: neither a fact table (metric, entity, period_type, "
                          f"...) nor a report table with period headers ({'; '.join(problems)})")
    return _write(table, found, codes, fy_end, out)


def _year_end(texts: list[str]) -> str:
    """"06-30" when a header says "Year ended 30 June ..." (the first such header)."""
    from core.knowledge.wide_tables import _MONTHS

    for text in texts:
        m = _ENDED.search(text)
        if m:
            day, month = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
            number = _MONTHS.get(month.lower())
            if number:
                return f"{number:02d}-{int(day):02d}"
    return ""


def _write(table: Path, found: list[tuple[str, list[tuple[str, str]], str]],
           codes: dict[str, str], fy_end: str, out: Path | None) -> str:
    import os

    doc = tomlkit.document()
    for line in (f"Starter glossary written by `ricorda init` from the report table {table.name}.",
                 "Each line item is a metric named by its label; add the names people use",
                 "(en/it/zh), set the unit of each [[facts]] entry (the currency), name the",
                 "company, then run `ricorda check` and `ricorda ingest`."):
        doc.add(tomlkit.comment(line))
    scope = tomlkit.table()
    scope.add("default_entity", ENTITY)
    scope.add("fiscal_year_end", fy_end)
    doc.add("scope", scope)
    metrics = tomlkit.table(is_super_table=True)
    for code, label in codes.items():
        body = tomlkit.table()
        body.add("names", [label])
        metrics.add(code, body)
    doc.add("metrics", metrics)
    entities = tomlkit.table(is_super_table=True)
    company = tomlkit.table()
    company.add("names", ["TODO Company"])
    entities.add(ENTITY, company)
    doc.add("entities", entities)
    base = (out.parent if out is not None else Path.cwd()).resolve()
    try:
        rel = Path(os.path.relpath(table.resolve(), base)).as_posix()
    except ValueError:  # another drive
        rel = table.resolve().as_posix()
    entries = tomlkit.aot()
    for sheet, keys, scale in found:
        entry = tomlkit.table()
        entry.add("file", rel)
        if sheet:
            entry.add("sheet", sheet)
        entry.add(tomlkit.comment('unit = "USD"  # TODO: the currency of its figures'
                                  + (f" (the table says in {scale})" if scale else "")))
        mapping = tomlkit.table()
        for key, code in keys:
            mapping.add(key, code)
        entry.add("metrics", mapping)
        entries.append(entry)
    doc.add("facts", entries)
    text = tomlkit.dumps(doc).rstrip("\n") + "\n"
    parse_glossary(text, source=str(out or "glossary.toml"))  # what init writes always loads
    return text
