"""L1 autopaths: plans that users confirmed, replayed for every request of the same intent.

Every answered turn is *observed*: its intent, intent hash, framework hash (the plan's shape) and
an intent *cluster* (the cluster of the nearest earlier observation when their cosine reaches
`thresholds.cluster`, else a new cluster named after the turn). Verdicts then move counts:

- A positive verdict counts a confirmation for (cluster, framework hash). After
  `min_confirmations` of them the plan becomes an *active* autopath of that cluster. Plans
  holding literals copied from the query (`query_specific`) are never promoted.
- A negative verdict counts a failure for the same pair, and towards an *anti-autopath*:
  `anti_failures` negative verdicts on one (intent hash, framework hash) block that framework in
  the clusters where they were observed for `anti_days` days. A positive verdict lifts the block.
  Once a block has expired, a new negative verdict starts counting again from one.
- A withdrawn verdict (a removed reaction) undoes its count; it never goes below zero.
- Lookup finds the request's cluster by cosine >= `thresholds.cluster` to a recent observation,
  or, failing that, by its exact intent hash when the best cosine to that cluster's recent
  observations is >= `thresholds.floor`; otherwise it abstains. It serves the cluster's
  champion: the unblocked active autopath with the best score (`core.fastpath.autopath_score`). On
  the
  intent-hash route only autopaths learnt for that same intent hash are eligible.
- An autopath whose Wilson bound falls under `demotion_floor` after `demotion_min_verdicts`
  verdicts is *demoted*: never served, kept so maintenance can prune it (design 4.3).

Every state change carries a timestamp from the injected clock. The database is the source of
truth; the recent embeddings of each cluster are mirrored in memory for speed. The counting
itself is core.fastpath.autopath_verdicts.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from core.contracts.autopaths import (
    VERDICTS,
    AntiView,
    AutopathHit,
    AutopathView,
    Observation,
    Plan,
)
from core.contracts.learning_ports import (  # declared with the stores the bot learns in
    AutopathStore as AutopathStore,
)
from core.contracts.learning_ports import AutopathTransaction as AutopathTransaction
from core.fastpath.autopath_index import ClusterIndex, unit
from core.fastpath.autopath_score import anti_blocks, autopath_score
from core.fastpath.autopath_verdicts import VerdictCounts
from core.fastpath.thresholds import CosineThresholds

__all__ = ["AutopathStore", "AutopathTransaction", "Autopaths", "champion_key"]

log = logging.getLogger("ricorda.autopath")

_EPS = 1e-6  # float32 rounding: a cosine of exactly 0.90 must meet a 0.90 threshold


def champion_key(autopath: AutopathView) -> tuple[float, int, int, int]:
    """Sort key, best first: score, then confirmations, then uses, then the older id."""
    return (-autopath_score(autopath), -autopath.confirmations, -autopath.uses, autopath.id or 0)


class Autopaths:
    """Observes turns, counts verdicts and serves confirmed plans (design section 4.2)."""

    def __init__(
        self,
        store: AutopathStore,
        *,
        thresholds: CosineThresholds,
        min_confirmations: int = 1,
        anti_failures: int = 3,
        anti_days: int = 30,
        clock: Callable[[], dt.datetime],
        recent_per_cluster: int = 32,
        demotion_floor: float = 0.2,
        demotion_min_verdicts: int = 3,
        active_refresh_seconds: float = 5.0,
    ) -> None:
        for name, value in (
            ("min_confirmations", min_confirmations),
            ("anti_failures", anti_failures),
            ("anti_days", anti_days),
            ("recent_per_cluster", recent_per_cluster),
            ("demotion_min_verdicts", demotion_min_verdicts),
        ):
            if value < 1:
                raise ValueError(f"{name} must be at least 1, got {value}")
        self._store = store
        self._thresholds = thresholds
        self._clock = clock
        self._counts = VerdictCounts(
            store, min_confirmations=min_confirmations, anti_failures=anti_failures,
            anti_days=anti_days, demotion_floor=demotion_floor,
            demotion_min_verdicts=demotion_min_verdicts, clock=clock,
        )
        self._lock = threading.Lock()
        self._per_cluster = recent_per_cluster
        self._index = ClusterIndex(per_cluster=recent_per_cluster)
        self._intent_clusters: dict[str, set[str]] = {}
        self._active_refresh = active_refresh_seconds
        self._active: frozenset[str] = frozenset()
        self._active_at: float | None = None  # None: read them on the next question
        self._load(recent_per_cluster)

    # --- observing and looking up ---------------------------------------------------------

    def observe(
        self,
        *,
        turn_id: str,
        intent: str,
        intent_hash: str,
        embedding: np.ndarray,
        framework_hash: str,
        plan: Plan,
        query_specific: bool,
        latency_ms: float,
        cluster_id: str | None = None,
        restricted: bool = False,
    ) -> Observation:
        """Record an answered turn. Pass `cluster_id` (an L1 hit's) to file it in that cluster,
        so verdicts on a replayed answer count for the autopath that produced it."""
        vector = unit(embedding)
        self._index.check_dimension(vector)
        if cluster_id is None:
            with self._lock:
                nearest = self._index.nearest_to(vector)
            joins = nearest is not None and nearest[1] >= self._thresholds.cluster - _EPS
            cluster_id = nearest[0] if joins and nearest is not None else turn_id
        observation = Observation(
            turn_id=turn_id,
            intent=intent,
            intent_hash=intent_hash,
            cluster_id=cluster_id,
            framework_hash=framework_hash,
            plan=plan,
            embedding=vector,
            query_specific=query_specific,
            latency_ms=float(latency_ms),
            created_at=self._clock(),
            restricted=restricted,
        )
        if self._store.add_observation(observation):
            with self._lock:
                self._remember(cluster_id, intent_hash, vector)
            return observation
        with self._store.transaction() as tx:  # already observed: report what is stored
            stored = tx.observation(turn_id)
        return stored if stored is not None else observation

    def lookup(self, *, embedding: np.ndarray, intent_hash: str) -> AutopathHit | None:
        """The champion plan of the request's cluster, or None (abstain)."""
        vector = unit(embedding)
        with self._lock:
            found = self._cluster_for(vector, intent_hash)
        if found is None:
            return None
        cluster_id, cosine, route = found
        autopaths, antis = self._store.cluster_state(cluster_id)
        now = self._clock()
        blocked = {a.framework_hash for a in antis if anti_blocks(a, now)}
        eligible = [
            a
            for a in autopaths
            if a.status == "active"
            and a.id is not None
            and a.framework_hash not in blocked
            and (route == "cosine" or a.intent_hash == intent_hash)
        ]
        if not eligible:
            return None
        champion = min(eligible, key=champion_key)
        assert champion.id is not None
        score = autopath_score(champion)
        return AutopathHit(champion.plan, champion.id, cluster_id, score, cosine, route)

    def active_frameworks(self) -> frozenset[str]:
        """The frameworks of the active autopaths: the cascade asks before paying for an
        embedding on a request the rule planner already resolves (and, when there are none,
        before hashing the plan). Read from the store at most every `active_refresh_seconds`
        (another replica's promotion reaches this one that late: until then the planner
        answers, with the same plan); this process's own verdicts are seen on the next
        question."""
        now = time.monotonic()
        at = self._active_at
        if at is None or now - at >= self._active_refresh:
            self._active = frozenset(
                a.framework_hash for a in self._store.autopaths() if a.status == "active"
            )
            self._active_at = now
        return self._active

    # --- verdicts and uses ----------------------------------------------------------------

    def confirm(self, turn_id: str, *, user: str | None = None) -> None:
        """A positive verdict on the turn's observation (by `user`: see `VerdictCounts.count`)."""
        self._verdict(turn_id, "positive", +1, user)

    def reject(self, turn_id: str, *, user: str | None = None) -> None:
        """A negative verdict on the turn's observation."""
        self._verdict(turn_id, "negative", +1, user)

    def withdraw(self, turn_id: str, verdict: str, *, user: str | None = None) -> None:
        """Undo one earlier `verdict` (a removed reaction); nothing happens if none is left."""
        if verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, not {verdict!r}")
        self._verdict(turn_id, verdict, -1, user)

    def note_use(self, autopath_id: int, *, ok: bool, latency_ms: float) -> None:
        """Record a replay; failed replays count against the score like negative verdicts."""
        now = self._clock()
        with self._store.transaction() as tx:
            current = tx.autopath_by_id(autopath_id)
            if current is None:
                log.info("use of unknown autopath %s ignored", autopath_id)
                return
            uses = current.uses + 1
            previous = current.mean_latency_ms or 0.0
            updated = replace(
                current,
                uses=uses,
                failed_uses=current.failed_uses + (0 if ok else 1),
                mean_latency_ms=previous + (float(latency_ms) - previous) / uses,
                last_used_at=now,
            )
            tx.save_autopath(self._counts.with_status(updated, now))

    # --- listing --------------------------------------------------------------------------

    def autopaths(self, *, include_candidates: bool = False) -> list[AutopathView]:
        """Promoted autopaths (active and demoted), by cluster, champion first."""
        rows = [a for a in self._store.autopaths() if include_candidates or a.status != "candidate"]
        return sorted(rows, key=lambda a: (a.cluster_id, *champion_key(a)))

    def purge_plans(self) -> tuple[int, int]:
        """Forget every learned plan: autopaths stop serving at once in every process (each
        lookup reads them from the store), and the observations they were learned from go, so
        a late ✓ on an old answer cannot bring one back. Anti-autopaths stay in force."""
        with self._lock:
            purged = self._store.purge_plans()
            self._index = ClusterIndex(per_cluster=self._per_cluster)
            self._intent_clusters = {}
            self._active_at = None
        return purged

    def anti_autopaths(self) -> list[AntiView]:
        """Blocks in force now (failure counts below the threshold are not listed)."""
        now = self._clock()
        return [a for a in self._store.anti_autopaths() if anti_blocks(a, now)]

    # --- internals ------------------------------------------------------------------------

    def _load(self, per_cluster: int) -> None:
        recent = self._store.recent_embeddings(per_cluster)
        if recent:
            dimension = recent[-1][1].shape[0]  # the newest observation's model wins
            skipped = 0
            for cluster_id, embedding in recent:
                if embedding.shape[0] == dimension:
                    self._index.add(cluster_id, unit(embedding))
                else:
                    skipped += 1
            if skipped:
                log.warning("%d observations from another embedding model were skipped", skipped)
        for intent_hash, cluster_id in self._store.intent_clusters():
            self._intent_clusters.setdefault(intent_hash, set()).add(cluster_id)

    def _remember(self, cluster_id: str, intent_hash: str, vector: np.ndarray) -> None:
        self._index.add(cluster_id, vector)
        self._intent_clusters.setdefault(intent_hash, set()).add(cluster_id)

    def _cluster_for(self, vector: np.ndarray, intent_hash: str) -> tuple[str, float, str] | None:
        nearest = self._index.nearest_to(vector)
        if nearest is None:
            return None
        if nearest[1] >= self._thresholds.cluster - _EPS:
            return nearest[0], nearest[1], "cosine"
        clusters = sorted(self._intent_clusters.get(intent_hash, ()))
        best = self._index.best_in_clusters(vector, clusters) if clusters else None
        if best is not None and best[0] >= self._thresholds.floor - _EPS:
            return best[1], best[0], "intent"
        return None

    def _verdict(self, turn_id: str, verdict: str, delta: int, user: str | None = None) -> None:
        try:
            self._counts.count(turn_id, verdict, delta, user)
        finally:
            self._active_at = None  # it may have promoted or demoted: read them again
