"""The glossary's `[[facts]]` entries: where figures live when they are not a long fact file.

A wide table in a file (`.xlsx`/`.csv`: line items down, periods across, or the transpose)
needs only the file; the entity defaults to the scope's default entity and the unit to each
metric's. A SQL source names the environment variable holding the database URL and a query
(docs/own-data.md). A URL written in the glossary is refused: it would put a password in a
file that is stored, backed up and shown by `ricorda check`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.contracts.errors import ConfigError
from core.contracts.fact_sources import COLUMNS_DOWN, ROWS_DOWN, FactSource, RowMetric, WideLayout
from core.knowledge.wide_tables import label_key

SCALES = {"": "", "units": "", "thousands": "_K", "millions": "_M", "billions": "_B"}
_KEYS = {"file", "sheet", "table", "source", "entity", "unit", "scale", "header_row", "periods",
         "channel", "metrics", "url_env", "query", "key", "layout"}
_ENV = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_. -]{0,63}$")
_CODE = re.compile(r"^[A-Z][A-Z0-9_]*$")

Fail = Callable[[int, str, str], ConfigError]


def parse_fact_sources(raw: Any, *, base_dir: Path, default_entity: str,
                       fail: Fail) -> tuple[FactSource, ...]:
    """Every `[[facts]]` entry, validated; `fail(index, key, problem)` names file and line."""
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(isinstance(item, dict) for item in raw):
        raise fail(0, "facts", 'must be [[facts]] tables with file = "..." or url_env = "..."')
    out: list[FactSource] = []
    for i, item in enumerate(raw):
        source = _one(i, item, base_dir, default_entity, fail)
        if any(s.name == source.name for s in out):
            raise fail(i, "source", f"source {source.name!r} is declared twice: give each "
                       'entry its own source = "..."')
        out.append(source)
    return tuple(out)


def _one(i: int, item: dict[str, Any], base: Path, default_entity: str, fail: Fail) -> FactSource:
    if "url" in item:
        raise fail(i, "url", "a database URL does not belong in the glossary (it holds the "
                   'password): put it in an environment variable and write url_env = "NAME"')
    unknown = sorted(set(item) - _KEYS)
    if unknown:
        raise fail(i, unknown[0], f"unknown key (expected {', '.join(sorted(_KEYS))})")
    file, url_env = item.get("file"), item.get("url_env")
    if (file is None) == (url_env is None):
        raise fail(i, "file", 'give either file = "report.xlsx" (a table in a file) or '
                   'url_env = "FINANCE_DB_URL" with query = "SELECT ..." (a database)')
    name = item.get("source")
    if name is not None and (not isinstance(name, str) or not _NAME.match(name)):
        raise fail(i, "source", "must be a name of letters, digits, spaces, '.', '_', '-'")
    if file is not None:
        if not isinstance(file, str) or not file.strip():
            raise fail(i, "file", "must be a file name, relative to the glossary")
        path = (base / file.strip()).resolve()
        suffix = path.suffix.lower()
        if suffix not in (".xlsx", ".csv", ".docx", ".md"):
            raise fail(i, "file", "must be a .xlsx or .csv file, or a .docx or .md document "
                       "with table = N")
        sheet = item.get("sheet", "")
        if not isinstance(sheet, str):
            raise fail(i, "sheet", "must be the sheet's name")
        if sheet and path.suffix.lower() != ".xlsx":
            raise fail(i, "sheet", "only a .xlsx workbook has sheets")
        table = item.get("table", 1 if suffix in (".docx", ".md") else 0)
        if suffix in (".docx", ".md"):
            if not isinstance(table, int) or isinstance(table, bool) or table < 1:
                raise fail(i, "table", "must be the table's number in the document (1 = the "
                           "first)")
        elif "table" in item:
            raise fail(i, "table", "only a .docx or .md document has numbered tables")
        label = path.name + (f" [{sheet}]" if sheet else f" [table {table}]" if table else "")
        return FactSource(name or label, i, path=path, sheet=sheet, table=table,
                          wide=_layout(i, item, default_entity, fail))
    if not isinstance(url_env, str) or not _ENV.match(url_env):
        raise fail(i, "url_env", "must name an environment variable, like FINANCE_DB_URL")
    query = item.get("query")
    if not isinstance(query, str) or not query.strip():
        raise fail(i, "query", 'must be the SQL query, like "SELECT metric, entity, ... FROM t"')
    if name is None:
        raise fail(i, "source", 'a database source needs a name answers cite: source = "finance"')
    key = item.get("key", [])
    if isinstance(key, str):
        key = [key]
    if not isinstance(key, list) or not all(isinstance(k, str) and k.strip() for k in key):
        raise fail(i, "key", 'must be the column(s) that identify a row, like key = ["id"]')
    layout = item.get("layout", "long")
    if layout not in ("long", "wide"):
        raise fail(i, "layout", 'must be "long" (the fact-table columns) or "wide" (a label '
                   "column, then one column per period)")
    wide = _layout(i, item, default_entity, fail) if layout == "wide" else None
    if wide is None:
        extra = sorted(set(item) & {"sheet", "scale", "header_row", "periods", "metrics"})
        if extra:
            raise fail(i, extra[0], 'only a wide result has it: add layout = "wide"')
    return FactSource(name, i, url_env=url_env, query=query.strip(),
                      key=tuple(k.strip().lower() for k in key), wide=wide)


def _layout(i: int, item: dict[str, Any], default_entity: str, fail: Fail) -> WideLayout:
    entity = item.get("entity", default_entity)
    if not isinstance(entity, str) or not entity.strip():
        raise fail(i, "entity", "must be an entity code, like ACME_GROUP")
    unit = item.get("unit", "")
    if not isinstance(unit, str) or (unit and not _CODE.match(unit)):
        raise fail(i, "unit", 'must be a unit code, like "USD" or "EUR_M"')
    scale = item.get("scale", "")
    if scale not in SCALES:
        raise fail(i, "scale", 'must be "thousands", "millions" or "billions"')
    header = item.get("header_row", 0)
    if not isinstance(header, int) or isinstance(header, bool) or header < 0:
        raise fail(i, "header_row", "must be the row number of the period headers (1 = first)")
    periods = item.get("periods", COLUMNS_DOWN)
    if periods not in (COLUMNS_DOWN, ROWS_DOWN):
        raise fail(i, "periods", f'must be "{COLUMNS_DOWN}" (periods across, the usual report) '
                   f'or "{ROWS_DOWN}" (periods down the first column)')
    channel = item.get("channel", "")
    if not isinstance(channel, str):
        raise fail(i, "channel", "must be a channel code")
    return WideLayout(entity.strip().upper(), unit, scale, header, periods,
                      channel.strip().upper(), _metrics(i, item.get("metrics", {}), fail))


def _metrics(i: int, raw: Any, fail: Fail) -> dict[str, RowMetric]:
    why = ('must map row labels to metric codes, like { "Total revenue" = "REVENUE", '
           '"Employees" = { metric = "HEADCOUNT", unit = "FTE" } }')
    if not isinstance(raw, dict):
        raise fail(i, "metrics", why)
    out: dict[str, RowMetric] = {}
    for label, target in raw.items():
        if isinstance(target, str):
            target = {"metric": target}
        if not isinstance(target, dict) or not isinstance(target.get("metric"), str) or not (
                _CODE.match(target["metric"])) or not isinstance(target.get("unit", ""), str):
            raise fail(i, "metrics", f"{label!r}: {why}")
        out[label_key(label)] = RowMetric(target["metric"], target.get("unit", ""))
    return out
