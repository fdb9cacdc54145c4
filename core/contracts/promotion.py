"""Promotion proposals and the composite executors they became, as the nightly promotion
service (`core.nightly.promotion`) and its store (`storage.promotion_store`) share them."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

PENDING, APPROVED, REJECTED = "pending", "approved", "rejected"  # a proposal's status
AUTO = "auto (tier 2)"  # who approved a proposal tier 2 approved


@dataclass(frozen=True)
class ProposalView:
    id: int | None
    framework_hash: str
    intent: str
    route: str
    plan: dict[str, Any]  # the representative entry's plan: its steps become the macro's
    members: list[tuple[str, str]]  # (fastpath id, canonical hash)
    entries: int
    uses: int
    oldest_at: dt.datetime
    status: str = PENDING
    tier2_nights: int = 0
    last_seen_night: str = ""
    created_at: dt.datetime | None = None
    decided_at: dt.datetime | None = None
    decided_by: str | None = None
    decided_night: str | None = None
    executor_name: str | None = None
    restricted: bool = False  # a member was asked from a cleared chat


@dataclass(frozen=True)
class ExecutorView:
    name: str
    intent: str
    steps: list[dict[str, Any]]
    status: str
    inherited_uses: int
    approved_by: str
    created_at: dt.datetime
    retired_at: dt.datetime | None = None
