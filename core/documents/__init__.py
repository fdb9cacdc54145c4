"""Why-questions from documents: chunks, retrieval, passages, cited synthesis.

The modules are imported by name (`from core.documents.chunking import ...`); none is
imported here, so importing one loads only what it needs."""

__all__ = [
    "cause_pick",
    "chunk_tokens",
    "chunking",
    "document_ingest",
    "lexical",
    "lexical_sync",
    "locator_words",
    "narrative",
    "narrative_channel",
    "narrative_tools",
    "passage_pick",
    "query_rewrite",
    "rerank",
    "retrieval",
    "snippet_text",
    "source_titles",
    "stated_figures",
    "withheld_passages",
]
