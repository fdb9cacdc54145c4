"""A collaborator built the first time it is used, said in the type.

A core object is often handed a collaborator it may never touch: a one-shot structured
`ricorda ask` never loads the autopaths, the narrative channel, the vector index or the
conversation store, and should not pay for building them. The wiring hands such an object a
`Deferred[T]` (a factory, built once on the first `.get()`), a test hands it the object itself;
the constructor keeps `deferred(x)` either way, and the code that uses the collaborator calls
`.get()` at the point of use, where the cost is visible.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar, cast

T = TypeVar("T")


class Deferred(Generic[T]):
    """The value `build()` returns, built on the first `.get()` and kept.

    Thread-safe: the serving process answers on worker threads, and two first uses at once
    build it once. A build that raises keeps nothing, so the next `.get()` tries again (a vector
    store that was down is connected when it is back)."""

    __slots__ = ("_build", "_built", "_lock", "_value")

    def __init__(self, build: Callable[[], T]) -> None:
        self._build = build
        self._lock = threading.Lock()
        self._built = False
        self._value: T | None = None

    @classmethod
    def ready(cls, value: T) -> Deferred[T]:
        """An already built value (what a constructor keeps when handed the object itself)."""
        made: Deferred[T] = cls(lambda: value)
        made._value, made._built = value, True
        return made

    @property
    def built(self) -> bool:
        """Whether `.get()` has built the value (for tests asserting what was not paid for)."""
        return self._built

    def get(self) -> T:
        """The value, built now if no `.get()` has built it yet."""
        if not self._built:
            with self._lock:
                if not self._built:
                    self._value = self._build()
                    self._built = True
        return cast(T, self._value)  # set before _built turned True


def deferred(value: T | Deferred[T] | None) -> Deferred[T] | None:
    """What a constructor keeps for a collaborator handed built or deferred (None stays None:
    the collaborator is off)."""
    if value is None or isinstance(value, Deferred):
        return value
    return Deferred.ready(value)
