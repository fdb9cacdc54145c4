"""An L0 plan-cache entry and the store Protocol the cascade depends on.

An entry remembers one answered question (its canonical text and hash, its embedding) and the plan
that answered it, so the same or an equivalent question replays the plan instead of planning
again. The plan, route and intent are opaque here: the cascade gives them meaning.
"""

from __future__ import annotations

import builtins
import datetime as dt
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np


def new_fastpath_id() -> str:
    return uuid.uuid4().hex


@dataclass(eq=False)
class FastpathEntry:
    """One cached plan. `embedding` is float32 and L2-normalised, or None when not embedded.

    Equality compares every field, the embedding element by element (a dataclass's generated
    `__eq__` would ask numpy for the truth value of an array and fail)."""

    id: str
    canonical_text: str
    canonical_hash: str
    plan: dict[str, Any]
    route: str
    intent: str
    intent_hash: str
    framework_hash: str
    origin: str
    query_specific: bool
    embedder: str
    embedding: np.ndarray | None
    created_at: dt.datetime
    last_used_at: dt.datetime
    n_uses: int = 0
    # asked from a chat cleared for RESTRICTED data: its question is shown only to cleared
    # viewers (core.admin). Kept by the first registration of a question (see the store).
    restricted: bool = False

    def __post_init__(self) -> None:
        if self.embedding is not None:
            import numpy as np

            self.embedding = np.ascontiguousarray(self.embedding, dtype=np.float32).reshape(-1)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FastpathEntry):
            return NotImplemented
        mine, theirs = self.embedding, other.embedding
        if mine is None or theirs is None:
            same_vector = mine is None and theirs is None
        else:
            import numpy as np

            same_vector = bool(np.array_equal(mine, theirs))
        return same_vector and all(
            getattr(self, f.name) == getattr(other, f.name)
            for f in fields(self)
            if f.name != "embedding"
        )

    __hash__ = None  # type: ignore[assignment]  # mutable, like any eq dataclass


class FastpathStore(Protocol):
    """Storage of L0 entries; the database is the source of truth (see storage.fastpath_store)."""

    def upsert(self, entry: FastpathEntry) -> FastpathEntry:
        """Insert, or overwrite the entry with the same `canonical_hash` (last writer wins);
        returns the stored entry (which keeps the existing row's id, created_at and n_uses)."""
        ...

    def by_hash(self, canonical_hash: str) -> FastpathEntry | None: ...

    def by_id(self, entry_id: str) -> FastpathEntry | None: ...

    def touch(self, entry_id: str, now: dt.datetime | None = None) -> bool:
        """Count one use (n_uses + 1, last_used_at = now); False when the entry is gone."""
        ...

    def delete(self, entry_id: str) -> bool: ...

    def delete_by_hash(self, canonical_hash: str) -> bool: ...

    def purge_all(self) -> int: ...

    def count(self) -> int: ...

    def list(self, limit: int = 20, offset: int = 0) -> builtins.list[FastpathEntry]:
        """Most used first; ties by most recently used, then id."""
        ...

    def iter_all(self) -> Iterator[FastpathEntry]: ...

    def nearest(
        self, embedding: np.ndarray, *, embedder: str, k: int = 1
    ) -> builtins.list[tuple[FastpathEntry, float]]:
        """Best cosine first, among entries that are not query-specific and were embedded by
        `embedder`; every entry returned still exists in the database."""
        ...
