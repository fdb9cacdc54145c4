"""The nightly maintenance job: aging, death with inheritance, autopath pruning, promotion.

Deterministic and LLM-free (design 4.3): read the L0 entries and autopaths, decide with
`core.nightly.maintenance_rules`, remove in the transactions that also write `maintenance_log`, then
propose (or, tier 2, approve) promotions over what survived. The clock is injected and nothing
sleeps; the schedule lives in `core.nightly.maintenance_schedule` and the bot.

Replicas sharing a database: `run` holds a lock (a lock row with an expiry on SQLite, an
advisory lock on PostgreSQL) so one replica runs at a time; `run_nightly` also skips a night
another replica already completed, so the nightly job runs once a night however the replicas'
timers line up. `dry_run` computes and reports, writing nothing (and taking no lock).
"""

from __future__ import annotations

import datetime as dt
import logging
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core.contracts.learning_ports import (  # declared with the stores the bot learns in
    MaintenanceStore as MaintenanceStore,
)
from core.contracts.learning_ports import RunLock as RunLock
from core.contracts.maintenance import FASTPATH, Removal
from core.knowledge.clearance import shown_question
from core.nightly.maintenance_rules import (
    RULES,
    AgingPolicy,
    autopath_removals,
    fastpath_removals,
    promotion_groups,
    removal_why,
)
from core.nightly.promotion import PromotionNote, Promotions
from core.planning.catalog import Catalog

log = logging.getLogger("ricorda.maintenance")


@dataclass
class MaintenanceReport:
    run_id: str
    started_at: dt.datetime
    night: str
    dry_run: bool = False
    skipped: str | None = None  # why nothing ran
    removals: list[Removal] = field(default_factory=list)
    promotions: list[PromotionNote] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    scanned: int = 0
    elapsed_s: float = 0.0
    turns_expired: int = 0  # turns older than the retention period (RICORDA_TURN_RETENTION_DAYS)

    @property
    def ran(self) -> bool:
        return self.skipped is None

    def counts(self) -> dict[str, int]:
        c = Counter(r.rule for r in self.removals)
        return {rule: c[rule] for rule in RULES if c[rule]}

    def summary(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "removed": self.counts(),
            "promotions": [n.line() for n in self.promotions],
            "scanned": self.scanned,
            "turns_expired": self.turns_expired,
            "elapsed_s": round(self.elapsed_s, 3),
        }

    def text(self, *, per_rule: int | None = 20, cleared: bool = False) -> str:
        """What was removed and why, what was proposed; at most `per_rule` lines per rule.

        `cleared`: the reader may see questions asked from cleared chats (the CLI); a log line
        or any other reader gets "(restricted question)" in their place, with id and counts."""
        if self.skipped:
            return f"maintenance skipped: {self.skipped}"
        verb = "would remove" if self.dry_run else "removed"
        head = "dry run: nothing written. " if self.dry_run else ""
        counts = self.counts()
        total = sum(counts.values())
        lines = [
            f"{head}maintenance {self.night}: scanned {self.scanned} cached plans, {verb} "
            f"{total} entries in {self.elapsed_s:.2f} s"
        ]
        lines += [f"note: {n}" for n in self.notes]
        if self.turns_expired:
            lines.append(f"turns: {verb} {self.turns_expired} past the retention period")
        for rule, count in counts.items():
            picked = [r for r in self.removals if r.rule == rule]
            lines.append(f"{verb} {count} ({rule}: {removal_why(picked[0])}):")
            shown = picked if per_rule is None else picked[:per_rule]
            for r in shown:
                extra = f" uses={r.uses}" + (f" -> {r.heir}" if r.heir else "")
                detail = shown_question(r.detail, restricted=r.restricted, cleared=cleared)
                lines.append(f"  {r.kind} {r.entry_id[:12]}{extra}  {detail}")
            if len(shown) < len(picked):
                lines.append(f"  ... and {len(picked) - len(shown)} more")
        if self.promotions:
            lines.append("promotion:")
            lines += [f"  {n.line()}" for n in self.promotions]
        elif not self.dry_run:
            lines.append("promotion: no new candidates")
        return "\n".join(lines)


