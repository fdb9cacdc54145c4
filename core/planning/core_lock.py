"""One answer at a time in core, except while a model thinks.

Core's state (the fact store's catch-up, the glossary swap, the pipeline's memos) is used by one
thread at a time: `serve` runs every core call under this lock. A model planner's call takes
seconds; holding the lock through it would stop every other chat's question, which needs no
model. So the model step runs `outside()` the lock: the answer's thread lets go, other questions
are answered meanwhile on the serving pool's other threads, and the thread takes the lock back to
run the plan the model chose.

The model calls in flight are bounded by `model_slots` (the serving pool has one thread more, so
a question that needs no model always finds one). A question that finds every slot taken gets
the rules' answer at once (`ModelBusy`), as it would on a model timeout: waiting for a slot would
hold a pool thread, and enough such waits would stop everyone again.

Outside `serve` (`ricorda ask`, the console, the benches) nobody holds the lock: `outside()` then
does nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")


class ModelBusy(Exception):
    """Every model slot is taken: answer as the rules would."""


class CoreLock:
    def __init__(self, model_slots: int = 2) -> None:
        self.model_slots = max(1, model_slots)
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(self.model_slots)
        self._mine = threading.local()

    def call(self, fn: Callable[[], T]) -> T:
        """`fn()` with the lock held (every core call of a serving process)."""
        with self._lock:
            self._mine.held = True
            try:
                return fn()
            finally:
                self._mine.held = False

    @contextmanager
    def outside(self) -> Iterator[None]:
        """Let go of the lock while a model thinks (when this thread holds it), within the
        bounded model slots; `ModelBusy` when they are all taken."""
        if not getattr(self._mine, "held", False):
            yield
            return
        if not self._slots.acquire(blocking=False):
            raise ModelBusy
        self._mine.held = False
        self._lock.release()
        try:
            yield
        finally:
            self._slots.release()
            self._lock.acquire()
            self._mine.held = True
