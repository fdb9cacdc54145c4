"""A VectorIndex that keeps RESTRICTED chunks in a separate index from everything else.

Why: a chat without clearance then searches an index that holds no restricted vector at all,
so isolation does not depend on a metadata filter, and the search is fast. Chroma answers a
`where={"restricted": False}` query over 10,000 chunks in about 19 ms against 2 ms unfiltered
(bench/bench_retrieval.py), which alone would spend the whole 30 ms retrieval budget for five
rewritten queries. Cleared chats search both and get the merged ranking.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from core.contracts.ports import Chunk, VectorIndex


class PartitionedVectorIndex:
    """`core.contracts.ports.VectorIndex` routing each chunk by its `restricted` flag.

    A query's `restricted` filter picks the partition(s) instead of being passed down; other
    filters are passed to each partition queried.
    """

    def __init__(self, public: VectorIndex, restricted: VectorIndex) -> None:
        self.public = public
        self.restricted = restricted

    def upsert(self, chunks: Sequence[Chunk], embeddings: np.ndarray) -> None:
        vectors = np.asarray(embeddings)
        flags = np.array([c.restricted for c in chunks], dtype=bool)
        for index, rows in ((self.public, ~flags), (self.restricted, flags)):
            if rows.any():
                index.upsert(
                    [c for c, keep in zip(chunks, rows, strict=True) if keep], vectors[rows]
                )

    def delete_doc(self, doc: str) -> None:
        self.public.delete_doc(doc)
        self.restricted.delete_doc(doc)

    def query(
        self, embedding: np.ndarray, k: int, where: dict[str, Any] | None = None
    ) -> list[tuple[str, float]]:
        """(chunk id, cosine similarity) best first, ties by id, over the partitions allowed."""
        return self.query_many(np.asarray(embedding).reshape(1, -1), k, where)[0]

    def query_many(
        self, embeddings: np.ndarray, k: int, where: dict[str, Any] | None = None
    ) -> list[list[tuple[str, float]]]:
        """`query` for each row of `embeddings`: one batched call per partition searched."""
        vectors = np.asarray(embeddings)
        rest = dict(where or {})
        wanted = (
            rest.pop("restricted", None) if not any(key.startswith("$") for key in rest) else None
        )
        hits: list[list[tuple[str, float]]] = [[] for _ in range(len(vectors))]
        parts = [(self.public, wanted is not True), (self.restricted, wanted is not False)]
        for index, searched in parts:
            if searched:
                more = index.query_many(vectors, k, rest or None)
                for found, extra in zip(hits, more, strict=True):
                    found += extra
        return [sorted(found, key=lambda hit: (-hit[1], hit[0]))[:k] for found in hits]
