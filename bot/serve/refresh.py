"""`serve` reloads the declared SQL fact sources on a schedule (`fact_refresh_minutes`).

Each refresh is an ingest with no paths (bot.kb.ingest.ingest_paths): the same reading, unit and
disclosure checks and the same report as `ricorda ingest`, logged line by line. Facts are only
upserted, so a source that fails keeps its last good figures; its reason goes to the log and
/healthz (`fact_sources`, bot.kb.sources). Committed facts bump the knowledge-base version, so
this process and every replica answer from them at their next version check. The timer runs
on a daemon thread: answering never waits for a query.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

from core.contracts.errors import RicordaError

if TYPE_CHECKING:
    from bot.wiring.build import App

log = logging.getLogger("ricorda.sources")


def refresh_once(app: App) -> bool:
    """One refresh of every declared source; False when one failed (said in the log)."""
    from bot.kb.ingest import ingest_paths

    try:
        summary = ingest_paths(app, [])
    except RicordaError as exc:
        log.warning("fact sources not refreshed: %s", exc)
        return False
    for line in summary.lines:
        log.info("refresh: %s", line)
    for problem in summary.problems:
        log.warning("refresh: %s (the figures loaded before are kept)", problem)
    return summary.ok


def start_fact_refresh(app: App, stop: threading.Event | None = None) -> threading.Thread | None:
    """Refresh every `fact_refresh_minutes` on a daemon thread; None when off (0) or when the
    glossary declares no SQL source."""
    minutes = app.settings.fact_refresh_minutes
    try:
        sql = [s.name for s in app.core.glossary.facts if s.is_sql]
    except RicordaError:
        sql = []
    if not minutes or not sql:
        return None
    every = minutes * 60
    stop = stop or threading.Event()

    def loop() -> None:
        while not stop.wait(every):
            try:
                refresh_once(app)
            except Exception:  # a refresh must never end the timer: the next one may work
                log.exception("fact sources: the refresh failed; the next one runs as planned")

    thread = threading.Thread(target=loop, daemon=True, name="ricorda-fact-refresh")
    thread.start()
    log.info("fact sources %s refreshed every %g minutes", ", ".join(sql), minutes)
    return thread
