"""How much an autopath is trusted: the champion/challenger score and the status it implies.

The score of an autopath is

    score = wilson_lower_bound(ok, fail)  -  min(LATENCY_CAP, LATENCY_PER_SECOND * mean_latency_s)

where `ok` is the number of positive verdicts (confirmations), `fail` the number of negative
verdicts plus replays that failed, the Wilson bound is taken at 95% (z = 1.96), and
`mean_latency_s` is the mean latency of the autopath's own replays (0 before its first replay:
a planner turn's latency measures the planner, not the plan).

Why a Wilson lower bound: it ranks by the success rate we can *vouch for*, so one lucky
confirmation (0.21) does not beat nine confirmations out of ten (0.60), and a plan with many
failures sinks even if it also has many confirmations. The latency term is a tie-breaker
between plans that are about equally trusted: one point per 100 s, at most 0.05.

Among competing autopaths the highest score wins; ties go to more confirmations, then more
uses, then the lower id (the older autopath), so the choice is stable.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.contracts.autopaths import AntiView, AutopathView

WILSON_Z = 1.96
LATENCY_PER_SECOND = 0.01
LATENCY_CAP = 0.05


def wilson_lower_bound(ok: int, fail: int, *, z: float = WILSON_Z) -> float:
    """Lower end of the Wilson score interval for ok/(ok+fail); 0.0 with no evidence."""
    n = ok + fail
    if n <= 0:
        return 0.0
    p = ok / n
    z2 = z * z
    centre = p + z2 / (2 * n)
    spread = z * math.sqrt((p * (1 - p) + z2 / (4 * n)) / n)
    return max(0.0, (centre - spread) / (1 + z2 / n))


def latency_penalty(mean_latency_ms: float | None) -> float:
    """LATENCY_PER_SECOND per second of mean replay latency, capped at LATENCY_CAP."""
    if not mean_latency_ms or mean_latency_ms <= 0:
        return 0.0
    return min(LATENCY_CAP, LATENCY_PER_SECOND * mean_latency_ms / 1000.0)


def composite_score(ok: int, fail: int, mean_latency_ms: float | None) -> float:
    """The champion/challenger score (see the module docstring)."""
    return wilson_lower_bound(ok, fail) - latency_penalty(mean_latency_ms)


def autopath_score(autopath: AutopathView) -> float:
    """The champion/challenger score of one autopath: its confirmations against its negative
    verdicts and failed replays, less its replay latency."""
    return composite_score(
        autopath.confirmations, autopath.failures + autopath.failed_uses, autopath.mean_latency_ms
    )


def anti_blocks(anti: AntiView, now: dt.datetime) -> bool:
    """Whether an anti-autopath still blocks its framework in its cluster at `now`."""
    return anti.blocked_until is not None and anti.blocked_until > now


def status_for(
    *,
    confirmations: int,
    fail: int,
    min_confirmations: int,
    demotion_floor: float,
    demotion_min_verdicts: int,
) -> str:
    """`candidate` until enough confirmations, `demoted` when trust fell below the floor.

    Status follows the evidence: a demoted autopath whose record recovers becomes active again,
    and withdrawn confirmations can send an autopath back to candidate.
    """
    if confirmations < min_confirmations:
        return "candidate"
    if (
        confirmations + fail >= demotion_min_verdicts
        and wilson_lower_bound(confirmations, fail) < demotion_floor
    ):
        return "demoted"
    return "active"
