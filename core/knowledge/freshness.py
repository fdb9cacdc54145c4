"""Keeping a long-running process's copy of the knowledge base current.

A serving process holds facts, the glossary (with everything built from it: names, gates,
clearance) and the document index in memory. Every change to one of them moves a version in
the database in the same transaction (storage.kb_version). Before each answer the process reads
the versions (one primary-key read) and reloads each part whose version moved, so the answer
is computed from what the database holds at the time the question is taken up.

The version is read *before* a part is reloaded and recorded only after the reload succeeded:
a change committed meanwhile shows up as a newer version at the next check, never as a gap.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping

from core.contracts.ports import KbVersions as KbVersions  # declared with every storage port

log = logging.getLogger("ricorda.freshness")

# the parts of the knowledge base, each with its own version (storage.kb_version writes them)
FACTS, GLOSSARY, DOCUMENTS = "facts", "glossary", "documents"


class Freshness:
    """Reads the versions at most every `interval_s` (0: before every answer) and runs the
    reloader of each part that moved."""

    def __init__(
        self,
        versions: KbVersions,
        reloaders: Mapping[str, Callable[[], None]],
        *,
        interval_s: float = 0.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._versions = versions
        self._reloaders = dict(reloaders)
        self.interval_s = interval_s
        self._clock = clock
        self._lock = threading.Lock()
        self._seen: dict[str, int] | None = None
        self._checked_at: float | None = None

    def baseline(self, current: Mapping[str, int] | None = None) -> None:
        """Record the current versions as loaded: call before anything is loaded, so what is
        loaded afterwards is at least this fresh. `current`: the versions read then, when the
        reloaders are only built later (bot.wiring.build reads them before opening the fact
        store)."""
        if current is None:
            current = self._versions.read()
        with self._lock:
            self._seen = {part: current.get(part, 0) for part in self._reloaders}
            self._checked_at = self._clock()

    def check(self, *, force: bool = False) -> list[str]:
        """Reload every part changed since the last check; returns the parts reloaded.

        Without a baseline every part counts as changed (safe: it is reloaded once). A reload
        that raises leaves its part unrecorded, so the next check tries again. `force`: now,
        whatever the interval (this process has just changed the knowledge base itself)."""
        with self._lock:
            now = self._clock()
            if (
                not force
                and self.interval_s > 0
                and self._checked_at is not None
                and now - self._checked_at < self.interval_s
            ):
                return []
            current = self._versions.read()
            self._checked_at = now
            seen = self._seen if self._seen is not None else {}
            changed = [
                part
                for part in self._reloaders
                if self._seen is None or current.get(part, 0) != seen.get(part, 0)
            ]
            if self._seen is None:
                self._seen = {}
            for part in changed:
                self._reloaders[part]()
                self._seen[part] = current.get(part, 0)
            if changed:
                log.info("knowledge base changed (%s): reloaded", ", ".join(changed))
            return changed

    def seen(self, part: str) -> int:
        """The version of `part` this process has loaded (0 before the baseline)."""
        with self._lock:
            return (self._seen or {}).get(part, 0)
