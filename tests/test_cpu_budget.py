"""The timing helper the runaway-work guards rely on (tests/cpu_budget.py)."""

from __future__ import annotations

import threading
import time

from tests.cpu_budget import budget, cpu_timed, slowdown, within


def test_waiting_is_not_counted_so_a_busy_machine_cannot_fail_a_guard() -> None:
    """A thread kept off the CPU (here: asleep) spends wall time, not CPU time."""
    _, took = cpu_timed(time.sleep, 0.3)
    assert took < 0.1


def test_work_in_other_threads_is_not_counted() -> None:
    """Threads that earlier tests left running (an application's writer) are not this one."""
    done = threading.Event()
    spinner = threading.Thread(target=lambda: [sum(range(10_000)) for _ in iter(done.is_set, True)])
    spinner.start()
    try:
        _, took = cpu_timed(time.sleep, 0.3)
    finally:
        done.set()
        spinner.join()
    assert took < 0.1


def test_work_is_counted_and_the_budget_never_shrinks() -> None:
    _, took = cpu_timed(lambda: sum(i * i for i in range(300_000)))
    assert took > 0.001  # a real figure, not zero
    assert slowdown() >= 1.0
    assert budget(0.5) >= 0.5


def test_within_takes_the_idle_bound_and_stretches_it_only_by_a_measured_slowdown() -> None:
    assert within(0.05, 0.1)  # inside the idle bound: nothing measured
    assert not within(100.0, 0.1)  # runaway work fails however busy the machine is
