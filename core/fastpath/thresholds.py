"""Cosine thresholds belong to an embedding model, not to the product.

Cosine scales differ between models: two paraphrases that BGE-M3 scores at 0.95 may score 0.80
with the offline Universal Sentence Encoder. So every embedder carries its own calibrated
thresholds and the cache, the intent clustering and the retrieval floor read them from the
embedder in use instead of from a global constant.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CosineThresholds:
    """When two embeddings mean "the same request" for one model.

    l0: serve a cached plan for a new wording (design section 3, L0b); a false positive is a
        wrong answer served, so this is the strictest.
    cluster: put two requests in the same intent cluster (autopaths, section 4.2).
    floor: below this, a neighbour is not considered related at all.
    relevance: document retrieval's floor (core.documents.retrieval): a question whose best cosine
    to
        every chunk is below it finds nothing. None: not calibrated for this model, no floor.
    """

    l0: float
    cluster: float
    floor: float
    relevance: float | None = None

    def __post_init__(self) -> None:
        for name in ("l0", "cluster", "floor", "relevance"):
            value = getattr(self, name)
            if value is not None and not -1.0 <= value <= 1.0:
                raise ValueError(f"cosine threshold {name}={value} is outside [-1, 1]")
        # l0 is not tied to the cluster thresholds: a replayed plan is refused for a request
        # of another shape, so L0b may be looser than clustering (see bot.models.embedders).
        if not self.cluster >= self.floor:
            raise ValueError(
                "cosine thresholds must satisfy cluster >= floor, got "
                f"cluster={self.cluster}, floor={self.floor}"
            )


BGE_M3_THRESHOLDS = CosineThresholds(l0=0.92, cluster=0.90, floor=0.87)
"""The design's values (section 3), set for BAAI/bge-m3 dense vectors."""
