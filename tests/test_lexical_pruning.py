"""BM25 search with MaxScore pruning returns exactly what scoring every row returns (issue 28):
the same chunks, the same scores, the same order, ties included, on random corpora, queries,
masks and re-ingested (removed) rows; and it does skip the long posting lists it can."""

from __future__ import annotations

from collections.abc import Iterator
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import core.documents.lexical as lexical
from core.contracts.ports import Chunk
from core.documents.lexical import Bm25Index, Tokenizer

VOCAB = ["revenue", "margin", "china", "italy", "online", "store", "board", "zebracorn"]


def exhaustive(index: Bm25Index, tokens: list[str], k: int,
               allowed: np.ndarray | None) -> list[tuple[str, float]]:
    """The reference: every row scored, the best k by (score, id), positive scores only."""
    scores = index.scores(tokens)
    if allowed is not None:
        scores[~allowed] = 0.0
    ranked = sorted((-float(s), index.ids[row]) for row, s in enumerate(scores) if s > 0)
    return [(cid, -neg) for neg, cid in ranked[:k]]


@pytest.fixture(autouse=True, scope="module")
def prune_every_size() -> Iterator[None]:
    """These small indexes are searched with pruning, as a large one is (below
    `PRUNE_FROM_ROWS` rows `search` scores every row)."""
    with mock.patch.object(lexical, "PRUNE_FROM_ROWS", 0):
        yield


def build(texts: list[list[str]], restricted: list[bool], docs: int) -> Bm25Index:
    chunks = [Chunk(id=f"c{i:03d}", doc=f"d{i % docs}.md", locator=f"para={i}",
                    text=" ".join(words), restricted=flag)
              for i, (words, flag) in enumerate(zip(texts, restricted, strict=True))]
    return Bm25Index(chunks, Tokenizer())


# three common words and five rarer ones, so some terms' bounds dominate and pruning starts
corpus = st.lists(st.lists(st.sampled_from(VOCAB[:3] * 6 + VOCAB[3:]), max_size=12),
                  min_size=1, max_size=120)


@settings(max_examples=300, deadline=None)
@given(
    texts=corpus,
    query=st.lists(st.sampled_from([*VOCAB, "unknown"]), min_size=1, max_size=6),
    k=st.integers(1, 25),
    seed=st.integers(0, 2**16),
    masked=st.booleans(),
    remove=st.integers(0, 3),
)
def test_pruned_search_equals_exhaustive_scoring(
    texts: list[list[str]], query: list[str], k: int, seed: int, masked: bool, remove: int
) -> None:
    rng = np.random.default_rng(seed)
    restricted = rng.random(len(texts)) < 0.2
    index = build(texts, restricted.tolist(), docs=4)
    if remove:  # rows of removed documents stay in the arrays until a compaction
        index = index.updated(removed=[f"d{d}.md" for d in range(remove)])
    allowed = index.mask(cleared=False) if masked else None
    want = exhaustive(index, query, k, allowed)
    assert index.search(query, k, allowed=allowed) == want
    # with no weights kept between queries (a corpus whose query terms outgrow the cache),
    # the lists looked up compute their weights at the rows needed only: the same floats
    with mock.patch.object(lexical, "_WEIGHT_CACHE_POSTINGS", 0):
        cold = index.updated()  # a new version: nothing cached yet
        assert cold.search(query, k, allowed=allowed) == want
    # a cache a few postings long: weights are evicted and computed again, the same floats
    with mock.patch.object(lexical, "_WEIGHT_CACHE_POSTINGS", 5):
        small = index.updated()
        assert small.search(query, k, allowed=allowed) == want
        assert small.search(query, k, allowed=allowed) == want


def test_weights_evicted_from_a_full_cache_are_computed_again_the_same() -> None:
    """Three terms of three postings each through a cache of five: each query evicts the
    oldest, and the scores stay those of a cache that holds everything."""
    texts = [["alpha", "beta", "gamma"]] * 3 + [["delta"]] * 3
    index = build(texts, [False] * 6, docs=2)
    want = exhaustive(index, ["alpha", "beta", "gamma"], 3, None)
    with mock.patch.object(lexical, "_WEIGHT_CACHE_POSTINGS", 5):
        small = index.updated()
        for _ in range(2):
            assert small.search(["alpha", "beta", "gamma"], 3) == want
            assert small._cached <= 5


def test_a_common_word_is_looked_up_only_for_the_rows_a_rare_word_found() -> None:
    """"zebracorn store": 3 chunks have the rare word, 5,000 the common one. Once the best 3
    are known no chunk with only "store" can reach them, so its 5,000 postings are looked up
    for the rows still in the race rather than all scored."""
    texts = [["store", "online"] for _ in range(5000)]
    texts += [["zebracorn", "store"], ["zebracorn"], ["zebracorn", "board"]]
    index = build(texts, [False] * len(texts), docs=50)
    looked_up: list[int] = []
    real = Bm25Index._candidates

    def spy(self: Bm25Index, *args: object) -> tuple[np.ndarray, np.ndarray]:
        rows, scores = real(self, *args)  # type: ignore[arg-type]
        looked_up.append(len(rows))
        return rows, scores

    with mock.patch.object(Bm25Index, "_candidates", spy):
        found = index.search(["zebracorn", "store"], 3)
    assert found == exhaustive(index, ["zebracorn", "store"], 3, None)
    assert {cid for cid, _ in found} == {"c5000", "c5001", "c5002"}  # the zebracorn ones
    assert looked_up == [3]  # "store" was not walked: only the 3 rows in the race remained


@settings(max_examples=100, deadline=None)
@given(texts=corpus, query=st.lists(st.sampled_from([*VOCAB, "unknown"]), min_size=1, max_size=6),
       k=st.integers(1, 25), masked=st.booleans())
def test_a_small_index_scores_every_row_with_the_same_result(
    texts: list[list[str]], query: list[str], k: int, masked: bool
) -> None:
    index = build(texts, [i % 5 == 0 for i in range(len(texts))], docs=4)
    allowed = index.mask(cleared=False) if masked else None
    pruned = index.search(query, k, allowed=allowed)
    with mock.patch.object(lexical, "PRUNE_FROM_ROWS", len(texts) + 1), \
            mock.patch.object(Bm25Index, "_candidates", side_effect=AssertionError("pruned")):
        assert index.search(query, k, allowed=allowed) == pruned
