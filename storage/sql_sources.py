"""Read a declared SQL source (`[[facts]] url_env = ..., query = ...`) into validated facts.

The database URL comes from the environment variable the declaration names, never from the
glossary; it, its password and the SQL driver's exception (whose text and chained context may
hold the URL) never reach a message: each failure is said in words of its own (cannot
connect, the query failed and the database's one-line reason, too many rows, too slow), with
the password and the URL scrubbed from that reason, and raised without its chain.

The query runs in a read-only transaction, bounded in rows (`max_rows`: fetched in batches,
stopped at the first row past it) and in seconds (PostgreSQL's statement_timeout; SQLite's
progress handler; other databases: checked between batches). A long result carries the
fact-table columns (metric, entity, period_type, period, value; channel, unit, source_doc
and source_locator optional); a wide one (`layout = "wide"`) is a label column then one
column per period, read as a report table (core.knowledge.wide_tables).
"""

from __future__ import annotations

import os
import time
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from core.contracts.errors import IngestError
from core.contracts.fact_sources import FactSource
from core.knowledge.unit_kinds import MetricUnits
from storage.fact_files import FactFileReport, read_records

REQUIRED = ("metric", "entity", "period_type", "period", "value")
OPTIONAL = ("channel", "unit", "source_doc", "source_locator")
_BATCH = 1000


@dataclass(frozen=True)
class QueryBounds:
    """How much one query may cost: rows returned, seconds taken (settings
    fact_query_max_rows, fact_query_seconds)."""

    max_rows: int = 1_000_000
    max_seconds: float = 60.0


def read_sql_source(source: FactSource, *, fiscal_year_end: str,
                    known_metrics: Collection[str] | None,
                    known_entities: Collection[str] | None,
                    known_channels: Collection[str] | None,
                    units: MetricUnits | None = None, bounds: QueryBounds = QueryBounds(),
                    environ: Mapping[str, str] | None = None,
                    max_problems: int | None = None,
                    metric_names: Mapping[str, str] | None = None) -> FactFileReport:
    """The facts a declared query returns; IngestError (secret-free) when the source as a
    whole cannot be read: nothing of it is loaded then, and what was loaded before stays."""
    columns, rows = run_query(source, bounds, os.environ if environ is None else environ)
    if source.wide is not None:
        from storage.wide_files import records_report

        grid = [[(c, "") for c in columns]] + [[(v, "") for v in row] for row in rows]
        return records_report(source, source.wide, grid, [], fiscal_year_end=fiscal_year_end,
                              known_metrics=known_metrics, known_entities=known_entities,
                              known_channels=known_channels, units=units,
                              max_problems=max_problems, doc=source.name,
                              metric_names=metric_names)
    names = [c.lower() for c in columns]
    missing = [c for c in REQUIRED if c not in names]
    absent_key = [k for k in source.key if k not in names]
    if missing or absent_key:
        wanted = missing + absent_key
        raise IngestError(
            f"{source.name}: the query returns no column {', '.join(wanted)} (it returns "
            f"{', '.join(names) or 'nothing'}): add it to the SELECT, or name it with AS "
            f"(SELECT fiscal_period AS period ...); nothing was loaded from this source")
    return read_records(Path(source.name), _records(source, names, rows), len(rows),
                        known_metrics=known_metrics, known_entities=known_entities,
                        known_channels=known_channels, units=units, max_problems=max_problems)


def _records(source: FactSource, names: list[str],
             rows: list[tuple[Any, ...]]) -> Iterator[tuple[int, dict[str, Any]]]:
    for n, row in enumerate(rows, start=1):
        cells = dict(zip(names, row, strict=True))
        record = {c: cells.get(c) for c in (*REQUIRED, *OPTIONAL)}
        record["value"] = _as_written(record["value"])
        key = [str(cells[k]) for k in source.key] if source.key else [
            str(cells.get(c) or "") for c in ("metric", "entity", "period_type", "period")
        ] + ([str(cells["channel"])] if cells.get("channel") else [])
        keyed = " ".join(f"{k} {v}" for k, v in zip(source.key, key, strict=True)) \
            if source.key else " ".join(key)
        record["source_doc"] = record["source_doc"] or source.name
        record["source_locator"] = record["source_locator"] or f"row={keyed.replace(';', ',')}"
        record["__where__"] = f"{source.name}, row {n} ({keyed})"
        yield n, record


def _as_written(value: Any) -> Any:
    """A NUMERIC(20, 6) column gives 1.234000 for 1.234: its scale is the column's type, not
    digits anyone wrote, so the trailing fractional zeros go (1200 stays 1200)."""
    if isinstance(value, Decimal) and value.is_finite() and value.as_tuple().exponent < 0:
        text = format(value, "f")
        return text.rstrip("0").rstrip(".") if "." in text else text
    return value


