"""The recent observations of every intent cluster, in memory, searched through an index.

Finding a request's cluster is a cosine against earlier observations: on the answer path of
every request that reaches L1, and for every observation the writer files. A scan of every row
grew with history (a product over all clusters x `per_cluster` rows); the nearest row is found
through `core.fastpath.cosine_index.CosineIndex` instead (an exact scan while small, a sketch scan
and
an exact re-rank beyond), and the intent-hash route compares only the rows of that intent's
clusters (`best_in_clusters`). The database stays the source of truth; the rows are rebuilt
from it at start.

When a cluster already holds `per_cluster` rows, a new observation overwrites the cluster's
oldest row in place, so the index never grows past clusters x per_cluster rows.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from core.contracts.errors import EmbedderMismatchError
from core.fastpath.cosine_index import CosineIndex


def unit(vector: np.ndarray) -> np.ndarray:
    """`vector` as float32 with norm 1 (cosine becomes a dot product)."""
    v = np.asarray(vector, dtype=np.float32).reshape(-1)
    norm = float(np.linalg.norm(v))
    if norm == 0.0 or not np.isfinite(norm):
        raise ValueError("an embedding must be a finite, non-zero vector")
    return v / norm


class ClusterIndex:
    """Cosine search over the recent observations of each cluster."""

    def __init__(self, *, per_cluster: int = 32, capacity: int = 256) -> None:
        if per_cluster < 1:
            raise ValueError("per_cluster must be at least 1")
        self._per_cluster = per_cluster
        self._capacity = max(1, capacity)
        self._dim: int | None = None
        self._matrix = np.empty((0, 0), dtype=np.float32)
        self._row_cluster = np.empty(0, dtype=np.int64)
        self._n = 0
        self._names: list[str] = []
        self._number: dict[str, int] = {}
        self._rows: dict[int, deque[int]] = {}
        self._search: CosineIndex | None = None  # the same rows, by slot

    def __len__(self) -> int:
        return self._n

    @property
    def dimension(self) -> int | None:
        return self._dim

    def add(self, cluster_id: str, embedding: np.ndarray) -> None:
        """Remember one observation's (already normalised) embedding for `cluster_id`."""
        vector = self._checked(embedding)
        number = self._number.get(cluster_id)
        if number is None:
            number = len(self._names)
            self._names.append(cluster_id)
            self._number[cluster_id] = number
            self._rows[number] = deque()
        rows = self._rows[number]
        slot = rows.popleft() if len(rows) >= self._per_cluster else self._append_row()
        self._matrix[slot] = vector
        self._row_cluster[slot] = number
        rows.append(slot)
        assert self._search is not None
        self._search.add(_slot_id(slot), vector)  # an overwritten slot replaces its vector

    def check_dimension(self, vector: np.ndarray) -> None:
        """Raise EmbedderMismatchError when `vector` cannot be compared with the stored rows."""
        if self._dim is not None and vector.shape[0] != self._dim:
            raise EmbedderMismatchError(
                f"an embedding of dimension {vector.shape[0]} met intent clusters built with "
                f"dimension {self._dim}: the embedding model changed; purge the autopaths"
            )

    def scores(self, query: np.ndarray) -> np.ndarray:
        """Cosine of `query` (normalised) to every stored row."""
        if self._n == 0:
            return np.empty(0, dtype=np.float32)
        # einsum runs on the calling thread: a BLAS product (`@`) wakes a thread pool, which on
        # a busy machine turns a 2 ms scan into 8-12 ms at 10,000 x 1024.
        scores: np.ndarray = np.einsum("ij,j->i", self._matrix[: self._n], self._checked(query))
        return scores

    def nearest(self, scores: np.ndarray) -> tuple[str, float] | None:
        """The cluster of the best-scoring row and that score, or None when empty."""
        if scores.size == 0:
            return None
        best = int(np.argmax(scores))
        return self._names[int(self._row_cluster[best])], float(scores[best])

    def nearest_to(self, query: np.ndarray) -> tuple[str, float] | None:
        """The cluster of the row nearest `query` (normalised) and its cosine, through the
        index; None when empty. Of equal cosines the earlier row wins (among the few best)."""
        if self._n == 0 or self._search is None:
            return None
        hits = self._search.search(self._checked(query), k=4)  # sorted: best, then lowest id
        if not hits:
            return None
        slot = int(hits[0][0])
        return self._names[int(self._row_cluster[slot])], hits[0][1]

    def best_in_clusters(
        self, query: np.ndarray, cluster_ids: list[str]
    ) -> tuple[float, str] | None:
        """The best cosine of `query` among the recent rows of `cluster_ids` and its cluster
        (the first of `cluster_ids` on a tie); None when none of them is known."""
        known = [(c, self._number[c]) for c in cluster_ids if c in self._number]
        if not known or self._n == 0:
            return None
        groups = [np.fromiter(self._rows[n], dtype=np.int64) for _, n in known]
        rows = np.concatenate(groups)
        scores = np.einsum("ij,j->i", self._matrix[rows], self._checked(query))
        best: tuple[float, str] | None = None
        start = 0
        for (cluster_id, _), group in zip(known, groups, strict=True):
            score = float(scores[start : start + len(group)].max())
            start += len(group)
            if best is None or score > best[0]:
                best = (score, cluster_id)
        return best

    def best_in(self, scores: np.ndarray, cluster_id: str) -> float | None:
        """The best score among `cluster_id`'s recent rows, or None for an unknown cluster."""
        number = self._number.get(cluster_id)
        if number is None or scores.size == 0:
            return None
        rows = np.fromiter(self._rows[number], dtype=np.int64)
        return float(scores[rows].max())

    def _checked(self, vector: np.ndarray) -> np.ndarray:
        if self._dim is None:
            self._dim = int(vector.shape[0])
            self._matrix = np.empty((self._capacity, self._dim), dtype=np.float32)
            self._row_cluster = np.empty(self._capacity, dtype=np.int64)
            self._search = CosineIndex(self._dim)
        else:
            self.check_dimension(vector)
        return vector

    def _append_row(self) -> int:
        if self._n == self._matrix.shape[0]:
            grown = max(16, 2 * self._n)
            matrix = np.empty((grown, self._matrix.shape[1]), dtype=np.float32)
            matrix[: self._n] = self._matrix[: self._n]
            clusters = np.empty(grown, dtype=np.int64)
            clusters[: self._n] = self._row_cluster[: self._n]
            self._matrix, self._row_cluster = matrix, clusters
        self._n += 1
        return self._n - 1


def _slot_id(slot: int) -> str:
    """Zero-padded, so the index's tie-break by id is the earlier slot."""
    return f"{slot:010d}"
