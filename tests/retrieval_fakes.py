"""In-memory stand-ins for the vector index and chunk store, for retrieval and ingest tests.

`InMemoryVectorIndex` answers `where` filters the way Chroma does for the ones retrieval uses
(`{"key": value}` equality and `{"$and": [...]}`), and records every query so tests can check
what the retriever asked for.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from core.contracts.documents import DocumentRecord
from core.contracts.ports import Chunk


class InMemoryVectorIndex:
    def __init__(self) -> None:
        self.ids: list[str] = []
        self.meta: list[dict[str, Any]] = []
        self.matrix = np.zeros((0, 0), dtype=np.float32)
        self.queries: list[dict[str, Any] | None] = []
        self.batches = 0  # query_many calls

    def upsert(self, chunks: Sequence[Chunk], embeddings: np.ndarray) -> None:
        drop = {c.id for c in chunks}
        keep = [i for i, cid in enumerate(self.ids) if cid not in drop]
        rows = [self.matrix[i] for i in keep] + list(np.asarray(embeddings, dtype=np.float32))
        self.ids = [self.ids[i] for i in keep] + [c.id for c in chunks]
        self.meta = [self.meta[i] for i in keep] + [
            {**c.metadata, "doc": c.doc, "restricted": c.restricted} for c in chunks
        ]
        self.matrix = np.vstack(rows) if rows else np.zeros((0, 0), dtype=np.float32)

    def delete_doc(self, doc: str) -> None:
        keep = [i for i, m in enumerate(self.meta) if m["doc"] != doc]
        self.ids = [self.ids[i] for i in keep]
        self.meta = [self.meta[i] for i in keep]
        self.matrix = self.matrix[keep] if keep else np.zeros((0, 0), dtype=np.float32)

    def query(
        self, embedding: np.ndarray, k: int, where: dict[str, Any] | None = None
    ) -> list[tuple[str, float]]:
        self.queries.append(where)
        if not self.ids:
            return []
        sims = self.matrix @ np.asarray(embedding, dtype=np.float32)
        rows = [i for i in range(len(self.ids)) if _matches(self.meta[i], where)]
        rows.sort(key=lambda i: (-float(sims[i]), self.ids[i]))
        return [(self.ids[i], float(sims[i])) for i in rows[:k]]

    def query_many(
        self, embeddings: np.ndarray, k: int, where: dict[str, Any] | None = None
    ) -> list[list[tuple[str, float]]]:
        self.batches += 1
        return [self.query(e, k, where) for e in np.asarray(embeddings)]

    def docs(self) -> set[str]:
        return {m["doc"] for m in self.meta}


def _matches(meta: dict[str, Any], where: dict[str, Any] | None) -> bool:
    if not where:
        return True
    if "$and" in where:
        return all(_matches(meta, clause) for clause in where["$and"])
    return all(meta.get(key) == value for key, value in where.items())


class MemoryCatalog:
    """A DocumentCatalog in a dict, for tests that do not need a database."""

    def __init__(self) -> None:
        self.records: dict[str, DocumentRecord] = {}
        self.chunks: dict[str, list[Chunk]] = {}

    def all_chunks(self) -> list[Chunk]:
        return [c for doc in sorted(self.chunks) for c in self.chunks[doc]]

    def get_chunks(self, ids: Sequence[str]) -> list[Chunk]:
        by_id = {c.id: c for c in self.all_chunks()}
        return [by_id[i] for i in ids if i in by_id]

    def documents(self) -> list[DocumentRecord]:
        return [self.records[p] for p in sorted(self.records)]

    def replace_document(self, record: DocumentRecord, chunks: Sequence[Chunk]) -> None:
        self.records[record.path] = record
        self.chunks[record.path] = list(chunks)

    def delete_document(self, doc: str) -> None:
        self.records.pop(doc, None)
        self.chunks.pop(doc, None)