def run_query(source: FactSource, bounds: QueryBounds,
              environ: Mapping[str, str]) -> tuple[list[str], list[tuple[Any, ...]]]:
    """(column names, rows) of the source's query, within `bounds`."""
    from sqlalchemy import create_engine, event, text
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError
    from sqlalchemy.pool import NullPool

    raw = environ.get(source.url_env, "").strip()
    if not raw:
        raise IngestError(f"{source.name}: the environment variable {source.url_env} is not "
                          "set: export it with the database URL (like postgresql://user:"
                          "password@host/db); it stays out of the glossary")
    secrets = [raw]
    try:
        url = make_url(raw)
    except (ArgumentError, ValueError):
        raise IngestError(f"{source.name}: {source.url_env} does not hold a database URL "
                          "(like postgresql://user:password@host/db or sqlite:///file.db)") \
            from None
    if url.password:
        secrets.append(str(url.password))
    if url.drivername == "postgresql":
        url = url.set(drivername="postgresql+psycopg")  # the driver ricorda ships with
    started = time.monotonic()
    deadline = started + bounds.max_seconds
    connect_args: dict[str, Any] = {}
    backend = url.get_backend_name()
    if backend == "postgresql":  # the URL's own options (a search_path) are kept
        given = url.query.get("options", "")
        options = " ".join(given) if isinstance(given, tuple) else given
        url = url.difference_update_query(["options"])
        connect_args = {"connect_timeout": max(1, int(bounds.max_seconds)),
                        "options": f"{options} -c statement_timeout="
                                   f"{int(bounds.max_seconds * 1000)} "
                                   "-c default_transaction_read_only=on".strip()}
    try:
        engine = create_engine(url, poolclass=NullPool, connect_args=connect_args)
    except (ArgumentError, NoSuchModuleError, ImportError) as exc:
        raise IngestError(f"{source.name}: no driver for the database in {source.url_env} "
                          f"({_scrub(str(exc), secrets)})") from None
    if backend == "sqlite":
        @event.listens_for(engine, "connect")
        def _bounded(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.set_progress_handler(
                lambda: int(time.monotonic() > deadline), 10_000)

    try:
        try:
            conn = engine.connect()
        except SQLAlchemyError as exc:
            raise IngestError(f"{source.name}: cannot connect to the database in "
                              f"{source.url_env} ({_reason(exc, secrets)}); the figures "
                              "loaded from it before are kept") from None
        with conn:
            try:
                result = conn.execution_options(stream_results=True).execute(text(source.query))
                columns = list(result.keys())
                rows: list[tuple[Any, ...]] = []
                while batch := result.fetchmany(_BATCH):
                    rows += [tuple(r) for r in batch]
                    if len(rows) > bounds.max_rows:
                        result.close()
                        raise IngestError(
                            f"{source.name}: the query returned more than "
                            f"{bounds.max_rows:,} rows (setting fact_query_max_rows): narrow "
                            "it, with a WHERE on the periods you need, or raise the bound; "
                            "nothing was loaded from this source")
                    if time.monotonic() > deadline:
                        raise _too_slow(source, bounds)
            except SQLAlchemyError as exc:
                reason = _reason(exc, secrets)
                if "statement timeout" in reason or "interrupted" in reason:
                    raise _too_slow(source, bounds) from None
                raise IngestError(f"{source.name}: the query failed ({reason}): fix query = "
                                  "... in its [[facts]] entry; the figures loaded from it "
                                  "before are kept") from None
            finally:
                conn.rollback()  # read only: nothing the query did is kept
    finally:
        engine.dispose()
    return columns, rows


def _too_slow(source: FactSource, bounds: QueryBounds) -> IngestError:
    return IngestError(f"{source.name}: the query took longer than {bounds.max_seconds:g} s "
                       "(setting fact_query_seconds) and was stopped: narrow it or raise the "
                       "bound; nothing was loaded from this source")


def _reason(exc: Exception, secrets: list[str]) -> str:
    """The database's own one-line reason, without the statement, URL or password."""
    orig = getattr(exc, "orig", None) or exc
    lines = [line.strip() for line in str(orig).splitlines() if line.strip()]
    text = " ".join(lines[:2]) if lines else orig.__class__.__name__
    return _scrub(text, secrets)[:300]


def _scrub(text: str, secrets: list[str]) -> str:
    for secret in sorted(secrets, key=len, reverse=True):
        if secret:
            text = text.replace(secret, "***")
    return text
