"""CoreLock (core/planning/core_lock.py): one core call at a time, except while a model thinks.

Threads and events only, no sleeps: a call that holds the lock through its model step would
leave the second call blocked, and the test says so instead of hanging.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from core.planning.core_lock import CoreLock, ModelBusy

WAIT = 30.0  # generous: a busy machine is slow, never this slow


def in_thread(fn: Callable[[], Any]) -> tuple[threading.Thread, dict[str, Any]]:
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["value"] = fn()
        except BaseException as exc:
            out["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, out


def thinking_call(lock: CoreLock, thinking: threading.Event, release: threading.Event
                  ) -> Callable[[], str]:
    """A core call whose model step waits for `release` outside the lock."""

    def call() -> str:
        with lock.outside():
            thinking.set()
            assert release.wait(WAIT)
        return "model"

    return lambda: lock.call(call)


def test_another_call_runs_while_a_model_thinks() -> None:
    lock = CoreLock(model_slots=1)
    thinking, release = threading.Event(), threading.Event()
    model, model_out = in_thread(thinking_call(lock, thinking, release))
    assert thinking.wait(WAIT)
    plain, plain_out = in_thread(lambda: lock.call(lambda: "plain"))
    plain.join(WAIT)
    assert plain_out == {"value": "plain"}, "the plain call waited for the model"
    release.set()
    model.join(WAIT)
    assert model_out == {"value": "model"}


def test_a_model_step_past_the_slots_is_busy_at_once() -> None:
    lock = CoreLock(model_slots=1)
    thinking, release = threading.Event(), threading.Event()
    model, _ = in_thread(thinking_call(lock, thinking, release))
    assert thinking.wait(WAIT)

    def second() -> str:
        try:
            with lock.outside():
                return "model"
        except ModelBusy:
            return "rules"

    other, other_out = in_thread(lambda: lock.call(second))
    other.join(WAIT)
    assert other_out == {"value": "rules"}  # not queued behind the first model call
    release.set()
    model.join(WAIT)
    # the slot is free again
    assert lock.call(second) == "model"


def test_the_call_holds_the_lock_again_after_the_model() -> None:
    lock = CoreLock(model_slots=1)
    seen: list[bool] = []

    def call() -> None:
        with lock.outside():
            seen.append(lock._lock.locked())
        seen.append(lock._lock.locked())

    lock.call(call)
    assert seen == [False, True] and not lock._lock.locked()


def test_outside_a_serving_process_outside_does_nothing() -> None:
    lock = CoreLock(model_slots=1)
    with lock.outside(), lock.outside():  # nobody holds the lock: no slot is taken
        assert not lock._lock.locked()
