"""Fact sources declared in the glossary (`[[facts]]`): a wide table in a file, or a query.

Plain data shared by the glossary parser (core.knowledge.fact_sources), the readers that load
them (storage.wide_files, storage.sql_sources) and the commands that ingest and check them.
A database URL is never part of a declaration: only the name of the environment variable that
holds it, so credentials stay out of the glossary, the store and every output.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

COLUMNS_DOWN = "columns"  # periods across the columns, line items down the rows (a report)
ROWS_DOWN = "rows"  # the transpose: periods down the rows, line items across


@dataclass(frozen=True)
class RowMetric:
    """What a row label (or a column name of a wide query) loads as: a metric code, and the
    unit its figures are written in when it is not the table's ("" = the table's)."""

    metric: str
    unit: str = ""


@dataclass(frozen=True)
class WideLayout:
    """How to read a wide table: whose figures, in which unit, where the period headers are."""

    entity: str
    unit: str = ""  # the unit the figures are written in ("USD_K"); "" = each metric's
    scale: str = ""  # "thousands" | "millions" | "billions" | "": appended to `unit`
    header_row: int = 0  # 1-based; 0 = the first row whose cells read as periods
    periods: str = COLUMNS_DOWN
    channel: str = ""  # "" = TOTAL
    # row label -> metric; empty: every label whose proposed code is a glossary metric
    metrics: dict[str, RowMetric] = field(default_factory=dict)


@dataclass(frozen=True)
class FactSource:
    """One `[[facts]]` entry: a wide file (`path`) or a SQL query (`url_env` + `query`)."""

    name: str  # the source's name: what answers cite and messages name
    index: int  # position among the glossary's [[facts]] entries (for line numbers)
    path: Path | None = None  # resolved, absolute (file sources)
    sheet: str = ""  # .xlsx sheet name ("" = the first)
    table: int = 0  # .docx / .md: which table of the document (1 = the first)
    url_env: str = ""  # SQL sources: the environment variable holding the database URL
    query: str = ""
    key: tuple[str, ...] = ()  # SQL: the columns that identify a row, cited in the locator
    wide: WideLayout | None = None  # None: a long query (the fact-table columns)

    @property
    def is_sql(self) -> bool:
        return bool(self.url_env)
