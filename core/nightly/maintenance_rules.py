"""The nightly rules, as pure functions of what the database holds and the time (design 4.3/4.4).

Nothing here reads a clock or a database: maintenance hands in the entries, the catalog's tool
names, the provenance of approved executors and `now`, and gets back what to remove and why,
and which groups of entries qualify for promotion. Orders are stable (ties broken by id), so two
runs over the same data decide the same.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from core.contracts.maintenance import (
    AUTOPATH,
    FASTPATH,
    AutopathSummary,
    EntrySummary,
    Provenance,
    Removal,
)

MISSING_TOOL, SUPERSEDED = "missing_tool", "superseded"
NEVER_REUSED, UNUSED, OVER_CAP = "never_reused", "unused", "over_cap"
AUTOPATH_DEMOTED, AUTOPATH_IDLE = "autopath_demoted", "autopath_idle"
RULES = (MISSING_TOOL, SUPERSEDED, NEVER_REUSED, UNUSED, OVER_CAP, AUTOPATH_DEMOTED, AUTOPATH_IDLE)
WHY = {
    MISSING_TOOL: "its plan uses a tool no longer in the catalog",
    SUPERSEDED: "superseded by a promoted executor (uses inherited)",
    NEVER_REUSED: "never reused and older than the limit",
    UNUSED: "not used for longer than the limit",
    OVER_CAP: "least recently used beyond the cap on entries",
    AUTOPATH_DEMOTED: "demoted longer ago than the limit",
    AUTOPATH_IDLE: "active but idle longer than the limit",
}


def removal_why(removal: Removal) -> str:
    """The sentence the maintenance report gives for a removal's rule."""
    return WHY.get(removal.rule, removal.rule)


def plan_tools(plan: dict[str, Any]) -> list[str]:
    """The tool of each step of a stored plan, in order."""
    return [str(step.get("tool", "")) for step in plan.get("steps", [])]


@dataclass(frozen=True)
class AgingPolicy:
    never_reused_days: int = 14
    unused_days: int = 30
    max_entries: int = 500
    autopath_demoted_days: int = 30
    autopath_idle_days: int = 90


@dataclass(frozen=True)
class PromotionPolicy:
    min_entries: int = 3
    min_uses: int = 15
    min_age_days: int = 30
    tier2: bool = False
    tier2_min_entries: int = 5
    tier2_min_uses: int = 50
    tier2_nights: int = 3


@dataclass(frozen=True)
class Group:
    """L0 entries sharing (framework hash, intent): a promotion candidate."""

    framework_hash: str
    intent: str
    members: list[EntrySummary] = field(default_factory=list)

    @property
    def uses(self) -> int:
        return sum(m.n_uses for m in self.members)

    @property
    def oldest_at(self) -> dt.datetime:
        return min(m.created_at for m in self.members)

    @property
    def representative(self) -> EntrySummary:
        """The most used member (then the oldest, then the smallest id): its steps become
        the macro's."""
        return min(self.members, key=lambda m: (-m.n_uses, m.created_at, m.id))


def fastpath_removals(
    entries: Iterable[EntrySummary],
    *,
    now: dt.datetime,
    policy: AgingPolicy,
    tools: Collection[str] | None,
    provenance: Mapping[str, Provenance],
) -> list[Removal]:
    """Death first (so a superseded entry's uses are inherited even if it is also old), then
    aging, then the cap by last use. `tools` None means the catalog is incomplete: no death."""
    never_reused_before = now - dt.timedelta(days=policy.never_reused_days)
    unused_before = now - dt.timedelta(days=policy.unused_days)
    removals: list[Removal] = []
    kept: list[EntrySummary] = []
    for e in entries:
        rule, detail, heir = _rule(e, never_reused_before, unused_before, tools, provenance)
        if rule is None:
            kept.append(e)
            continue
        removals.append(
            Removal(
                FASTPATH, e.id, rule, detail or e.canonical_text, e.n_uses, heir, e.revision,
                e.restricted,
            )
        )
    excess = len(kept) - max(0, policy.max_entries)
    if excess > 0:
        kept.sort(key=lambda e: (e.last_used_at, e.created_at, e.id))
        removals.extend(
            Removal(
                FASTPATH, e.id, OVER_CAP, e.canonical_text, e.n_uses, None, e.revision,
                e.restricted,
            )
            for e in kept[:excess]
        )
    return removals


