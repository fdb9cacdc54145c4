"""Calibrate an embedder's cosine thresholds on the labeled paraphrase pairs.

    .venv/bin/python bench/calibrate_thresholds.py [--embedder use|hashing|PATH-TO-BGE-M3]

Prints, per threshold, how many paraphrase pairs (label 1) and non-paraphrase pairs (label 0)
of tests/fixtures/paraphrases.jsonl score at or above it, and the smallest threshold with no
false positive at all — the rule for `l0`, because serving a cached plan to a question that only
looks similar is worse than missing the cache.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.models.embedders import BgeM3Embedder, HashingEmbedder, UseEmbedder  # noqa: E402
from core.contracts.ports import Embedder  # noqa: E402

PAIRS = ROOT / "tests" / "fixtures" / "paraphrases.jsonl"


def load_pairs(path: Path = PAIRS) -> list[dict]:
    return [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]


def pair_cosines(embedder: Embedder, pairs: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    """Cosine of each pair and its label, in file order."""
    a = embedder.embed([p["a"] for p in pairs])
    b = embedder.embed([p["b"] for p in pairs])
    return (a * b).sum(axis=1), np.array([int(p["label"]) for p in pairs])


def zero_false_positive_threshold(
    cosines: np.ndarray, labels: np.ndarray, margin: float = 0.003
) -> float:
    """Just above the best-scoring non-paraphrase, rounded up to 3 decimals."""
    worst = float(cosines[labels == 0].max(initial=-1.0))
    return min(1.0, float(np.ceil((worst + margin) * 1000) / 1000))


def precision_recall(
    cosines: np.ndarray, labels: np.ndarray, threshold: float
) -> tuple[float, float, int]:
    hit = cosines >= threshold
    tp = int((hit & (labels == 1)).sum())
    fp = int((hit & (labels == 0)).sum())
    precision = tp / (tp + fp) if tp + fp else 1.0
    return precision, tp / max(int((labels == 1).sum()), 1), fp


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--embedder", default="use")
    args = parser.parse_args()
    embedder: Embedder
    if args.embedder == "use":
        embedder = UseEmbedder()
    elif args.embedder == "hashing":
        embedder = HashingEmbedder()
    else:
        embedder = BgeM3Embedder(args.embedder)
    pairs = load_pairs()
    cosines, labels = pair_cosines(embedder, pairs)
    positives, others = int((labels == 1).sum()), int((labels == 0).sum())
    print(f"{embedder.name}: {positives} paraphrase pairs, {others} others")
    print(f"{'threshold':>9} {'precision':>9} {'recall':>7} {'false+':>6}")
    for t in (0.70, 0.75, 0.80, 0.85, 0.88, 0.90, 0.92, 0.94, 0.96, 0.98):
        p, r, fp = precision_recall(cosines, labels, t)
        print(f"{t:>9.2f} {p:>9.2f} {r:>7.2f} {fp:>6d}")
    l0 = zero_false_positive_threshold(cosines, labels)
    p, r, fp = precision_recall(cosines, labels, l0)
    print(f"zero false positives from {l0:.3f}: precision {p:.2f}, recall {r:.2f}")
    print(f"shipped: {embedder.thresholds}")
    print("highest-scoring non-paraphrases:")
    for i in np.argsort(-np.where(labels == 0, cosines, -2))[:8]:
        print(f"  {cosines[i]:.3f}  {pairs[i]['a']}  |  {pairs[i]['b']}")


if __name__ == "__main__":
    main()
