"""Declared fact sources (`[[facts]]` in the glossary): read, loaded, and their health.

One path for every way a declared source is loaded, `ricorda ingest` and `serve`'s scheduled
refresh alike (bot.serve.refresh), so both give the same checks and the same report. A source
that fails loads nothing and says why (never its database URL or password); the figures it
loaded before stay, since facts are only ever upserted. Its last outcome is kept for
/healthz (`fact_sources`) and the log.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from core.contracts.errors import RicordaError
from core.contracts.fact_sources import FactSource
from core.knowledge.glossary import Glossary
from storage.fact_files import FactFileReport
from storage.sql_sources import QueryBounds

log = logging.getLogger("ricorda.sources")
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class SourceOutcome:
    """How a source's last load went: "ok" or the reason it failed, and when it last loaded."""

    problem: str = ""
    last_ok: float | None = None  # time.time() of the last good load


_outcomes: dict[str, SourceOutcome] = {}
_lock = threading.Lock()


def read_source(source: FactSource, glossary: Glossary, bounds: QueryBounds, *,
                max_problems: int | None = None) -> FactFileReport:
    """The facts of one declared source, validated against the glossary; raises RicordaError
    (IngestError) when the source as a whole cannot be read."""
    common = {
        "fiscal_year_end": glossary.fiscal_year_end,
        "known_metrics": glossary.metrics.keys(),
        "known_entities": glossary.entities.keys(),
        "known_channels": glossary.channels.keys(),
        "units": glossary.metric_units(),
        "max_problems": max_problems,
        "metric_names": metric_names(glossary),
    }
    if source.is_sql:
        from storage.sql_sources import read_sql_source

        _known_to_the_log(source)

        return read_sql_source(source, bounds=bounds, **common)  # type: ignore[arg-type]
    from storage.wide_files import read_wide_file

    return read_wide_file(source, **common)  # type: ignore[arg-type]


def _known_to_the_log(source: FactSource) -> None:
    """The source's URL and password join the secrets every log line is redacted of
    (bot.wiring.log_setup): a message that reached the log some other way still never shows them."""
    import os

    from bot.wiring.log_setup import add_secrets

    url = os.environ.get(source.url_env, "").strip()
    if not url:
        return
    password = None
    try:
        from sqlalchemy.engine import make_url

        password = make_url(url).password
    except Exception:  # not a URL: the reader says so, without it
        pass
    add_secrets(url, str(password) if password else None)


def metric_names(glossary: Glossary) -> dict[str, str]:
    """Every metric's names as row labels are matched: a report's "Revenue" row is the metric
    named "revenue" whatever its code."""
    from core.knowledge.wide_tables import label_key

    out: dict[str, str] = {}
    for code, term in glossary.metrics.items():
        for name in (*term.names, *term.forms):
            out.setdefault(label_key(name), code)
    return out


def bounds_of(settings: object) -> QueryBounds:
    return QueryBounds(max_rows=getattr(settings, "fact_query_max_rows", 1_000_000),
                       max_seconds=getattr(settings, "fact_query_seconds", 60.0))


def load_sources(app: object, *, only_sql: bool = False) -> tuple[list[str], list[str]]:
    """Load every declared source of the current glossary: (report lines, problems)."""
    lines: list[str] = []
    problems: list[str] = []
    glossary = app.core.glossary  # type: ignore[attr-defined]
    bounds = bounds_of(app.settings)  # type: ignore[attr-defined]
    for source in glossary.facts:
        if only_sql and not source.is_sql:
            continue
        try:
            report = read_source(source, glossary, bounds)
        except RicordaError as exc:
            problems.append(str(exc))
            _record(source.name, str(exc))
            log.warning("fact source %s not loaded: %s", source.name, exc)
            continue
        counts = app.storage.facts.upsert_facts(report.facts)  # type: ignore[attr-defined]
        lines.append(
            f"facts {source.name}: {report.rows_read} rows read, {counts.inserted} new, "
            f"{counts.updated} updated, {counts.unchanged} unchanged, "
            f"{len(report.errors)} rejected")
        lines += [f"  {source.name}: {line}" for line in report.conversion_lines()]
        lines += [f"  warning {source.name} {w}" for w in report.warnings]
        problems += [f"{source.name} {e}" for e in report.errors]
        _record(source.name, "")
    return lines, problems


def _record(name: str, problem: str) -> None:
    with _lock:
        earlier = _outcomes.get(name, SourceOutcome())
        _outcomes[name] = SourceOutcome(problem, earlier.last_ok if problem else time.time())


def health_line() -> str:
    """"ok", or which sources serve their last good figures and why (for /healthz)."""
    with _lock:
        failing = {n: o for n, o in _outcomes.items() if o.problem}
    if not failing:
        return "ok"
    return "stale: " + "; ".join(o.problem for o in failing.values())
