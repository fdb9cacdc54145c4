"""What L1 remembers and serves: observations, autopaths, anti-autopaths and hits.

Plain frozen records shared by `core.fastpath.autopath` (the rules) and `storage.autopath_store`
(the rows); state changes make new records with `dataclasses.replace`. What is computed from
them (an autopath's score, whether an anti-autopath blocks) lives in
`core.fastpath.autopath_score`.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

Plan = dict[str, Any] | list[Any]
"""Opaque to this module: stored as JSON and handed back unchanged."""

VERDICTS = ("positive", "negative")
STATUSES = ("candidate", "active", "demoted")


@dataclass(frozen=True)
class Observation:
    """One answered turn as L1 remembers it; `embedding` is normalised to unit length."""

    turn_id: str
    intent: str
    intent_hash: str
    cluster_id: str
    framework_hash: str
    plan: Plan
    embedding: np.ndarray = field(compare=False, repr=False)
    query_specific: bool
    latency_ms: float
    created_at: dt.datetime
    positives: int = 0
    negatives: int = 0
    restricted: bool = False  # asked from a cleared chat (core.knowledge.clearance)


@dataclass(frozen=True)
class AutopathView:
    """One (cluster, framework hash) pair with its evidence; `id` is None until stored."""

    id: int | None
    cluster_id: str
    framework_hash: str
    intent_hash: str
    plan: Plan
    created_at: dt.datetime
    updated_at: dt.datetime
    confirmations: int = 0
    failures: int = 0  # negative verdicts
    uses: int = 0  # replays, failed ones included
    failed_uses: int = 0
    mean_latency_ms: float | None = None  # over replays
    status: str = "candidate"
    promoted_at: dt.datetime | None = None
    last_used_at: dt.datetime | None = None
    demoted_at: dt.datetime | None = None


@dataclass(frozen=True)
class AntiView:
    """Negative verdicts on (intent hash, framework hash) seen in one cluster, and the block."""

    cluster_id: str
    intent_hash: str
    framework_hash: str
    failures: int
    blocked_until: dt.datetime | None
    updated_at: dt.datetime


@dataclass(frozen=True)
class AutopathHit:
    """What L1 serves: the plan to replay and where it came from."""

    plan: Plan
    autopath_id: int
    cluster_id: str
    score: float
    cosine: float
    route: str  # "cosine" (cluster threshold) or "intent" (intent hash above the floor)
