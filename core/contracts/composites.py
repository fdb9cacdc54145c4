"""A composite executor (macro) as it is stored and loaded: a name for the steps of a recurring
multi-step plan. The catalog (`core.planning.catalog`) builds plans and runners from it; the
promotion store (`storage.promotion_store`) keeps it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class CompositeSpec:
    """A named macro: the steps of the multi-step plan it stands for, run in order.

    `framework_hash` and `intent` are those of the plan it replaces: the planner emits the macro
    for a request whose own plan has exactly these steps and this shape."""

    name: str
    route: str
    steps: list[dict[str, Any]]
    intent: str
    framework_hash: str
    shape: dict[str, int] = field(default_factory=dict)
    assumed: list[str] = field(default_factory=list)
