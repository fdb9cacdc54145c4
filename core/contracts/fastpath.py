"""An L0 plan-cache entry (its store is `core.contracts.learning_ports.FastpathStore`).

An entry remembers one answered question (its canonical text and hash, its embedding) and the plan
that answered it, so the same or an equivalent question replays the plan instead of planning
again. The plan, route and intent are opaque here: the cascade gives them meaning.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

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
    # viewers (core.chat.admin). Kept by the first registration of a question (see the store).
    restricted: bool = False

    def __post_init__(self) -> None:
        if self.embedding is not None:  # an ndarray: its own methods, no numpy import here
            self.embedding = self.embedding.astype("float32", order="C", copy=False).reshape(-1)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FastpathEntry):
            return NotImplemented
        mine, theirs = self.embedding, other.embedding
        if mine is None or theirs is None:
            same_vector = mine is None and theirs is None
        else:
            same_vector = mine.shape == theirs.shape and bool((mine == theirs).all())
        return same_vector and all(
            getattr(self, f.name) == getattr(other, f.name)
            for f in fields(self)
            if f.name != "embedding"
        )

    __hash__ = None  # type: ignore[assignment]  # mutable, like any eq dataclass
