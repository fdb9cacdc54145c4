"""What a plan's document steps ask of the narrative channel: search, then compose.

A Protocol, so the executor context (core.figures.step_context) can name it without the
channel's machinery: the retriever, the reranker and a model are built on the first "why"
question (core.documents.narrative_channel implements it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from core.contracts.ports import ScoredChunk

if TYPE_CHECKING:
    from core.documents.narrative import NarrativeResult


class NarrativeTools(Protocol):
    def search(
        self, query: str, *, filters: dict[str, str], cleared: bool
    ) -> list[ScoredChunk]: ...

    def compose(
        self,
        question: str,
        *,
        language: str,
        snippets: list[ScoredChunk],
        cleared: bool,
        rerank: bool,
        reuse: bool = False,
        entities: Sequence[str] = (),
    ) -> NarrativeResult:
        """The narrative parts; `reuse` (a replay) may reuse an identical earlier synthesis;
        `entities`, the codes the question names, steer which passages are quoted."""
        ...
