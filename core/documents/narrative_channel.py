"""The narrative channel: glossary rewrites -> hybrid retrieval -> optional LLM rerank ->
cited answer. It only ever speaks from retrieved snippets.

The retriever is built lazily (BM25 over every chunk, the embedder, the vector index) and
rebuilt when the document store changes under it, so a structured question never pays for it
and a long-running bot sees a re-ingest without a restart.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence

from core.contracts.ports import LLM, ScoredChunk
from core.documents.cause_pick import asks_why
from core.documents.narrative import NarrativeResult, WholeDocuments, answer_narrative
from core.documents.query_rewrite import rewrite_queries
from core.documents.rerank import listwise_rerank
from core.documents.retrieval import HybridRetriever
from core.documents.withheld_passages import WithheldPassages
from core.knowledge.names import NameIndex, term_names

log = logging.getLogger("ricorda.narrative")

RETRIEVE_K = 8
MEMO_SIZE = 512  # syntheses (and retrievals) kept for replays
_YEAR = re.compile(r"(?<!\d)(19[89]\d|20\d\d)(?!\d)")


class DocumentNarrative:
    def __init__(
        self,
        *,
        names: NameIndex,
        build_retriever: Callable[[], HybridRetriever | None],
        fingerprint: Callable[[], str] | None = None,
        llm: Callable[[], LLM | None] | None = None,
        llm_timeout: float = 30.0,
        rerank: bool = True,
        withheld: Callable[[], WithheldPassages | None] | None = None,
    ) -> None:
        """`withheld()`: the public passages an uncleared chat is not quoted, because they
        state a figure the disclosure policy withholds from it (None: none)."""
        self.names = names
        self._withheld = withheld
        self._build = build_retriever
        self._fingerprint = fingerprint
        self._llm_factory = llm
        self._llm: LLM | None = None
        self.llm_timeout = llm_timeout
        self.rerank = rerank
        self._lock = threading.Lock()
        self._retriever: HybridRetriever | None = None
        self._built_for: str | None = None
        self._memo: OrderedDict[tuple[object, ...], NarrativeResult] = OrderedDict()
        # retrievals by (documents stamp, query, filters, clearance), for replays
        self._found: OrderedDict[tuple[object, ...], list[ScoredChunk]] = OrderedDict()
        glossary = names.glossary
        self.synonyms = [
            term_names(t)
            for table in (glossary.metrics, glossary.entities, glossary.channels)
            for t in table.values()
        ]

    def retriever(self) -> HybridRetriever | None:
        """The current retriever; None when no document has been ingested."""
        return self._current()[0]

    def _current(self) -> tuple[HybridRetriever | None, str]:
        """The retriever and the documents stamp it was built for."""
        stamp = self._fingerprint() if self._fingerprint else "static"
        with self._lock:
            if self._built_for != stamp:
                self._retriever = self._build()
                self._built_for = stamp
                self._found.clear()  # retrieved from documents that changed since
            return self._retriever, stamp

    @property
    def llm(self) -> LLM | None:
        """Built on the first narrative answer, so a structured question never loads a model."""
        if self._llm is None and self._llm_factory is not None:
            self._llm = self._llm_factory()
            self._llm_factory = None
        return self._llm

    def search(self, query: str, *, filters: dict[str, str], cleared: bool) -> list[ScoredChunk]:
        """Hybrid retrieval over the glossary rewrites of `query`; restricted chunks only for
        a cleared chat."""
        retriever, stamp = self._current()
        if retriever is None:
            return []
        queries = rewrite_queries(query, self.synonyms)
        found = retriever.retrieve(queries, cleared=cleared, filters=filters or None, k=RETRIEVE_K)
        with self._lock:
            self._found[_search_key(stamp, query, filters, cleared)] = found
            while len(self._found) > MEMO_SIZE:
                self._found.popitem(last=False)
        return self._visible(found, cleared)

    def _visible(self, found: Sequence[ScoredChunk], cleared: bool) -> list[ScoredChunk]:
        """What a chat with this clearance may be quoted of `found`."""
        guard = None if cleared or self._withheld is None else self._withheld()
        if guard is None:
            return list(found)
        return [s for s in found if not guard.hides(s.chunk)]

    def search_again(
        self, query: str, *, filters: dict[str, str], cleared: bool
    ) -> list[ScoredChunk]:
        """What `search` found for exactly this query, filters and clearance on the current
        documents version (a replayed plan asks again what its first ask asked); a search when
        the documents changed since or it was never made. Without an LLM this is most of a
        narrative replay's cost; retrieval is deterministic on the same documents."""
        _, stamp = self._current()
        with self._lock:
            found = self._found.get(_search_key(stamp, query, filters, cleared))
            if found is not None:
                self._found.move_to_end(_search_key(stamp, query, filters, cleared))
        if found is not None:
            return self._visible(found, cleared)
        return self.search(query, filters=filters, cleared=cleared)

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
        """The narrative answer as parts: synthesised with an LLM, extractive without one.

        `entities`: the entity codes the question names; an extractive answer quotes passages
        about them (core.documents.passage_pick).

        `reuse` (a replayed plan): when the question and the freshly retrieved snippets are
        exactly those of an earlier synthesis, its result is reused instead of asking the LLM
        again. The key holds every snippet's text, so a changed document is a new key: reuse
        can skip model work, never serve a stale answer.
        """
        key = (
            question,
            language,
            cleared,
            rerank,
            self.llm is not None,
            tuple((s.chunk.id, s.chunk.text) for s in snippets),
            tuple(entities),
        )
        if reuse and self.llm is not None and key in self._memo:
            self._memo.move_to_end(key)
            return self._memo[key]
        out, model_answered = self._compose(
            question,
            language=language,
            snippets=snippets,
            cleared=cleared,
            rerank=rerank,
            entities=entities,
        )
        if self.llm is not None and out.mode != "empty" and model_answered:
            self._memo[key] = out
            while len(self._memo) > MEMO_SIZE:
                self._memo.popitem(last=False)
        return out

    def _compose(
        self,
        question: str,
        *,
        language: str,
        snippets: list[ScoredChunk],
        cleared: bool,
        rerank: bool,
        entities: Sequence[str],
    ) -> tuple[NarrativeResult, bool]:
        if snippets and self.llm is not None and rerank:
            snippets = listwise_rerank(
                question, snippets, self.llm, timeout=self.llm_timeout, cleared=cleared
            )
        retriever = self._retriever
        whole: WholeDocuments | None = None
        if retriever is not None and asks_why(question):  # the cause may be further down
            whole = functools.partial(retriever.document_chunks, cleared=cleared)
        result = answer_narrative(
            question,
            language,
            snippets,
            self.llm,
            timeout=self.llm_timeout,
            cleared=cleared,
            entities=entities,
            names=self.names,
            # the retriever's question-level floor, applied to each quoted passage
            floor=retriever.relevance_floor if retriever is not None else None,
            whole_documents=whole,
        )
        log.debug("narrative mode=%s snippets=%d", result.mode, len(snippets))
        return result, result.model_answered


def _search_key(
    stamp: str, query: str, filters: dict[str, str], cleared: bool
) -> tuple[object, ...]:
    return (stamp, query, tuple(sorted((filters or {}).items())), cleared)


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
