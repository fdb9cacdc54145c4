"""Time budgets for the few tests that guard against runaway work (a regular expression that
backtracks, a scan that turns cubic), kept true on a busy machine.

Such a test cannot measure wall time: on two shared cores, with another suite running beside
it, a thread waits for the CPU as long as it runs on it (a full run once saw 1.03 s of wall
time for 0.03 s of work). So it measures this thread's CPU time, and scales its budget by how
much slower the machine runs right now than idle: a fixed pure-Python workload's CPU time,
taken at that moment, over its idle figure. Runaway work still fails (it costs seconds, not
tens of milliseconds, and grows with the input); a busy neighbour no longer does.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

# the reference workload's CPU time on this project's 2-core machine, idle (min of 5 runs,
# measured 2026-12-03: 9.7 ms); a faster machine gives a factor of 1, never less
IDLE_REFERENCE_SECONDS = 0.010


def _reference_workload() -> int:
    table = {str(i): i * i for i in range(60_000)}
    return sum(len(key) for key in table)


def slowdown() -> float:
    """How many times slower this thread runs now than on an idle machine (at least 1)."""
    best = float("inf")
    for _ in range(3):
        start = time.thread_time()
        _reference_workload()
        best = min(best, time.thread_time() - start)
    return max(1.0, best / IDLE_REFERENCE_SECONDS)


def cpu_timed(fn: Callable[..., T], *args: object, **kwargs: object) -> tuple[T, float]:
    """`fn`'s result and the CPU seconds this thread spent in it."""
    start = time.thread_time()
    out = fn(*args, **kwargs)
    return out, time.thread_time() - start


def budget(idle_seconds: float) -> float:
    """`idle_seconds`, the bound on an idle machine, stretched by the current slowdown."""
    return idle_seconds * slowdown()


def within(took: float, idle_seconds: float) -> bool:
    """Whether `took` fits the idle bound stretched by the current slowdown. The slowdown (about
    30 ms of work) is measured only when the idle bound is exceeded: a property test checks
    hundreds of examples, nearly all far inside the bound, and should not pay for each."""
    return took < idle_seconds or took < budget(idle_seconds)
