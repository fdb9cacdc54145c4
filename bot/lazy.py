"""A stand-in that builds its target on first attribute access.

Used where a core object takes a collaborator it may never touch (autopaths, which load their
observations and need the embedder's thresholds; the vector index; the conversation store):
only a cache miss, a verdict or a follow-up question should pay for building it.
"""

from __future__ import annotations

from collections.abc import Callable


class Lazy:
    def __init__(self, build: Callable[[], object]) -> None:
        self._build = build
        self._target: object | None = None

    def __getattr__(self, name: str) -> object:
        if self._target is None:
            self._target = self._build()
        return getattr(self._target, name)
