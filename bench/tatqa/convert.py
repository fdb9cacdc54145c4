"""One TAT-QA table as a company's knowledge base: facts.csv and glossary.toml.

TAT-QA (NExTplusplus/TAT-QA, CC BY 4.0) pairs tables from real annual reports with questions.
Each table is loaded the way a company loads its own figures: every row label with a number
under a year column becomes a metric (its code M01, M02 …, the label its name), the figure a
fact of one entity (the reporting company) for that fiscal year; the scale comes from "in
thousands / millions" (or $'000) in the table or its text, parentheses mean negative, "%"
columns or rows are percentages. The glossary is written by `ricorda init` (bot.kb.init), then
each placeholder name replaced by the row label, as a newcomer would.

    python bench/tatqa/convert.py --data /work/data/tatqa/train.json --out DIR [--limit N]

Only the train split may be used: the dev and test splits are not ours to tune on.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

YEAR = re.compile(r"(?<!\d)(19[5-9]\d|20[0-4]\d)(?!\d)")
SCALES = (  # (pattern, scale word, unit suffix)
    (re.compile(r"in\s+billions|\$\s*b(illion)?s?\b", re.I), "billion", "B"),
    (re.compile(r"in\s+millions|\(\s*millions|\$\s*m\b|£m|€m|\bmillions?\s+of\b|\$'?000,000", re.I),
     "million", "M"),
    (re.compile(r"in\s+thousands|\(\s*thousands|'000|’000|\bthousands?\s+of\b|\$k\b", re.I),
     "thousand", "K"),
)
CURRENCIES = (("£", "GBP"), ("€", "EUR"), ("¥", "JPY"), ("$", "USD"))
MONTHS = {m: i for i, m in enumerate(("january", "february", "march", "april", "may", "june",
                                      "july", "august", "september", "october", "november",
                                      "december"), 1)}
DAY_MONTH = re.compile(r"(\d{1,2})\s+(" + "|".join(MONTHS) + r")|(" + "|".join(MONTHS)
                       + r")\s+(\d{1,2})", re.I)
MONTH_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
Json = dict[str, Any]
RESERVED = {"total", "overall", "company", "the company"}


def number(cell: str) -> tuple[Decimal, bool] | None:
    """(value, is_percent) of a table cell, or None: "$ 1,234" 1234, "(5,580)" -5580,
    "77%" 77 percent, "-" / "—" / "" / text nothing."""
    text = cell.strip().replace("\u2212", "-")
    percent = text.endswith("%") or text.endswith("%)")
    negative = text.startswith("(") and text.rstrip("%").endswith(")")
    core = re.sub(r"[\s$£€¥,%()]|US|NT|RMB|HK", "", text)
    if not core or not re.fullmatch(r"-?\d+(\.\d+)?", core):
        return None
    try:
        value = Decimal(core)
    except InvalidOperation:
        return None
    return (-abs(value) if negative else value), percent


@dataclass
class Company:
    """The knowledge base made of one table."""

    uid: str
    scale: str  # "", "thousand", "million", "billion"
    unit: str  # the money/number unit of the table's figures: USD_K, NUM, …
    fiscal_year_end: str
    labels: dict[str, str] = field(default_factory=dict)  # metric code -> row label
    rows: list[tuple[str, str, Decimal, str]] = field(default_factory=list)  # code, year, v, unit
    years: list[str] = field(default_factory=list)

    def code_of(self, label: str) -> str | None:
        for code, text in self.labels.items():
            if text == label:
                return code
        return None


def _text(item: Json) -> str:
    cells = " ".join(" ".join(r) for r in item["table"]["table"][:3])
    paras = " ".join(p.get("text", "") for p in item.get("paragraphs", []))
    return f"{cells} {paras}"


def table_scale(item: Json) -> tuple[str, str]:
    """(scale word, unit suffix) stated in the table's header rows or its paragraphs."""
    header = " ".join(" ".join(r) for r in item["table"]["table"][:3])
    for text in (header, _text(item)):
        for pattern, word, suffix in SCALES:
            if pattern.search(text):
                return word, suffix
    return "", ""


def currency(item: Json) -> str | None:
    cells = " ".join(" ".join(r) for r in item["table"]["table"])
    for symbol, code in CURRENCIES:
        if symbol in cells or symbol in _text(item):
            return code
    return None