class Maintenance:
    def __init__(
        self,
        *,
        store: MaintenanceStore,
        promotions: Promotions,
        catalog: Catalog,
        aging: AgingPolicy,
        clock: Callable[[], dt.datetime],
        lock: RunLock | None = None,
        tz: dt.tzinfo | None = None,
        new_id: Callable[[], str] = lambda: uuid.uuid4().hex[:12],
        sync: Callable[[], None] | None = None,
        expire_turns: Callable[[dt.datetime, bool], int] | None = None,
    ) -> None:
        """`sync` is called before every run: it writes what a serving process's learning
        writer still holds (plans, use counts, observations), so the run sees every plan and
        one it retires does not come back from the queue. `expire_turns(now, dry_run)` removes
        the turns past their retention period and says how many (None: turns are kept)."""
        self.store = store
        self.promotions = promotions
        self.catalog = catalog
        self.aging = aging
        self.clock = clock
        self.lock = lock
        self.tz = tz
        self.new_id = new_id
        self._sync = sync or (lambda: None)
        self.expire_turns = expire_turns

    def night_of(self, moment: dt.datetime) -> str:
        """The local date a run belongs to (nights are counted in the bot's time zone)."""
        return moment.astimezone(self.tz).date().isoformat()

    def run(self, *, dry_run: bool = False) -> MaintenanceReport:
        """Run now (the CLI, cron); skipped when another replica holds the lock."""
        if dry_run or self.lock is None:
            return self._run(dry_run=dry_run)
        with self.lock.hold() as held:
            if not held:
                return self._skipped("another replica is running maintenance")
            return self._run(dry_run=False)

    def run_nightly(self) -> MaintenanceReport:
        """The scheduled job: at most once a night across every replica."""
        if self.lock is None:
            raise ValueError("the nightly job needs a lock")
        with self.lock.hold() as held:
            if not held:
                return self._skipped("another replica is running maintenance")
            night = self.night_of(self.clock())
            if self.store.night_done(night):
                return self._skipped(f"maintenance already ran for {night}")
            report = self._run(dry_run=False)
            self.store.mark_night(
                night, run_id=report.run_id, at=self.clock(), summary=report.summary()
            )
            return report

    # -- the job --------------------------------------------------------------------------------

    def _run(self, *, dry_run: bool) -> MaintenanceReport:
        started = time.perf_counter()
        self._sync()
        now = self.clock()
        report = MaintenanceReport(self.new_id(), now, self.night_of(now), dry_run=dry_run)
        complete = self.catalog.reload()  # see other replicas' approvals and retirements
        tools = set(self.catalog) if complete else None
        if tools is None:
            report.notes.append("the executor catalog is incomplete: no plan dies tonight")
        provenance = {p.fastpath_id: p for p in self.promotions.store.provenance()}
        entries = list(self.store.scan_fastpaths())
        report.scanned = len(entries)
        planned = fastpath_removals(
            entries, now=now, policy=self.aging, tools=tools, provenance=provenance
        )
        planned += autopath_removals(self.store.scan_autopaths(), now=now, policy=self.aging)
        removed = planned if dry_run else self.store.remove(planned, run_id=report.run_id, at=now)
        report.removals = removed
        gone = {r.entry_id for r in planned if r.kind == FASTPATH}  # kept ones wait a night
        survivors = [e for e in entries if e.id not in gone]
        groups = promotion_groups(
            survivors,
            now=now,
            policy=self.promotions.policy,
            builtin_tools=self.catalog.builtin_names,
        )
        report.promotions = self.promotions.nightly(
            groups, now=now, night=report.night, dry_run=dry_run
        )
        if self.expire_turns is not None:
            report.turns_expired = self.expire_turns(now, dry_run)
        report.elapsed_s = time.perf_counter() - started
        log.info("maintenance %s: %s", report.run_id, report.summary())
        return report

    def _skipped(self, why: str) -> MaintenanceReport:
        now = self.clock()
        log.info("maintenance skipped: %s", why)
        return MaintenanceReport(self.new_id(), now, self.night_of(now), skipped=why)
