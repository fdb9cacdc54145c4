"""The narrative channel: glossary rewrites -> hybrid retrieval -> optional LLM rerank ->
cited answer. It only ever speaks from retrieved snippets.

The retriever is built lazily (BM25 over every chunk, the embedder, the vector index) and
rebuilt when the document store changes under it, so a structured question never pays for it
and a long-running bot sees a re-ingest without a restart.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable

from core.answering import NarrativeAnswer
from core.intent import Intent
from core.names import NameIndex, term_names
from core.narrative import answer_narrative
from core.ports import LLM
from core.query_rewrite import rewrite_queries
from core.rerank import listwise_rerank
from core.retrieval import HybridRetriever
from core.types import Source

log = logging.getLogger("ricorda.narrative")

RETRIEVE_K = 8
_YEAR = re.compile(r"(?<!\d)(19[89]\d|20\d\d)(?!\d)")


class DocumentNarrative:
    def __init__(
        self,
        *,
        names: NameIndex,
        build_retriever: Callable[[], HybridRetriever | None],
        fingerprint: Callable[[], str] | None = None,
        llm: LLM | None = None,
        llm_timeout: float = 30.0,
        rerank: bool = True,
    ) -> None:
        self.names = names
        self._build = build_retriever
        self._fingerprint = fingerprint
        self.llm = llm
        self.llm_timeout = llm_timeout
        self.rerank = rerank
        self._lock = threading.Lock()
        self._retriever: HybridRetriever | None = None
        self._built_for: str | None = None
        glossary = names.glossary
        self.synonyms = [
            term_names(t)
            for table in (glossary.metrics, glossary.entities, glossary.channels)
            for t in table.values()
        ]

    def retriever(self) -> HybridRetriever | None:
        """The current retriever; None when no document has been ingested."""
        stamp = self._fingerprint() if self._fingerprint else "static"
        with self._lock:
            if self._built_for != stamp:
                self._retriever = self._build()
                self._built_for = stamp
            return self._retriever

    def explain(
        self, question: str, *, language: str, intent: Intent, cleared: bool
    ) -> NarrativeAnswer:
        queries = rewrite_queries(question, self.synonyms)
        filters = _filters(intent)
        plan = [
            {"tool": "search_documents", "args": {"query": "${query}", **filters}},
            {"tool": "compose_narrative", "args": {"rerank": bool(self.llm and self.rerank)}},
        ]
        retriever = self.retriever()
        snippets = (
            retriever.retrieve(queries, cleared=cleared, filters=filters or None, k=RETRIEVE_K)
            if retriever is not None
            else []
        )
        if snippets and self.llm is not None and self.rerank:
            snippets = listwise_rerank(
                question, snippets, self.llm, timeout=self.llm_timeout, cleared=cleared
            )
        result = answer_narrative(
            question, language, snippets, self.llm, timeout=self.llm_timeout, cleared=cleared
        )
        log.debug("narrative mode=%s snippets=%d", result.mode, len(snippets))
        return NarrativeAnswer(
            text=result.text,
            sources=list(result.sources),
            found=result.mode != "empty",
            plan=plan,
        )


def _filters(intent: Intent) -> dict[str, str]:
    """Pre-filter on the one entity / year the question names (retried without when empty)."""
    filters = {}
    if len(intent.entities) == 1:
        filters["entity"] = intent.entities[0]
    years = {p.value[:4] for p in intent.periods}
    if len(years) == 1:
        filters["year"] = years.pop()
    return filters


def glossary_tagger(names: NameIndex) -> Callable[[str], dict[str, str]]:
    """Tags a chunk with the entity codes and years it mentions, for the pre-filter."""

    def tag(text: str) -> dict[str, str]:
        entities = sorted({m.code for m in names.find(text) if m.kind == "entity"})
        years = sorted(set(_YEAR.findall(text)))
        tags = {}
        if entities:
            tags["entity"] = ",".join(entities)
        if years:
            tags["year"] = ",".join(years)
        return tags

    return tag


def cited(sources: list[Source]) -> list[Source]:
    return list(dict.fromkeys(sources))
