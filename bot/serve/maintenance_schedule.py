"""Run the maintenance job nightly inside `ricorda serve`.

`start_nightly(app)` runs the timer on its own daemon thread, whatever platforms serve (Telegram
owns the main loop, Slack may run on a thread or alone); `NightlyMaintenance.start()` puts it
on an existing asyncio loop instead. The job itself is blocking
database work, run in a worker thread (`asyncio.to_thread`): answering never waits for it, and
it shares no in-memory state with the core worker except the catalog, which is thread-safe.
Every replica runs the timer; the job's lock and its per-night record make it run once a night
across them (core.nightly.maintenance). A failed night is logged and the timer goes on to the next.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import threading
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from core.nightly.maintenance import MaintenanceReport
from core.nightly.maintenance_schedule import next_run

if TYPE_CHECKING:
    from bot.wiring.build import App

log = logging.getLogger("ricorda.maintenance")


class NightlyMaintenance:
    def __init__(
        self,
        job: Callable[[], MaintenanceReport],
        *,
        at: dt.time,
        tz: dt.tzinfo | None = None,
        clock: Callable[[], dt.datetime] = lambda: dt.datetime.now().astimezone(),
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    ) -> None:
        self.job = job
        self.at = at
        self.tz = tz
        self.clock = clock
        self.sleep = sleep
        self._task: asyncio.Task[None] | None = None

    def next_run(self) -> dt.datetime:
        now = self.clock()
        return next_run(now, self.at, self.tz or now.astimezone().tzinfo)

    async def run_forever(self) -> None:
        while True:
            due = self.next_run()
            await self.sleep(max(0.0, (due - self.clock()).total_seconds()))
            try:
                report = await asyncio.to_thread(self.job)
            except Exception:  # a failed night must not stop the next ones
                log.exception("nightly maintenance failed")
                continue
            log.info("%s", report.text(per_rule=5, cleared=False))  # logs are not cleared

    def start(self) -> asyncio.Task[None]:
        """Start the timer on the running loop (call from async code); idempotent."""
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(
                self.run_forever(), name="ricorda-maintenance"
            )
            log.info("nightly maintenance at %s (next %s)", self.at, self.next_run())
        return self._task

    def start_thread(self) -> threading.Thread:
        """Run the timer on its own event loop in a daemon thread (ends with the process)."""
        thread = threading.Thread(
            target=lambda: asyncio.run(self.run_forever()),
            name="ricorda-maintenance",
            daemon=True,
        )
        thread.start()
        log.info("nightly maintenance at %s (next %s)", self.at, self.next_run())
        return thread

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


def start_nightly(app: App) -> NightlyMaintenance:
    """Start nightly maintenance for `ricorda serve` (settings `maintenance_time`,
    `maintenance_timezone`); ConfigError on a bad time or zone, before anything serves."""
    services = app.core.maintenance
    nightly = NightlyMaintenance(
        services.maintenance.run_nightly,
        at=services.at,
        tz=services.tz,
    )
    nightly.start_thread()
    return nightly
