"""An in-memory nearest-neighbour index by cosine over L2-normalised float32 vectors.

The L0b level of the cascade asks one question per request: which stored question is closest to
this one, and is it closer than the embedder's threshold (0.92 for BGE-M3)? At 100,000 entries of
1024 dimensions the exact answer is a matrix-vector product over 400 MB, about 9 ms on the
reference machine (memory-bound), more when the two cores are busy; the budget is 5 ms. So the
index works in two stages:

1. **Sketch scan.** Every vector is also kept as a sketch: its projection on a fixed, seeded
   random orthonormal basis of `sketch_dimension` (default 64) directions, re-normalised. The
   query's sketch is compared with all sketches (26 MB at 100k entries, about 1 ms). Cosine
   between re-normalised projections estimates the true cosine with an error that shrinks as the
   pair gets closer (variance about (1 - cos**2)**2 / m), so a near-duplicate is estimated
   tightly while unrelated vectors scatter: near-duplicates are what the cache must not miss.
2. **Exact re-rank.** The `candidates` (default 256) best sketches are re-scored with the full
   float32 vectors; the cosines returned are exact.

While the vectors fit in 16 MB (4,096 entries of 1024 dimensions, 8,192 of 512) the index simply
scans them exactly. The projection is data-independent, so adding and removing vectors never
needs retraining (an IVF coarse quantiser or a PCA sketch would drift as the cache changes), and
the same seed gives the same answers on every replica. Both stages run on the calling thread
(see `_dot_rows`).

Measured recall@1 against an exact scan (bench/bench_fastpath.py, 10,000 and 100,000 entries,
300 queries per cell; a query is a stored vector, or a stored vector mixed with orthogonal noise
to the stated cosine with it):

==================================  ==========  ===========
query                                512 dims    1024 dims
==================================  ==========  ===========
uniform random, exact duplicate        1.000       1.000
uniform random, cos 0.90-0.99          1.000       1.000
uniform random, cos 0.80-0.90          1.000       1.000
clustered, exact duplicate             1.000       1.000
clustered, cos 0.90-0.99               1.000       1.000
clustered, cos 0.80-0.90               1.000       1.000
==================================  ==========  ===========

("clustered" draws vectors around 2,000 centres sharing a common direction, so unrelated vectors
sit at cosine ~0.3-0.45 with each other, as sentence embeddings do.) A sketch of 32 directions
was measurably worse (0.95 at cos 0.70-0.80, clustered); 64 kept 1.000 there too. Memory per
entry: 4·d bytes of vector + 4·m of sketch + the id; 443 MB per 100,000 entries at 1024
dimensions, 238 MB at 512.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

DEFAULT_SKETCH_DIMENSION = 64
DEFAULT_CANDIDATES = 256
EXACT_SCAN_FLOATS = 1 << 22  # scan exactly while the vectors fit in 16 MB (~1 ms)
_MIN_CAPACITY = 64


class CosineIndex:
    """Add, remove and search vectors by string id; `search` returns (id, cosine), best first.

    Vectors are normalised on the way in (a zero vector is refused), so callers may pass raw
    embeddings. Thread-safe: one lock guards the arrays; searches and writes are short.
    """

    def __init__(
        self,
        dimension: int,
        *,
        sketch_dimension: int = DEFAULT_SKETCH_DIMENSION,
        candidates: int = DEFAULT_CANDIDATES,
        exact_below: int | None = None,
        seed: int = 0,
    ) -> None:
        if dimension <= 0:
            raise ValueError("dimension must be positive")
        self.dimension = dimension
        self._sketch_dim = min(sketch_dimension, dimension)
        self._candidates = max(1, candidates)
        self._exact_below = EXACT_SCAN_FLOATS // dimension if exact_below is None else exact_below
        rng = np.random.default_rng(seed)
        gaussian = rng.standard_normal((dimension, self._sketch_dim))
        basis, _ = np.linalg.qr(gaussian)  # orthonormal columns: a rotation-like projection
        self._basis = np.ascontiguousarray(basis, dtype=np.float32)
        self._lock = threading.Lock()
        self._vectors = np.empty((0, dimension), dtype=np.float32)
        self._sketches = np.empty((0, self._sketch_dim), dtype=np.float32)
        self._ids: list[str] = []
        self._rows: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, item_id: object) -> bool:
        return item_id in self._rows

    @property
    def nbytes(self) -> int:
        """Bytes held by the vector and sketch arrays (allocated capacity, ids not included)."""
        return int(self._vectors.nbytes + self._sketches.nbytes + self._basis.nbytes)

    def ids(self) -> list[str]:
        with self._lock:
            return list(self._ids)

    # --- writes -----------------------------------------------------------------------------

    def reserve(self, capacity: int) -> None:
        """Allocate room for `capacity` vectors now, so a bulk load copies nothing as it grows."""
        with self._lock:
            self._reserve(capacity, exact=True)

    def add(self, item_id: str, vector: np.ndarray) -> None:
        """Insert or replace one vector."""
        self.add_many([item_id], np.asarray(vector, dtype=np.float32).reshape(1, -1))

    def add_many(self, item_ids: Sequence[str], vectors: np.ndarray) -> None:
        """Insert or replace many vectors at once (one projection, one copy): the bulk path."""
        matrix = self._normalised(np.atleast_2d(np.asarray(vectors, dtype=np.float32)))
        if len(item_ids) != len(matrix):
            raise ValueError(f"{len(item_ids)} ids for {len(matrix)} vectors")
        if len(set(item_ids)) != len(item_ids):
            # the last occurrence wins, as with repeated add()
            last = {item_id: i for i, item_id in enumerate(item_ids)}
            keep = sorted(last.values())
            item_ids, matrix = [item_ids[i] for i in keep], matrix[keep]
        sketches = self._sketch(matrix)
        with self._lock:
            self._reserve(len(self._ids) + sum(i not in self._rows for i in item_ids))
            rows = np.empty(len(item_ids), dtype=np.intp)
            for i, item_id in enumerate(item_ids):
                row = self._rows.get(item_id)
                if row is None:
                    row = self._rows[item_id] = len(self._ids)
                    self._ids.append(item_id)
                rows[i] = row
            start = int(rows[0]) if len(rows) else 0
            if np.array_equal(rows, np.arange(start, start + len(rows))):
                target: slice | np.ndarray = slice(start, start + len(rows))  # appends: a copy
            else:
                target = rows
            self._vectors[target] = matrix
            self._sketches[target] = sketches

    def remove(self, item_id: str) -> bool:
        """Drop one vector; False when the id was not there. O(dimension): the last row moves in."""
        with self._lock:
            row = self._rows.pop(item_id, None)
            if row is None:
                return False
            last = len(self._ids) - 1
            if row != last:
                moved = self._ids[last]
                self._ids[row] = moved
                self._rows[moved] = row
                self._vectors[row] = self._vectors[last]
                self._sketches[row] = self._sketches[last]
            self._ids.pop()
            return True

    def clear(self) -> None:
        with self._lock:
            self._ids, self._rows = [], {}
            self._vectors = np.empty((0, self.dimension), dtype=np.float32)
            self._sketches = np.empty((0, self._sketch_dim), dtype=np.float32)

    # --- search -----------------------------------------------------------------------------

    def search(
        self, query: np.ndarray, k: int = 1, *, exact: bool = False
    ) -> list[tuple[str, float]]:
        """The `k` nearest ids by cosine, best first (ties by id). `exact=True` forces a full scan
        (for tests and recall measurements; it is always exact below `exact_below` entries)."""
        if k <= 0:
            return []
        q = self._normalised(np.asarray(query, dtype=np.float32).reshape(1, -1))[0]
        with self._lock:
            n = len(self._ids)
            if n == 0:
                return []
            vectors = self._vectors[:n]
            if exact or n < self._exact_below or n <= self._candidates:
                rows = np.arange(n)
                scores = _dot_rows(vectors, q)
            else:
                q_sketch = np.einsum("j,jk->k", q, self._basis)
                q_sketch /= max(float(np.linalg.norm(q_sketch)), 1e-12)
                sketch_scores = _dot_rows(self._sketches[:n], q_sketch)
                width = min(n, max(self._candidates, k))
                rows = np.argpartition(-sketch_scores, width - 1)[:width]
                scores = _dot_rows(vectors[rows], q)
            take = min(k, len(rows))
            top = np.argpartition(-scores, take - 1)[:take] if take < len(rows) else np.arange(take)
            hits = [(self._ids[int(rows[i])], float(scores[i])) for i in top]
        return sorted(hits, key=lambda hit: (-hit[1], hit[0]))

    # --- internals --------------------------------------------------------------------------

    def _reserve(self, needed: int, *, exact: bool = False) -> None:
        capacity = len(self._vectors)
        if needed <= capacity:
            return
        new_capacity = needed if exact else max(needed, _MIN_CAPACITY, capacity + capacity // 2)
        n = len(self._ids)
        vectors = np.empty((new_capacity, self.dimension), dtype=np.float32)
        sketches = np.empty((new_capacity, self._sketch_dim), dtype=np.float32)
        vectors[:n] = self._vectors[:n]
        sketches[:n] = self._sketches[:n]
        self._vectors, self._sketches = vectors, sketches

    def _sketch(self, matrix: np.ndarray) -> np.ndarray:
        projected = matrix @ self._basis
        norms = np.linalg.norm(projected, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        sketches: np.ndarray = (projected / norms).astype(np.float32, copy=False)
        return sketches

    def _normalised(self, matrix: np.ndarray) -> np.ndarray:
        if matrix.ndim != 2 or matrix.shape[1] != self.dimension:
            raise ValueError(f"expected {self.dimension} dimensions, got {matrix.shape[1]}")
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        if not np.all(np.isfinite(norms)) or np.any(norms == 0):
            raise ValueError("vectors must be finite and non-zero")
        unit: np.ndarray = (matrix / norms).astype(np.float32, copy=False)
        return unit


def _dot_rows(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """`matrix @ vector` on the calling thread.

    numpy's own loop rather than BLAS: OpenBLAS splits a large matrix-vector product over its
    thread pool, and on two cores shared with other work the p50 went from 1 ms to 8 ms while
    the pool waited for a descheduled thread. One thread is slower only when the machine is idle.
    """
    products: np.ndarray = np.einsum("ij,j->i", matrix, vector)  # numpy types einsum as Any
    return products
