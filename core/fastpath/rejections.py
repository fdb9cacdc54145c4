"""A rejected question is worked out afresh, at every level, until someone confirms it.

A ✗ on an answer replaces the question's L0 entry with a *rejection marker*: an entry with
origin `rejected`, no steps and no embedding. While it stands, the cascade answers that question
with the planner alone — no exact replay, no other question's plan by cosine (L0b), no autopath
(L1) — and records no plan over the marker. A ✓ on any answer to the question lifts it, and the
next successful answer is cached again. Markers age like any entry (the nightly aging drops one
never used after `aging_never_reused_days`, and one that replaced a used plan, keeping its use
count, once unused for `aging_unused_days`); `fastpaths purge` removes them like any entry.

Keeping the marker in the L0 table costs nothing on the answer path: the cascade reads the
question's entry by hash anyway, and every replica sees the same row.
"""

from __future__ import annotations

import datetime as dt

from core.contracts.fastpath import FastpathEntry, new_fastpath_id
from core.contracts.learning_ports import FastpathStore

REJECTED = "rejected"


def is_rejection(entry: FastpathEntry | None) -> bool:
    return entry is not None and entry.origin == REJECTED


def mark_rejected(
    fastpaths: FastpathStore,
    canonical_text: str,
    canonical_hash: str,
    now: dt.datetime,
    *,
    restricted: bool = False,
) -> bool:
    """Put the marker in place of the question's entry; True when a cached plan was replaced.
    `restricted`: asked from a cleared chat (the question is listed to cleared viewers only)."""
    existing = fastpaths.by_hash(canonical_hash)
    fastpaths.upsert(
        FastpathEntry(
            id=new_fastpath_id(),
            canonical_text=canonical_text,
            canonical_hash=canonical_hash,
            plan={"route": REJECTED, "steps": [], "intent": "", "query_specific": True},
            route=REJECTED,
            intent="",
            intent_hash="",
            framework_hash="",
            origin=REJECTED,
            query_specific=True,  # never a neighbour for L0b, never a promotion candidate
            embedder="",
            embedding=None,
            created_at=now,
            last_used_at=now,
            restricted=restricted or (existing is not None and existing.restricted),
        )
    )
    return existing is not None and not is_rejection(existing)


def lift_rejection(fastpaths: FastpathStore, canonical_hash: str) -> bool:
    """A confirmed answer: the question may be cached again. True when a marker was lifted."""
    if is_rejection(fastpaths.by_hash(canonical_hash)):
        return fastpaths.delete_by_hash(canonical_hash)
    return False
