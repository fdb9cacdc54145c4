"""Counting verdicts on autopaths (L1): a confirmation or failure for (cluster, framework), a
failure towards an anti-autopath for (intent, framework), each user counted once per plan, and
the status that follows (candidate, active, demoted). Apart from core.fastpath.autopath, which
observes turns, finds a request's cluster and serves the champion; this module is the policy
those counts follow (see that module's docstring for the rules).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Iterable
from dataclasses import replace

from core.contracts.autopaths import AntiView, AutopathView, Observation
from core.contracts.learning_ports import AutopathStore, AutopathTransaction
from core.fastpath.autopath_score import anti_blocks, status_for

__all__ = ["VerdictCounts", "anti_key"]

log = logging.getLogger("ricorda.autopath")


class VerdictCounts:
    """Moves the counts of a verdict in one store transaction, and settles an autopath's
    status from them."""

    def __init__(
        self,
        store: AutopathStore,
        *,
        min_confirmations: int,
        anti_failures: int,
        anti_days: int,
        demotion_floor: float,
        demotion_min_verdicts: int,
        clock: Callable[[], dt.datetime],
    ) -> None:
        self._store = store
        self._min_confirmations = min_confirmations
        self._anti_failures = anti_failures
        self._anti_span = dt.timedelta(days=anti_days)
        self._demotion_floor = demotion_floor
        self._demotion_min_verdicts = demotion_min_verdicts
        self._clock = clock

    def count(self, turn_id: str, verdict: str, delta: int, user: str | None = None) -> None:
        """Move the counts. A user counts once per plan: a verdict of `user` moves the
        autopath's count (its cluster and framework) and the anti-autopath's (its intent and
        framework) only when it is the user's one verdict of that kind there, so one person's
        three 👎 on their own turns do not block a plan for everyone, and one person's ✓s do not
        promote it. The feedback table already holds the verdict (or no longer holds a withdrawn
        one) when this runs. `user` None (no feedback table: tests, tools) counts every one."""
        now = self._clock()
        with self._store.transaction() as tx:
            obs = tx.observation(turn_id)
            if obs is None:
                log.info("%s verdict on unobserved turn %s ignored", verdict, turn_id)
                return
            positives, negatives = obs.positives, obs.negatives
            if verdict == "positive":
                positives += delta
            else:
                negatives += delta
            if positives < 0 or negatives < 0:
                return  # nothing left to withdraw
            tx.set_verdict_counts(turn_id, positives=positives, negatives=negatives)

            def first(**scope: str) -> bool:
                """The user's one verdict of this kind in `scope`, other turns excluded."""
                if user is None:
                    return True
                return not tx.other_verdicts(
                    user, verdict, turn_id, framework_hash=obs.framework_hash, **scope
                )

            if not obs.query_specific and first(cluster_id=obs.cluster_id):
                self._on_autopath(tx, obs, verdict, delta, now)
            if verdict == "positive":
                if delta > 0:
                    for anti in tx.antis(obs.intent_hash, obs.framework_hash):
                        tx.delete_anti(anti.cluster_id, anti.intent_hash, anti.framework_hash)
                        if anti_blocks(anti, now):
                            log.info("anti-autopath %s lifted by turn %s", anti_key(anti), turn_id)
            elif first(intent_hash=obs.intent_hash):
                self._on_anti(tx, obs, delta, now)

    def _on_autopath(
        self,
        tx: AutopathTransaction,
        obs: Observation,
        verdict: str,
        delta: int,
        now: dt.datetime,
    ) -> None:
        current = tx.autopath(obs.cluster_id, obs.framework_hash)
        if current is None:
            if delta < 0:
                return
            current = AutopathView(
                id=None,
                cluster_id=obs.cluster_id,
                framework_hash=obs.framework_hash,
                intent_hash=obs.intent_hash,
                plan=obs.plan,
                created_at=now,
                updated_at=now,
            )
        if verdict == "positive":
            current = replace(current, confirmations=max(0, current.confirmations + delta))
            if delta > 0:  # the latest confirmed wording of the plan is the one replayed
                current = replace(current, plan=obs.plan, intent_hash=obs.intent_hash)
        else:
            current = replace(current, failures=max(0, current.failures + delta))
        tx.save_autopath(self.with_status(current, now))

    def _on_anti(
        self, tx: AutopathTransaction, obs: Observation, delta: int, now: dt.datetime
    ) -> None:
        rows = tx.antis(obs.intent_hash, obs.framework_hash)
        if delta > 0 and any(r.blocked_until is not None and r.blocked_until <= now for r in rows):
            for row in rows:  # the block expired: counting starts afresh
                tx.delete_anti(row.cluster_id, row.intent_hash, row.framework_hash)
            rows = []
        mine = next((r for r in rows if r.cluster_id == obs.cluster_id), None)
        if mine is None:
            if delta < 0:
                return
            mine = AntiView(obs.cluster_id, obs.intent_hash, obs.framework_hash, 0, None, now)
            rows.append(mine)
        updated = replace(mine, failures=max(0, mine.failures + delta), updated_at=now)
        rows = [updated if r is mine else r for r in rows]
        if sum(r.failures for r in rows) >= self._anti_failures:
            if delta > 0:
                until = now + self._anti_span
                rows = [replace(r, blocked_until=until, updated_at=now) for r in rows]
                log.info("anti-autopath %s blocks until %s", anti_key(updated), until.isoformat())
        else:
            rows = [
                replace(r, blocked_until=None, updated_at=now) if r.blocked_until else r
                for r in rows
            ]
        self._save_antis(tx, rows)

    @staticmethod
    def _save_antis(tx: AutopathTransaction, rows: Iterable[AntiView]) -> None:
        for row in rows:
            if row.failures > 0:
                tx.save_anti(row)
            else:
                tx.delete_anti(row.cluster_id, row.intent_hash, row.framework_hash)

    def with_status(self, autopath: AutopathView, now: dt.datetime) -> AutopathView:
        status = status_for(
            confirmations=autopath.confirmations,
            fail=autopath.failures + autopath.failed_uses,
            min_confirmations=self._min_confirmations,
            demotion_floor=self._demotion_floor,
            demotion_min_verdicts=self._demotion_min_verdicts,
        )
        autopath = replace(autopath, updated_at=now)
        if status == autopath.status:
            return autopath
        log.info(
            "autopath %s (cluster %s, framework %s): %s -> %s",
            autopath.id,
            autopath.cluster_id,
            autopath.framework_hash,
            autopath.status,
            status,
        )
        if status == "active":
            return replace(autopath, status=status, promoted_at=now, demoted_at=None)
        if status == "demoted":
            return replace(autopath, status=status, demoted_at=now)
        return replace(autopath, status=status, promoted_at=None, demoted_at=None)


def anti_key(anti: AntiView) -> str:
    return (
        f"(cluster {anti.cluster_id}, intent {anti.intent_hash}, framework {anti.framework_hash})"
    )
