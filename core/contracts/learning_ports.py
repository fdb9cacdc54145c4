"""The stores the bot learns in, as core needs them: the plan cache (L0, `FastpathStore`), the
autopaths (L1, `AutopathStore` and its transaction), and the nightly maintenance and promotion
that tend them (`MaintenanceStore`, `RunLock`, `PromotionStore`). Beside core.contracts.ports,
which declares the stores every answer reads (facts, turns, documents, models, conversations);
implementations live in `storage/`.
"""

from __future__ import annotations

import builtins
import datetime as dt
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np

    from core.contracts.autopaths import AntiView, AutopathView, Observation
    from core.contracts.composites import CompositeSpec
    from core.contracts.fastpath import FastpathEntry
    from core.contracts.maintenance import AutopathSummary, EntrySummary, Provenance, Removal
    from core.contracts.promotion import ExecutorView, ProposalView

__all__ = [
    "AutopathStore",
    "AutopathTransaction",
    "FastpathStore",
    "MaintenanceStore",
    "PromotionStore",
    "RunLock",
]


# --- the plan cache (L0) -----------------------------------------------------------------


class FastpathStore(Protocol):
    """Storage of L0 entries; the database is the source of truth (see storage.fastpath_store)."""

    def upsert(self, entry: FastpathEntry) -> FastpathEntry:
        """Insert, or overwrite the entry with the same `canonical_hash` (last writer wins);
        returns the stored entry (which keeps the existing row's id, created_at and n_uses)."""
        ...

    def by_hash(self, canonical_hash: str) -> FastpathEntry | None: ...

    def by_id(self, entry_id: str) -> FastpathEntry | None: ...

    def touch(self, entry_id: str, now: dt.datetime | None = None) -> bool:
        """Count one use (n_uses + 1, last_used_at = now); False when the entry is gone."""
        ...

    def delete(self, entry_id: str) -> bool: ...

    def delete_by_hash(self, canonical_hash: str) -> bool: ...

    def purge_all(self) -> int: ...

    def count(self) -> int: ...

    def list(self, limit: int = 20, offset: int = 0) -> builtins.list[FastpathEntry]:
        """Most used first; ties by most recently used, then id."""
        ...

    def iter_all(self) -> Iterator[FastpathEntry]: ...

    def nearest(
        self, embedding: np.ndarray, *, embedder: str, k: int = 1
    ) -> builtins.list[tuple[FastpathEntry, float]]:
        """Best cosine first, among entries that are not query-specific and were embedded by
        `embedder`; every entry returned still exists in the database."""
        ...


# --- autopaths (L1) ----------------------------------------------------------------------


class AutopathTransaction(Protocol):
    """Reads and writes inside one database transaction (rows read here are locked)."""

    def observation(self, turn_id: str) -> Observation | None: ...

    def set_verdict_counts(self, turn_id: str, *, positives: int, negatives: int) -> None: ...

    def autopath(self, cluster_id: str, framework_hash: str) -> AutopathView | None: ...

    def autopath_by_id(self, autopath_id: int) -> AutopathView | None: ...

    def save_autopath(self, autopath: AutopathView) -> AutopathView:
        """Insert (id None, returns it with its id) or update by id."""
        ...

    def antis(self, intent_hash: str, framework_hash: str) -> list[AntiView]: ...

    def save_anti(self, anti: AntiView) -> None:
        """Insert or replace the row of (cluster, intent hash, framework hash)."""
        ...

    def delete_anti(self, cluster_id: str, intent_hash: str, framework_hash: str) -> None: ...

    def other_verdicts(
        self,
        user: str,
        verdict: str,
        turn_id: str,
        *,
        framework_hash: str,
        cluster_id: str | None = None,
        intent_hash: str | None = None,
    ) -> int:
        """How many other observed turns with this framework (and cluster, or intent hash)
        carry `user`'s `verdict`."""
        ...


class AutopathStore(Protocol):
    """Where observations, autopaths and anti-autopaths live (storage.autopath_store)."""

    def add_observation(self, observation: Observation) -> bool:
        """Store it; False (and no change) when that turn was already observed."""
        ...

    def recent_embeddings(self, per_cluster: int) -> list[tuple[str, np.ndarray]]:
        """(cluster id, embedding) of the newest `per_cluster` observations of each cluster,
        oldest first."""
        ...

    def intent_clusters(self) -> list[tuple[str, str]]:
        """Every distinct (intent hash, cluster id) observed."""
        ...

    def cluster_state(self, cluster_id: str) -> tuple[list[AutopathView], list[AntiView]]: ...

    def autopaths(self) -> list[AutopathView]: ...

    def anti_autopaths(self) -> list[AntiView]: ...

    def purge_plans(self) -> tuple[int, int]:
        """Delete every autopath and observation (anti-autopaths stay): (autopaths, obs)."""
        ...

    def transaction(self) -> AbstractContextManager[AutopathTransaction]: ...


# --- nightly maintenance and promotion ---------------------------------------------------


class MaintenanceStore(Protocol):
    def scan_fastpaths(self) -> Iterable[EntrySummary]: ...

    def scan_autopaths(self) -> Iterable[AutopathSummary]: ...

    def remove(self, removals: list[Removal], *, run_id: str, at: dt.datetime) -> list[Removal]:
        """Remove and log in the same transactions; an L0 entry rewritten or used since it was
        read is kept. Inherited uses are added to the heir executor. Returns what was removed."""
        ...

    def night_done(self, night: str) -> bool: ...

    def mark_night(
        self, night: str, *, run_id: str, at: dt.datetime, summary: dict[str, Any]
    ) -> bool:
        """Record the night as done; False when another replica recorded it first."""
        ...


class RunLock(Protocol):
    def hold(self) -> AbstractContextManager[bool]:
        """True inside when this process holds the lock, False when another one does."""
        ...


class PromotionStore(Protocol):
    """Proposals, composite executors and provenance (storage.promotion_store)."""

    def proposal_for(self, framework_hash: str, intent: str) -> ProposalView | None: ...

    def proposal(self, proposal_id: int) -> ProposalView | None: ...

    def proposals(self, status: str | None = None) -> list[ProposalView]: ...

    def add_proposal(self, proposal: ProposalView) -> ProposalView: ...

    def update_proposal(self, proposal: ProposalView) -> None:
        """Refresh a pending proposal's members, counts and nights (by id)."""
        ...

    def group_members(self, framework_hash: str, intent: str) -> list[tuple[str, str]]:
        """(id, canonical hash) of the L0 entries of that group now (not query-specific)."""
        ...

    def approve(
        self, proposal_id: int, spec: CompositeSpec, members: list[tuple[str, str]], *,
        by: str, at: dt.datetime, night: str,
    ) -> bool:
        """In one transaction: the executor row, its provenance, the proposal decided.
        False (and no change) when the proposal is no longer pending."""
        ...

    def reject(self, proposal_id: int, *, by: str, at: dt.datetime, night: str) -> bool: ...

    def executor_named(self, name: str) -> ExecutorView | None: ...

    def executors(self) -> list[ExecutorView]: ...

    def composites(self) -> list[CompositeSpec]:
        """The active composite executors, as the catalog loads them."""
        ...

    def retire(self, name: str, *, by: str, at: dt.datetime) -> bool: ...

    def provenance(self) -> list[Provenance]:
        """Provenance rows of the active executors."""
        ...

    def auto_approved_on(self, night: str) -> bool: ...
