"""The serving process's core worker: a small pool whose every call runs under core's lock.

Every platform hands its core calls (answers, taps, admin commands) to this one executor. A call
holds `CoreLock` while it runs, so core's state sees one call at a time, as with one thread; the
pool has one thread per model slot more, so while a model plans (outside the lock, see
core/planning/core_lock.py) another chat's question is answered on a free thread.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from functools import partial
from typing import Any, TypeVar

from core.planning.core_lock import CoreLock

T = TypeVar("T")


class CoreWorker(Executor):
    def __init__(self, lock: CoreLock) -> None:
        self.lock = lock
        self._pool = ThreadPoolExecutor(1 + lock.model_slots, thread_name_prefix="ricorda-core")

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        return self._pool.submit(self.lock.call, partial(fn, *args, **kwargs))

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._pool.shutdown(wait=wait, cancel_futures=cancel_futures)
