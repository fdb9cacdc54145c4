"""What nightly maintenance reads and removes: summaries of L0 entries and autopaths, the
provenance of approved executors, and removals.

Shared by the rules (`core.nightly.maintenance_rules`, which decides and explains) and the store
(`storage.maintenance_store`, which scans and deletes).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

FASTPATH, AUTOPATH = "fastpath", "autopath"  # what a removal removes


@dataclass(slots=True)
class EntrySummary:
    """What maintenance needs of an L0 entry (no embedding). `revision` is the row version
    seen: a removal applies only if the row has not been rewritten or used since. Treated as
    read-only; not frozen because a night builds 100,000 of them and frozen init is slow."""

    id: str
    canonical_hash: str
    canonical_text: str
    framework_hash: str
    intent: str
    route: str
    plan: dict[str, Any]
    query_specific: bool
    created_at: dt.datetime
    last_used_at: dt.datetime
    n_uses: int
    revision: int = 0
    restricted: bool = False  # asked from a cleared chat: text for cleared viewers only


@dataclass(frozen=True)
class AutopathSummary:
    id: int
    cluster_id: str
    status: str  # candidate | active | demoted
    created_at: dt.datetime
    updated_at: dt.datetime
    promoted_at: dt.datetime | None
    last_used_at: dt.datetime | None
    demoted_at: dt.datetime | None


@dataclass(frozen=True)
class Provenance:
    """One L0 entry an approved executor replaced (a row of `promotions`)."""

    executor_name: str
    fastpath_id: str
    canonical_hash: str
    framework_hash: str


@dataclass(frozen=True, slots=True)
class Removal:
    kind: str  # fastpath | autopath
    entry_id: str
    rule: str
    detail: str = ""
    uses: int = 0
    heir: str | None = None
    revision: int = 0
    restricted: bool = False  # `detail` quotes a question asked from a cleared chat
