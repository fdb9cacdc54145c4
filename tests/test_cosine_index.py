"""The in-memory cosine index behind L0b: exact answers, and the sketch stage never losing a
near-duplicate (the case the plan cache must not miss)."""

from __future__ import annotations

import numpy as np
import pytest

from core.fastpath.cosine_index import CosineIndex


def unit(matrix: np.ndarray) -> np.ndarray:
    return (matrix / np.linalg.norm(matrix, axis=-1, keepdims=True)).astype(np.float32)


def random_unit(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    return unit(rng.standard_normal((n, dim)))


def near_copies(rng: np.random.Generator, x: np.ndarray, low: float, high: float) -> np.ndarray:
    """Vectors at a cosine drawn from [low, high] with the matching row of `x`."""
    target = rng.uniform(low, high, (len(x), 1))
    noise = rng.standard_normal(x.shape)
    noise -= (noise * x).sum(axis=1, keepdims=True) * x  # orthogonal to x
    return unit(target * x + np.sqrt(1 - target**2) * unit(noise))


def ids(n: int) -> list[str]:
    return [f"e{i:05d}" for i in range(n)]


def test_search_returns_exact_cosines_best_first() -> None:
    index = CosineIndex(3)
    index.add("x", np.array([1.0, 0.0, 0.0]))
    index.add("y", np.array([0.0, 1.0, 0.0]))
    index.add("xy", np.array([1.0, 1.0, 0.0]))  # normalised on the way in

    hits = index.search(np.array([2.0, 0.0, 0.0]), k=3)

    assert [item for item, _ in hits] == ["x", "xy", "y"]
    assert [round(score, 6) for _, score in hits] == [1.0, round(1 / np.sqrt(2), 6), 0.0]


def test_k_larger_than_the_index_and_empty_index() -> None:
    index = CosineIndex(4)
    assert index.search(np.ones(4), k=5) == []
    index.add("a", np.ones(4))
    assert [item for item, _ in index.search(np.ones(4), k=5)] == ["a"]
    assert index.search(np.ones(4), k=0) == []


def test_equal_scores_are_ordered_by_id() -> None:
    index = CosineIndex(2)
    for name in ("c", "a", "b"):
        index.add(name, np.array([1.0, 1.0]))
    assert [item for item, _ in index.search(np.array([1.0, 1.0]), k=3)] == ["a", "b", "c"]


def test_add_replaces_and_remove_forgets() -> None:
    rng = np.random.default_rng(1)
    vectors = random_unit(rng, 50, 16)
    index = CosineIndex(16)
    index.add_many(ids(50), vectors)

    index.add("e00007", vectors[3])  # e00007 now points where e00003 does
    assert len(index) == 50
    assert {item for item, _ in index.search(vectors[3], k=2)} == {"e00003", "e00007"}
    assert index.search(vectors[7], k=1)[0][0] != "e00007"

    assert index.remove("e00010") is True
    assert index.remove("e00010") is False
    assert "e00010" not in index
    assert all(item != "e00010" for item, _ in index.search(vectors[10], k=50))
    # the row that moved into the hole is still found by its own vector
    assert index.search(vectors[49], k=1)[0] == ("e00049", pytest.approx(1.0, abs=1e-6))


def test_bad_vectors_are_refused() -> None:
    index = CosineIndex(4)
    with pytest.raises(ValueError, match="dimensions"):
        index.add("a", np.ones(5))
    with pytest.raises(ValueError, match="non-zero"):
        index.add("a", np.zeros(4))
    with pytest.raises(ValueError, match="ids"):
        index.add_many(["a", "b"], np.ones((3, 4)))
    with pytest.raises(ValueError, match="dimensions"):
        index.search(np.ones(3))


def test_bulk_add_keeps_the_last_of_repeated_ids() -> None:
    index = CosineIndex(2)
    index.add_many(["a", "a"], np.array([[1.0, 0.0], [0.0, 1.0]]))
    assert len(index) == 1
    assert index.search(np.array([0.0, 1.0]))[0] == ("a", pytest.approx(1.0))


def test_sketch_search_agrees_with_exact_on_duplicates_and_near_duplicates() -> None:
    rng = np.random.default_rng(0)
    n, dim = 20_000, 256
    vectors = random_unit(rng, n, dim)
    approx = CosineIndex(dim, exact_below=0)  # force the sketch stage at this size
    approx.add_many(ids(n), vectors)
    picked = rng.choice(n, 200, replace=False)

    for queries in (vectors[picked], near_copies(rng, vectors[picked], 0.90, 0.99)):
        for query in queries:
            fast = approx.search(query, k=1)
            exact = approx.search(query, k=1, exact=True)
            assert fast == exact


def test_sketch_search_finds_near_duplicates_in_clustered_data() -> None:
    """Real sentence embeddings are not uniform: unrelated questions sit at cosine 0.3-0.6 and
    paraphrase families cluster. The sketch must still rank the true neighbour first."""
    rng = np.random.default_rng(3)
    n, dim = 10_000, 384
    common = unit(rng.standard_normal(dim))
    centres = random_unit(rng, 200, dim)
    members = rng.integers(0, 200, n)
    vectors = unit(0.6 * common + 0.55 * centres[members] + 0.55 * random_unit(rng, n, dim))
    index = CosineIndex(dim, exact_below=0)
    index.add_many(ids(n), vectors)
    picked = rng.choice(n, 200, replace=False)
    queries = near_copies(rng, vectors[picked], 0.90, 0.99)

    agree = sum(
        index.search(q, k=1)[0][0] == index.search(q, k=1, exact=True)[0][0] for q in queries
    )
    assert agree == len(queries)


def test_returned_cosines_are_exact_in_sketch_mode() -> None:
    rng = np.random.default_rng(5)
    vectors = random_unit(rng, 3000, 64)
    index = CosineIndex(64, exact_below=0, candidates=32)
    index.add_many(ids(3000), vectors)
    query = random_unit(rng, 1, 64)[0]
    for item, score in index.search(query, k=5):
        assert score == pytest.approx(float(vectors[int(item[1:])] @ query), abs=1e-5)


def test_same_seed_same_answers() -> None:
    rng = np.random.default_rng(9)
    vectors = random_unit(rng, 4000, 128)
    queries = random_unit(rng, 30, 128)
    first, second = (CosineIndex(128, exact_below=0, candidates=16) for _ in range(2))
    first.add_many(ids(4000), vectors)
    second.add_many(ids(4000), vectors)
    assert [first.search(q, k=3) for q in queries] == [second.search(q, k=3) for q in queries]


def test_memory_is_vectors_plus_sketch() -> None:
    index = CosineIndex(512, sketch_dimension=64)
    index.add_many(ids(1000), random_unit(np.random.default_rng(0), 1000, 512))
    per_entry = (index.nbytes - 512 * 64 * 4) / 1000  # minus the projection basis
    assert per_entry == (512 + 64) * 4