def fiscal_year_end(item: Json) -> str:
    """The year-end day named in the header ("December 31", "30 June"), else December."""
    header = " ".join(" ".join(r) for r in item["table"]["table"][:3])
    m = DAY_MONTH.search(header)
    if not m:
        return "12-31"
    day, month = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
    mm = MONTHS[month.lower()]
    dd = min(int(day), MONTH_DAYS[mm - 1] if mm != 2 else 28)
    return f"{mm:02d}-{dd:02d}"


def year_columns(table: list[list[str]]) -> tuple[dict[int, str], int]:
    """{column: year} from the header rows (those above the first row with a number), and the
    index of the first data row. A year seen twice keeps its first column."""
    first = next((i for i, row in enumerate(table)
                  if any(number(c) for c in row[1:]) and not all(
                      YEAR.fullmatch(c.strip()) for c in row[1:] if c.strip())), len(table))
    cols: dict[int, str] = {}
    for row in table[:first]:
        for j, cell in enumerate(row[1:], 1):
            found = YEAR.findall(cell)
            if len(set(found)) == 1 and j not in cols:
                cols[j] = found[0]
    seen: set[str] = set()
    unique = {}
    for j, year in sorted(cols.items()):
        if year not in seen:
            unique[j] = year
            seen.add(year)
    return unique, first


def convert(item: Json) -> Company | None:
    """The company of one TAT-QA item, or None when the table has no year columns."""
    table = item["table"]["table"]
    cols, first = year_columns(table)
    if not cols:
        return None
    word, suffix = table_scale(item)
    cur = currency(item)
    base = f"{cur}_{suffix}" if cur and suffix else (cur or (f"NUM_{suffix}" if suffix
                                                             else "NUM"))
    company = Company(item["table"]["uid"], word, base, fiscal_year_end(item))
    company.years = sorted(set(cols.values()))
    seen: dict[str, int] = {}
    for row in table[first:]:
        label = re.sub(r"\s+", " ", row[0]).strip().rstrip(":")
        cells = {year: number(row[j]) for j, year in cols.items() if j < len(row)}
        cells = {y: v for y, v in cells.items() if v is not None}
        if not label or not cells:
            continue
        seen[label] = seen.get(label, 0) + 1
        name = label if seen[label] == 1 else f"{label} ({seen[label]})"
        if name.casefold() in RESERVED:  # "Total" is the built-in channel's name
            name = f"{name} (row {first + len(company.labels) + 1})"
        code = f"M{len(company.labels) + 1:02d}"
        company.labels[code] = name
        row_percent = "%" in label or any(p for _, p in cells.values())
        for year, (value, _) in sorted(cells.items()):
            company.rows.append((code, year, value, "PCT" if row_percent else base))
    return company if company.rows else None


def write(company: Company, folder: Path) -> None:
    """facts.csv, then glossary.toml from `ricorda init` with each row label as the name."""
    from bot.kb.init import starter_glossary

    folder.mkdir(parents=True, exist_ok=True)
    facts = folder / "facts.csv"
    with facts.open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["metric", "entity", "period_type", "period", "channel", "value", "unit",
                    "source_doc", "source_locator"])
        for code, year, value, unit in company.rows:
            w.writerow([code, "COMPANY", "FY", year, "", format(value, "f"), unit,
                        f"tatqa_{company.uid}", f"table=1,row={company.labels[code][:40]}"])
    text = starter_glossary(facts)
    text = re.sub(r'fiscal_year_end = "[^"]*"[^\n]*',
                  f'fiscal_year_end = "{company.fiscal_year_end}"', text)
    for code, label in company.labels.items():
        quoted = json.dumps(label, ensure_ascii=False)
        text = re.sub(rf'(\[metrics\.{code}\]\nnames = )\[[^\n]*\]', rf"\g<1>[{quoted}]", text)
    text = re.sub(r'(\[entities\.COMPANY\]\nnames = )\[[^\n]*\]',
                  r'\g<1>["the company", "company"]', text)
    (folder / "glossary.toml").write_text(text, encoding="utf-8")


def load(path: Path) -> list[Json]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return data if isinstance(data, list) else data["data"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="a TAT-QA train JSON file")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--limit", type=int)
    args = parser.parse_args(argv)
    done = skipped = 0
    for item in load(args.data)[: args.limit]:
        company = convert(item)
        if company is None:
            skipped += 1
            continue
        write(company, args.out / company.uid)
        done += 1
    print(f"{done} tables converted, {skipped} without year columns")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
