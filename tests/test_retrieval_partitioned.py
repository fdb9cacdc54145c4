"""PartitionedVectorIndex: restricted vectors live apart, uncleared searches never touch them."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.models.embedders import HashingEmbedder
from core.contracts.ports import Chunk
from core.documents.lexical import Bm25Index, Tokenizer
from core.documents.retrieval import HybridRetriever
from storage.partitioned_vector_index import PartitionedVectorIndex
from tests.retrieval_fakes import InMemoryVectorIndex, MemoryCatalog

EMBEDDER = HashingEmbedder(64)
CHUNKS = [
    Chunk("p1", "a.md", "para=1", "China revenue fell", metadata={"year": "2025"}),
    Chunk("p2", "a.md", "para=2", "Italy revenue grew", metadata={"year": "2024"}),
    Chunk(
        "r1",
        "restricted/b.md",
        "para=1",
        "China revenue fell: layoffs planned",
        restricted=True,
        metadata={"year": "2025"},
    ),
]


def loaded() -> tuple[PartitionedVectorIndex, InMemoryVectorIndex, InMemoryVectorIndex]:
    public, restricted = InMemoryVectorIndex(), InMemoryVectorIndex()
    index = PartitionedVectorIndex(public, restricted)
    index.upsert(CHUNKS, EMBEDDER.embed([c.text for c in CHUNKS]))
    return index, public, restricted


def test_chunks_are_routed_by_their_restricted_flag() -> None:
    _, public, restricted = loaded()
    assert public.ids == ["p1", "p2"] and restricted.ids == ["r1"]


def test_uncleared_query_searches_only_the_public_partition() -> None:
    index, public, restricted = loaded()
    query = EMBEDDER.embed(["China revenue fell layoffs"])[0]
    hits = index.query(query, 5, where={"restricted": False})
    assert [cid for cid, _ in hits] == ["p1", "p2"]
    assert restricted.queries == [] and public.queries == [None]


def test_cleared_query_merges_both_partitions_best_first() -> None:
    index, _, _ = loaded()
    query = EMBEDDER.embed(["China revenue fell: layoffs planned"])[0]
    hits = index.query(query, 2)
    assert hits[0][0] == "r1" and len(hits) == 2
    assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)


def test_other_filters_reach_the_partitions_and_delete_hits_both() -> None:
    index, public, restricted = loaded()
    query = EMBEDDER.embed(["revenue"])[0]
    assert [
        cid for cid, _ in index.query(query, 5, where={"restricted": False, "year": "2024"})
    ] == ["p2"]
    assert public.queries[-1] == {"year": "2024"}
    index.delete_doc("restricted/b.md")
    index.delete_doc("a.md")
    assert public.ids == [] and restricted.ids == []


def test_hybrid_retrieval_over_partitioned_chroma_keeps_restricted_out(tmp_path: Path) -> None:
    pytest.importorskip("chromadb")
    from storage.vector_store import ChromaVectorIndex

    def chroma(name: str) -> ChromaVectorIndex:
        return ChromaVectorIndex(
            embedder_name=EMBEDDER.name,
            dimension=EMBEDDER.dimension,
            data_dir=tmp_path,
            collection=name,
        )

    index = PartitionedVectorIndex(chroma("public"), chroma("restricted"))
    index.upsert(CHUNKS, EMBEDDER.embed([c.text for c in CHUNKS]))
    catalog = MemoryCatalog()
    catalog.chunks = {"a.md": CHUNKS[:2], "restricted/b.md": CHUNKS[2:]}
    retriever = HybridRetriever(catalog, Bm25Index(CHUNKS, Tokenizer()), index, EMBEDDER)
    question = ["China revenue fell, layoffs planned?"]
    assert "r1" not in {s.chunk.id for s in retriever.retrieve(question, cleared=False)}
    assert retriever.retrieve(question, cleared=True)[0].chunk.id == "r1"


def test_query_many_asks_each_partition_once_and_equals_single_queries() -> None:
    index, public, restricted = loaded()
    queries = EMBEDDER.embed(["China revenue", "Italy", "layoffs planned", "revenue", "grew"])
    for where in (None, {"restricted": False}, {"year": "2025"}):
        before = (public.batches, restricted.batches)
        many = index.query_many(queries, 2, where)
        assert public.batches == before[0] + 1
        assert restricted.batches == before[1] + (where != {"restricted": False})
        assert many == [index.query(q, 2, where) for q in queries]
