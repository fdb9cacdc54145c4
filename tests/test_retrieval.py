"""Hybrid retrieval: RRF math, restricted isolation, metadata filters with fallback, stability."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from bot.models.embedders import HashingEmbedder
from core.contracts.errors import ModelError, StorageError
from core.contracts.ports import Chunk
from core.documents.lexical import Bm25Index, Tokenizer
from core.documents.retrieval import HybridRetriever, matches_filters, rrf_fuse
from tests.retrieval_fakes import InMemoryVectorIndex, MemoryCatalog

# --- RRF -------------------------------------------------------------------------------


def test_rrf_sums_reciprocal_ranks_with_k_60() -> None:
    rankings = [["a", "b", "c"], ["c", "b"], ["c"]]
    fused = rrf_fuse(rankings)
    assert [d for d, _ in fused] == ["c", "b", "a"]
    assert dict(fused) == pytest.approx(
        {"a": 1 / 61, "b": 1 / 62 + 1 / 62, "c": 1 / 63 + 1 / 61 + 1 / 61}
    )
    assert dict(rrf_fuse(rankings, k=0)) == pytest.approx({"a": 1, "b": 1, "c": 1 / 3 + 2})


def test_rrf_breaks_ties_by_id_and_counts_a_repeat_once() -> None:
    assert rrf_fuse([["z", "y"], ["y", "z"]]) == rrf_fuse([["y", "z"], ["z", "y"]])
    assert [d for d, _ in rrf_fuse([["z", "y"], ["y", "z"]])] == ["y", "z"]
    assert dict(rrf_fuse([["a", "a", "b"]], k=1)) == {"a": 0.5, "b": 0.25}
    assert rrf_fuse([]) == [] and rrf_fuse([[], []]) == []


def test_an_item_in_both_rankings_beats_one_on_top_of_only_one() -> None:
    # the point of fusion: agreement between channels wins over one channel's favourite
    fused = rrf_fuse([["lex_only", "both"], ["vec_only", "both"]])
    assert fused[0][0] == "both"


# --- fixtures ----------------------------------------------------------------------------


CHUNKS = [
    Chunk(
        "c1",
        "china.md",
        "section=China",
        "China revenue fell in 2025 because footfall in tier-one cities dropped.",
        metadata={"entity": "ORBIS_CN", "year": "2025"},
    ),
    Chunk(
        "c2",
        "china.md",
        "section=2024",
        "In 2024 China revenue grew with new stores.",
        metadata={"entity": "ORBIS_CN", "year": "2024"},
    ),
    Chunk(
        "c3",
        "italy.md",
        "section=Italy",
        "Italy revenue grew thanks to tourism.",
        metadata={"entity": "ORBIS_IT,ORBIS_GROUP", "year": "2025"},
    ),
    Chunk(
        "r1",
        "restricted/board.md",
        "para=1",
        "China revenue fell in 2025: the board plans layoffs and store closures in China.",
        restricted=True,
        metadata={"entity": "ORBIS_CN", "year": "2025"},
    ),
    Chunk("c4", "hr.md", "para=1", "Training hours per employee doubled."),
]


class SpyEmbedder(HashingEmbedder):
    def __init__(self, fail: bool = False) -> None:
        super().__init__(128)
        self.batches: list[list[str]] = []
        self.fail = fail

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.batches.append(list(texts))
        if self.fail:
            raise ModelError("down")
        return super().embed(texts)


class LeakyIndex(InMemoryVectorIndex):
    """A vector index that ignores `where` (a bug elsewhere must not leak restricted text)."""

    def query(
        self, embedding: np.ndarray, k: int, where: dict[str, Any] | None = None
    ) -> list[tuple[str, float]]:
        return [*super().query(embedding, k, None), ("ghost-id", 0.99)]


class BrokenIndex(InMemoryVectorIndex):
    def query(
        self, embedding: np.ndarray, k: int, where: dict[str, Any] | None = None
    ) -> list[tuple[str, float]]:
        raise StorageError("chroma down")


def build(
    index: InMemoryVectorIndex | None = None,
    embedder: SpyEmbedder | None = None,
    chunks: Sequence[Chunk] = CHUNKS,
) -> HybridRetriever:
    catalog = MemoryCatalog()
    for chunk in chunks:
        catalog.chunks.setdefault(chunk.doc, []).append(chunk)
    embedder = embedder or SpyEmbedder()
    index = InMemoryVectorIndex() if index is None else index
    index.upsert(chunks, embedder.embed([c.text for c in chunks]))
    embedder.batches.clear()
    return HybridRetriever(catalog, Bm25Index(chunks, Tokenizer()), index, embedder)


QUESTION = ["Why did China revenue fall in 2025, layoffs and store closures?"]

# --- restricted isolation --------------------------------------------------------------


def test_uncleared_chat_never_gets_a_restricted_chunk_even_when_it_matches_best() -> None:
    index = InMemoryVectorIndex()
    retriever = build(index)
    cleared = retriever.retrieve(QUESTION, cleared=True, k=5)
    assert cleared[0].chunk.id == "r1"  # the restricted chunk really is the best match

    uncleared = retriever.retrieve(QUESTION, cleared=False, k=5)
    assert uncleared and all(not s.chunk.restricted for s in uncleared)
    assert index.queries[-1] == {"restricted": False}  # the vector index is asked to filter


def test_restricted_chunks_are_dropped_even_if_the_vector_index_leaks_them() -> None:
    retriever = build(LeakyIndex())
    results = retriever.retrieve([*QUESTION, "board layoffs"], cleared=False, k=10)
    ids = {s.chunk.id for s in results}
    assert "r1" not in ids and "ghost-id" not in ids
    assert "r1" in {s.chunk.id for s in retriever.retrieve(QUESTION, cleared=True, k=10)}


# --- filters ---------------------------------------------------------------------------


def test_metadata_filter_narrows_to_matching_chunks() -> None:
    retriever = build()
    results = retriever.retrieve(["revenue"], cleared=False, filters={"year": "2024"}, k=5)
    assert [s.chunk.id for s in results] == ["c2"]
    results = retriever.retrieve(["revenue"], cleared=False, filters={"entity": "ORBIS_IT"}, k=5)
    assert [s.chunk.id for s in results] == ["c3"]  # one of a comma-separated list


def test_filter_with_no_match_falls_back_to_unfiltered_search() -> None:
    retriever = build()
    results = retriever.retrieve(["China revenue"], cleared=False, filters={"year": "1999"}, k=3)
    assert results and results[0].chunk.doc == "china.md"


def test_filter_matching_only_restricted_chunks_does_not_leak_them() -> None:
    chunks = [
        *CHUNKS,
        Chunk(
            "r2",
            "restricted/x.md",
            "para=1",
            "Secret 2031 plan.",
            restricted=True,
            metadata={"year": "2031"},
        ),
    ]
    results = build(chunks=chunks).retrieve(["plan"], cleared=False, filters={"year": "2031"})
    assert all(not s.chunk.restricted for s in results)


def test_matches_filters_rules() -> None:
    chunk = CHUNKS[2]
    assert matches_filters(chunk, None) and matches_filters(chunk, {})
    assert matches_filters(chunk, {"entity": "ORBIS_GROUP", "year": "2025"})
    assert not matches_filters(chunk, {"entity": "ORBIS"})  # whole items, not substrings
    assert not matches_filters(chunk, {"channel": "ONLINE"})


# --- fusion behaviour ----------------------------------------------------------------


def test_query_embeddings_are_computed_in_one_batch() -> None:
    embedder = SpyEmbedder()
    retriever = build(embedder=embedder)
    queries = ["China revenue", "Cina fatturato", "中国区营收", "China revenue"]
    retriever.retrieve(queries, cleared=True, k=3)
    assert embedder.batches == [["China revenue", "Cina fatturato", "中国区营收"]]


def test_the_rewritten_queries_reach_the_vector_index_in_one_request() -> None:
    """Five query variants, one `query_many` (one round trip to a Chroma server, which
    answers each as a single query would: tests/test_vector_store.py)."""
    variants = ["China revenue 2025", "layoffs", "store closures", "Italy", "revenue fell"]
    index = InMemoryVectorIndex()
    found = build(index).retrieve(variants, cleared=False, k=4)
    assert index.batches == 1 and index.queries == [{"restricted": False}] * 5
    assert found and all(not s.chunk.restricted for s in found)


def test_results_are_stable_and_sorted_by_fused_score() -> None:
    retriever = build()
    first = retriever.retrieve(["revenue grew", "revenue fell"], cleared=True, k=5)
    again = retriever.retrieve(["revenue grew", "revenue fell"], cleared=True, k=5)
    assert [s.chunk.id for s in first] == [s.chunk.id for s in again]
    scores = [s.score for s in first]
    assert scores == sorted(scores, reverse=True) and len(first) <= 5


def test_vector_channel_finds_what_bm25_cannot() -> None:
    # no shared token with the chunk, but similar character n-grams ("employee"/"employees")
    retriever = build()
    lexical_only = HybridRetriever(retriever.chunks, retriever.bm25, None, None)
    assert "c4" not in {s.chunk.id for s in lexical_only.retrieve(["employees"], cleared=True)}
    assert "c4" in {s.chunk.id for s in retriever.retrieve(["employees"], cleared=True)}


@pytest.mark.parametrize("failure", ["embedder", "index"])
def test_vector_failures_degrade_to_lexical_results(failure: str) -> None:
    if failure == "embedder":
        retriever = build()
        retriever.embedder = SpyEmbedder(fail=True)
    else:
        retriever = build(BrokenIndex())
    results = retriever.retrieve(["China revenue"], cleared=False, k=3)
    assert results and results[0].chunk.doc == "china.md"


def test_vector_hits_outside_the_bm25_index_are_read_from_the_store() -> None:
    retriever = build()
    newer = Chunk("n1", "new.md", "para=1", "Footfall recovered in tier-one cities.")
    retriever.chunks.chunks["new.md"] = [newer]  # type: ignore[attr-defined]
    assert retriever.vector_index is not None and retriever.embedder is not None
    retriever.vector_index.get().upsert([newer], retriever.embedder.embed([newer.text]))
    results = retriever.retrieve(["footfall recovered tier-one cities"], cleared=False, k=3)
    assert "n1" in {s.chunk.id for s in results}


def test_min_similarity_drops_weak_vector_hits() -> None:
    retriever = build()
    retriever.min_similarity = 0.999
    assert retriever.retrieve(["employees"], cleared=True) == []


@pytest.mark.parametrize("failure", [None, "embedder", "index"])
def test_relevance_floor_applies_only_when_the_vector_channel_answered(
    failure: str | None,
) -> None:
    """Below the floor nothing is found, BM25 hits included; when the vector channel is down
    there is no similarity to judge by, so BM25 alone still answers."""
    retriever = build(BrokenIndex() if failure == "index" else None)
    if failure == "embedder":
        retriever.embedder = SpyEmbedder(fail=True)
    assert retriever.retrieve(["China revenue"], cleared=False, k=3)  # no floor
    retriever.relevance_floor = 0.999
    results = retriever.retrieve(["China revenue"], cleared=False, k=3)
    assert bool(results) is (failure is not None)
    retriever.relevance_floor = -1.0
    assert retriever.retrieve(["China revenue"], cleared=False, k=3)


def test_no_queries_or_empty_corpus_give_nothing() -> None:
    assert build().retrieve(["", "  "], cleared=True) == []
    empty = HybridRetriever(
        MemoryCatalog(), Bm25Index([], Tokenizer()), InMemoryVectorIndex(), SpyEmbedder()
    )
    assert empty.retrieve(["China"], cleared=True) == []


def test_each_result_carries_its_cosine_or_the_bound_it_is_below() -> None:
    """core.documents.passage_pick compares these with the relevance floor: a vector hit has its
    best
    cosine over the query variants; a chunk in no vector list, when every list was cut at its
    depth, has the last cosine of the highest list (its own is no higher)."""
    embedder = SpyEmbedder()
    # spelled like "layoffs" (close vectors) without the word (no BM25 match)
    filler = [Chunk(f"f{i:02d}", "f.md", f"para={i}", f"Playoffs, layouts, lay-offs {i}")
              for i in range(30)]  # fmt: skip
    # the word once among many others: found by BM25, below every vector list
    lexical = Chunk("x1", "x.md", "para=1", "Layoffs " + " ".join(f"w{i}" for i in range(80)))
    retriever = build(embedder=embedder, chunks=[*CHUNKS, *filler, lexical])
    queries = ["layoffs", "Layoffs?"]
    results = retriever.retrieve(queries, cleared=True, k=8)
    vectors = embedder.embed(queries)
    lists = [retriever.vector_index.get().query(v, 16, where=None) for v in vectors]
    listed = {cid for hits in lists for cid, _ in hits}
    bound = max(hits[-1][1] for hits in lists)
    assert "x1" in {s.chunk.id for s in results} and "x1" not in listed
    for s in results:
        cosine = max(float(embedder.embed([s.chunk.text])[0] @ v) for v in vectors)
        if s.chunk.id in listed:
            assert s.similarity == pytest.approx(cosine, abs=1e-5)
        else:
            assert s.similarity == pytest.approx(bound) and cosine <= bound + 1e-6


def test_results_found_without_a_vector_channel_carry_no_cosine() -> None:
    retriever = build(BrokenIndex())
    results = retriever.retrieve(["China revenue"], cleared=True, k=3)
    assert results and all(s.similarity is None for s in results)
