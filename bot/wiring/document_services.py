"""The document side of the core services: chunks, embedder, vector index, the BM25 index kept
in step with the documents, the retriever, the narrative channel and document ingest.

Everything here is built on first use: heavy imports (chromadb, the embedder's model) stay off
the structured answer path, so a structured `ricorda ask` never pays for them.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy.engine import Engine

from bot.settings.model import Settings
from core.knowledge.current_glossary import CurrentGlossary

if TYPE_CHECKING:
    from core.contracts.documents import DocumentSource
    from core.contracts.ports import LLM, Embedder, VectorIndex
    from core.documents.chunk_tokens import ChunkTokenizer
    from core.documents.document_ingest import DocumentIngestReport
    from core.documents.lexical_sync import LexicalSync
    from core.documents.narrative_channel import DocumentNarrative
    from core.documents.retrieval import HybridRetriever
    from core.documents.withheld_passages import WithheldPassages
    from storage.chunk_store import SqlChunkStore


class DocumentServices:
    """Built by bot.wiring.core_services; `documents_seen` is the documents version the serving
    process's last freshness check saw (None: read the table), `after_ingest` what an ingest in
    this process runs (the freshness check, forced), `relevance_floor` the retriever's floor."""

    def __init__(
        self,
        settings: Settings,
        engine: Engine,
        glossary: CurrentGlossary,
        *,
        llm: Callable[[], LLM | None],
        relevance_floor: Callable[[], float],
        documents_seen: Callable[[], int | None],
        after_ingest: Callable[[], None],
        withheld: Callable[[], WithheldPassages | None] | None = None,
    ) -> None:
        self.settings = settings
        self.engine = engine
        self.glossary = glossary
        self._llm = llm
        self._relevance_floor = relevance_floor
        self._documents_seen = documents_seen
        self._after_ingest = after_ingest
        self._withheld = withheld  # public passages not quoted to uncleared chats
        self._vectors: VectorIndex | None = None
        self._lexical: LexicalSync | None = None  # BM25, updated per document
        self._narrative: tuple[int, DocumentNarrative] | None = None  # (glossary generation, it)

    @cached_property
    def chunks(self) -> SqlChunkStore:
        from storage.chunk_store import SqlChunkStore

        return SqlChunkStore(self.engine)

    @cached_property
    def embedder(self) -> Embedder:
        from bot.models.embedders import choose_embedder

        return choose_embedder(self.settings.embedder, bge_model_path=self.settings.bge_model_path)

    def vector_index(self, *, recreate: bool = False) -> VectorIndex:
        """Two Chroma collections (public, restricted) behind one index: an uncleared chat's
        search never touches a restricted vector, and needs no slow metadata filter."""
        if recreate or self._vectors is None:
            from storage.partitioned_vector_index import PartitionedVectorIndex
            from storage.vector_store import ChromaVectorIndex

            s = self.settings
            where = {"url": s.chroma_url} if s.chroma_url else {"data_dir": s.data_dir}
            embedder = self.embedder
            parts = [
                ChromaVectorIndex(embedder_name=embedder.name, dimension=embedder.dimension,
                                  collection=name, recreate=recreate, **where)
                for name in ("ricorda_chunks", "ricorda_chunks_restricted")
            ]
            self._vectors = PartitionedVectorIndex(*parts)
        return self._vectors

    @property
    def narrative(self) -> DocumentNarrative:
        """The narrative channel of the current glossary (its names tag the chunks)."""
        generation = self.glossary.generation
        if self._narrative is None or self._narrative[0] != generation:
            from core.documents.narrative_channel import DocumentNarrative
            from core.knowledge.names import NameIndex

            built = DocumentNarrative(
                names=NameIndex(self.glossary.get()),
                build_retriever=self._build_retriever,
                fingerprint=self._stamp,
                llm=self._llm,
                llm_timeout=self.settings.llm_timeout_s,
                withheld=self._withheld,
            )
            self._narrative = (generation, built)
        return self._narrative[1]

    def _stamp(self) -> str:
        """What the retriever was built for: in a serving process the documents version its
        last check saw (the retriever is rebuilt when it moves), else a read of the table."""
        seen = self._documents_seen()
        return self.chunks.fingerprint() if seen is None else f"v{seen}"

    def _build_retriever(self) -> HybridRetriever | None:
        from core.contracts.deferred import Deferred
        from core.documents.lexical_sync import LexicalSync
        from core.documents.retrieval import HybridRetriever
        from storage.lexical_snapshot import LexicalSnapshots

        if self._lexical is None:  # kept in the data dir: a restart maps it, not re-tokenises
            self._lexical = LexicalSync(LexicalSnapshots(self.settings.data_dir / "lexical"))
        bm25 = self._lexical.current(self.chunks, self._names())
        if bm25 is None:
            return None
        # connected on first search, again after a failure: a vector store that is down
        # leaves BM25 answering (the retriever logs it) until it is back
        vectors = Deferred(self.vector_index)
        return HybridRetriever(
            self.chunks, bm25, vectors, self.embedder, relevance_floor=self._relevance_floor()
        )

    def chunk_tokenizer(self) -> ChunkTokenizer:
        """The BM25 tokenizer for the glossary's names (they shape the tokens of Chinese text:
        a glossary that changed them starts the index over). Ingest stores each chunk's tokens
        made with it; the serving index reads them back (core.documents.chunk_tokens)."""
        from core.documents.chunk_tokens import ChunkTokenizer

        return ChunkTokenizer(self._names())

    def _names(self) -> tuple[str, ...]:
        """The glossary's names, sorted: what the lexical index and its tokens are made for."""
        g = self.glossary.get()
        terms = [*g.metrics.values(), *g.entities.values(), *g.channels.values()]
        return tuple(sorted({n for t in terms for n in t.names}))

    def ingest_documents(
        self,
        folder: Path,
        *,
        source: DocumentSource | None = None,
        prune: bool = False,
        reindex: bool = False,
        progress: Callable[[int, int, str], None] | None = None,
    ) -> DocumentIngestReport:
        """Ingest `folder` into `source` (by default the source it belongs to; see
        `document_sources`, which also lists the declared sources nested in it)."""
        from core.documents.document_ingest import ingest_documents
        from core.documents.narrative_channel import glossary_tagger
        from core.knowledge.document_sources import nested_roots, source_of_folder
        from core.knowledge.names import NameIndex
        from storage.document_readers import read_document, read_title

        glossary = self.glossary.get()
        if source is None:
            source, skip = source_of_folder(folder, glossary.documents, self.chunks.sources())
        else:
            skip = nested_roots(source, glossary.documents) if source.declared else set()
        if reindex:  # every file is embedded again into fresh collections
            for record in self.chunks.documents():
                self.chunks.delete_document(record.path)
        self.chunks.save_source(source)
        report = ingest_documents(
            folder,
            source=source,
            skip_roots=skip,
            chunk_store=self.chunks,
            vector_index=self.vector_index(recreate=reindex),
            embedder=self.embedder,
            prune=prune,
            progress=progress,
            tagger=glossary_tagger(NameIndex(glossary)),
            reader=read_document,
            titler=read_title,
            tokens_of=self.chunk_tokenizer().stored,
        )
        self._after_ingest()  # a serving process answers from what it just ingested
        return report

    def document_sources(self, folder: Path) -> list[tuple[Path, DocumentSource]]:
        """What ingesting `folder` means (core.knowledge.document_sources.sources_to_ingest)."""
        from core.knowledge.document_sources import sources_to_ingest

        return sources_to_ingest(folder, self.glossary.get().documents, self.chunks.sources())