def _rule(
    e: EntrySummary,
    never_reused_before: dt.datetime,
    unused_before: dt.datetime,
    tools: Collection[str] | None,
    provenance: Mapping[str, Provenance],
) -> tuple[str | None, str, str | None]:
    if tools is not None:
        missing = [t for t in plan_tools(e.plan) if t not in tools]
        if missing:
            names = ", ".join(sorted(set(missing)))
            return MISSING_TOOL, f"missing {names}: {e.canonical_text}", None
        link = provenance.get(e.id)
        if (
            link is not None
            and link.canonical_hash == e.canonical_hash
            and link.framework_hash == e.framework_hash  # not rewritten with the macro since
        ):
            return SUPERSEDED, e.canonical_text, link.executor_name
    if e.n_uses == 0 and e.created_at < never_reused_before:
        return NEVER_REUSED, "", None
    if e.last_used_at < unused_before:
        return UNUSED, "", None
    return None, "", None


def autopath_removals(
    autopaths: Iterable[AutopathSummary], *, now: dt.datetime, policy: AgingPolicy
) -> list[Removal]:
    demoted_before = now - dt.timedelta(days=policy.autopath_demoted_days)
    idle_before = now - dt.timedelta(days=policy.autopath_idle_days)
    out = []
    for a in sorted(autopaths, key=lambda a: a.id):
        if a.status == "demoted" and (a.demoted_at or a.updated_at) < demoted_before:
            out.append(Removal(AUTOPATH, str(a.id), AUTOPATH_DEMOTED, f"cluster {a.cluster_id}"))
        elif a.status == "active":
            last = a.last_used_at or a.promoted_at or a.created_at
            if last < idle_before:
                out.append(Removal(AUTOPATH, str(a.id), AUTOPATH_IDLE, f"cluster {a.cluster_id}"))
    return out


def promotion_groups(
    entries: Iterable[EntrySummary],
    *,
    now: dt.datetime,
    policy: PromotionPolicy,
    builtin_tools: Collection[str] | None = None,
) -> list[Group]:
    """Groups over the tier-1 floor: >= min_entries distinct entries, >= min_uses uses in all,
    the oldest >= min_age_days old; multi-step, not query-specific plans only (single steps
    already have their executor; query-specific plans hold literals). With `builtin_tools`,
    plans naming anything else (a macro) are left out."""
    groups: dict[tuple[str, str], Group] = {}
    for e in entries:
        tools = plan_tools(e.plan)
        if e.query_specific or len(tools) < 2:
            continue
        if builtin_tools is not None and any(t not in builtin_tools for t in tools):
            continue
        key = (e.framework_hash, e.intent)
        groups.setdefault(key, Group(*key)).members.append(e)
    return sorted(
        (g for g in groups.values() if _meets(g, now, policy.min_entries, policy.min_uses, policy)),
        key=lambda g: (-g.uses, g.framework_hash, g.intent),
    )


def meets_tier2(group: Group, now: dt.datetime, policy: PromotionPolicy) -> bool:
    return _meets(group, now, policy.tier2_min_entries, policy.tier2_min_uses, policy)


def _meets(
    group: Group, now: dt.datetime, min_entries: int, min_uses: int, policy: PromotionPolicy
) -> bool:
    distinct = len({m.canonical_hash for m in group.members})
    old_enough = group.oldest_at <= now - dt.timedelta(days=policy.min_age_days)
    return distinct >= min_entries and group.uses >= min_uses and old_enough
