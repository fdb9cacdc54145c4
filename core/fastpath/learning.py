"""Where the cascade's learning writes go: the L1 observation, the use count of a replayed entry
and the embedding an entry still lacks are not part of the answer, so a serving process does
them off the answer path, in batches.

The turn is never deferred: it is written before the answer is returned (an adapter sends
after `answer()` returns, and a verdict on the answer must find its turn). A new plan's
registration and the conversation's context are queued too, and the cascade wakes the writer
(`wake`) as the answer that queued a plan returns: the next question on a replica must find it.

`InlineLearning` runs each batch at once, on the caller's thread (tests, a one-shot `ricorda
ask`, which exits right after). `BackgroundLearning` queues them for one writer thread that
drains everything queued since its last pass into one batch (it looks every `poll_s`: an
answer that queues a record does not wake it, see `submit`); `flush()` waits until everything
submitted so far is written: feedback and admin reads call it first, so nothing is lost or
read stale, and `close()` flushes before the thread stops.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

log = logging.getLogger("ricorda.learning")

T = TypeVar("T")
T_contra = TypeVar("T_contra", contravariant=True)  # a port that takes any record takes ours
Handler = Callable[[list[T]], None]


class Learning(Protocol[T_contra]):
    """The port: submit a record, flush what is pending, close."""

    def submit(self, record: T_contra) -> None: ...

    def flush(self) -> None: ...

    def wake(self) -> None: ...

    def close(self) -> None: ...


class InlineLearning(Generic[T]):
    """Every record handled at once (a batch of one)."""

    def __init__(self, handle: Handler[T]) -> None:
        self._handle = handle

    def submit(self, record: T) -> None:
        _safely(self._handle, [record])

    def flush(self) -> None:
        return None

    def wake(self) -> None:
        return None

    def close(self) -> None:
        return None


class BackgroundLearning(Generic[T]):
    """One daemon thread; whatever was queued while it wrote the previous batch is the next."""

    def __init__(
        self,
        handle: Handler[T],
        *,
        max_batch: int = 256,
        name: str = "learning",
        wait_idle: Callable[[float], None] | None = None,
        max_wait: float = 0.25,
        poll_s: float = 0.25,
    ) -> None:
        """`wait_idle(timeout)` returns when no answer is being made (or after `timeout`): the
        writer takes its turn between answers, so on SQLite an answer's turn write does not
        wait behind a learning transaction, and the two do not share the GIL, unless answers
        keep coming for `max_wait` seconds; then it writes anyway. `poll_s`: how often the
        writer looks at the queue by itself (a flush or close wakes it at once)."""
        self._handle = handle
        self._poll_s = poll_s
        self._wait_idle = wait_idle
        self._max_wait = max_wait
        self._max_batch = max(1, max_batch)
        self._cond = threading.Condition()
        self._queue: list[T] = []
        self._submitted = 0  # records submitted so far
        self._done = 0  # records handled (or failed) so far
        self._closed = False
        self._thread = threading.Thread(target=self._run, name=f"ricorda-{name}", daemon=True)
        self._thread.start()

    def submit(self, record: T) -> None:
        with self._cond:
            if self._closed:  # after close: nobody would write it, so write it here
                closed = True
            else:
                closed = False
                self._queue.append(record)
                self._submitted += 1
                # No wake-up unless a batch is full: records are queued from inside an answer,
                # and waking the writer there (a futex wake, the OS switching to the writer, the
                # writer then asking for the GIL) cost an L0a repeat ~0.3 ms, a third of it.
                # The writer finds the record at its next look, at most `poll_s` later.
                if len(self._queue) >= self._max_batch:
                    self._cond.notify_all()
        if closed:
            _safely(self._handle, [record])

    def wake(self) -> None:
        """Write what is queued now, not at the next look (called once an answer is made,
        never from inside one: see `submit`)."""
        with self._cond:
            if self._queue:
                self._cond.notify_all()

    def flush(self, timeout: float = 30.0) -> None:
        """Wait until every record submitted before this call is handled."""
        if threading.current_thread() is self._thread:
            return
        with self._cond:
            target = self._submitted
            self._cond.notify_all()  # now, not at the writer's next look
            self._cond.wait_for(
                lambda: self._done >= target or not self._thread.is_alive(), timeout
            )

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._thread.join(timeout=30.0)

    @property
    def pending(self) -> int:
        with self._cond:
            return self._submitted - self._done

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._queue or self._closed, self._poll_s)
                if not self._queue:
                    if self._closed:
                        return
                    continue
                closing = self._closed
            if self._wait_idle is not None and not closing:
                self._wait_idle(self._max_wait)
            with self._cond:
                batch = self._queue[: self._max_batch]
                del self._queue[: len(batch)]
            _safely(self._handle, batch)
            with self._cond:
                self._done += len(batch)
                self._cond.notify_all()


def _safely(handle: Handler[T], batch: list[T]) -> None:
    """A learning write that fails costs a future cache hit, never an answer."""
    try:
        handle(batch)
    except Exception:
        log.exception("a batch of %d learning writes failed; skipped", len(batch))
