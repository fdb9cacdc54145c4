"""Cosine thresholds: their invariants, and the USE values against the labeled paraphrase set."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bench.calibrate_thresholds import load_pairs, pair_cosines, precision_recall
from bot.models.embedders import USE_THRESHOLDS, UseEmbedder
from core.fastpath.thresholds import BGE_M3_THRESHOLDS, CosineThresholds

PAIRS = Path(__file__).parent / "fixtures" / "paraphrases.jsonl"


def test_design_values_for_bge_m3() -> None:
    assert CosineThresholds(l0=0.92, cluster=0.90, floor=0.87) == BGE_M3_THRESHOLDS


@pytest.mark.parametrize(
    "values",
    [(0.92, 0.90, 0.95), (1.2, 0.9, 0.8), (0.9, 0.8, -1.5)],
    ids=["floor>cluster", "above-1", "below-minus-1"],
)
def test_inconsistent_thresholds_are_rejected(values: tuple[float, float, float]) -> None:
    with pytest.raises(ValueError):
        CosineThresholds(*values)


def test_thresholds_are_immutable() -> None:
    with pytest.raises(AttributeError):
        USE_THRESHOLDS.l0 = 0.5  # type: ignore[misc]


@pytest.fixture(scope="module")
def use() -> UseEmbedder:
    return UseEmbedder(threads=1)


@pytest.fixture(scope="module")
def use_scores(use: UseEmbedder) -> tuple[np.ndarray, np.ndarray]:
    pairs = load_pairs(PAIRS)
    assert len(pairs) >= 50, "the paraphrase set is too small to calibrate on"
    return pair_cosines(use, pairs)


def test_use_l0_serves_paraphrases_and_no_wrong_answer() -> None:
    """The shipped l0, run through the real cascade on the demo knowledge base."""
    from bench.calibrate_l0 import calibrate

    ((_, hits, positives, _, wrong),) = calibrate("use", thresholds=(USE_THRESHOLDS.l0,))
    assert wrong == 0
    # L0b serves paraphrases where it saves work: the ones the rules do not resolve (narrative,
    # vague). A structured paraphrase the rules resolve is answered by the planner, faster than
    # an embedding (the cost-aware plan cache, core/fastpath/plan_cache.py), so it is no L0b hit
    # any more.
    assert 1 <= hits < positives


def test_use_floor_keeps_a_useful_share_of_paraphrases(
    use_scores: tuple[np.ndarray, np.ndarray],
) -> None:
    cosines, labels = use_scores
    _, recall, _ = precision_recall(cosines, labels, USE_THRESHOLDS.floor)
    assert recall >= 0.35


# Pairs that look alike but need a different plan (another route or another plan shape): they
# must never share an intent cluster. Pairs differing only in a slot value (a period, a metric)
# may, because a replayed plan re-resolves its slots from the new question.
PLAN_CHANGING = [
    ("Why did revenue in China fall?", "What was revenue in China?"),
    ("Perché il fatturato in Cina è calato?", "Quanto è calato il fatturato in Cina?"),
    ("What was revenue in 2025?", "What was revenue in 2025 compared with 2024?"),
    ("为什么中国区营收下降？", "中国区营收是多少？"),
]


@pytest.mark.parametrize("a, b", PLAN_CHANGING)
def test_use_cluster_keeps_plan_changing_lookalikes_apart(use: UseEmbedder, a: str, b: str) -> None:
    va, vb = use.embed([a, b])
    assert float(va @ vb) < USE_THRESHOLDS.cluster
