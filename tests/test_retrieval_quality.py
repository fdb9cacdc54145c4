"""Retrieval quality on the labeled en/it/zh corpus: hybrid must beat BM25 alone.

The real stack end to end: documents ingested into SQLite and Chroma with the offline USE
embedder, BM25 built from the chunk store, glossary query rewriting, RRF. Run with `-s` to see
the recall table.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from bot.embedders import UseEmbedder
from core.document_ingest import ingest_documents
from core.glossary import Glossary, load_glossary
from core.lexical import Bm25Index, Tokenizer
from core.query_rewrite import rewrite_queries
from core.retrieval import HybridRetriever
from storage.chunk_store import SqlChunkStore
from storage.db import open_database
from storage.vector_store import ChromaVectorIndex

CORPUS = Path(__file__).parent / "fixtures" / "retrieval"
K = 5


def synonym_groups(glossary: Glossary) -> list[list[str]]:
    tables = (glossary.metrics, glossary.entities, glossary.channels)
    return [[*term.names, term.code] for table in tables for term in table.values()]


@pytest.fixture(scope="module")
def stack(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[HybridRetriever, HybridRetriever, list[list[str]]]:
    data = tmp_path_factory.mktemp("quality")
    glossary = load_glossary(CORPUS / "glossary.toml")
    groups = synonym_groups(glossary)
    store = SqlChunkStore(open_database(f"sqlite:///{data / 'ricorda.db'}"))
    embedder = UseEmbedder()
    index = ChromaVectorIndex(
        embedder_name=embedder.name, dimension=embedder.dimension, data_dir=data
    )
    report = ingest_documents(
        CORPUS / "docs", chunk_store=store, vector_index=index, embedder=embedder
    )
    assert not report.failed and len(report.added) >= 15
    bm25 = Bm25Index(store.all_chunks(), Tokenizer(n for g in groups for n in g))
    hybrid = HybridRetriever(store, bm25, index, embedder)
    lexical = HybridRetriever(store, bm25, None, None)
    return lexical, hybrid, groups


def load_queries() -> list[dict[str, object]]:
    lines = (CORPUS / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def recall_at_k(
    retriever: HybridRetriever,
    queries: list[dict[str, object]],
    groups: list[list[str]],
    *,
    rewrite: bool,
) -> dict[str, float]:
    """Share of relevant files found among the files of the top-K chunks, overall and by kind."""
    found: dict[str, list[float]] = defaultdict(list)
    for q in queries:
        question = str(q["query"])
        variants = rewrite_queries(question, groups) if rewrite else [question]
        docs = {s.chunk.doc for s in retriever.retrieve(variants, cleared=True, k=K)}
        relevant = list(q["relevant"])  # type: ignore[call-overload]
        share = sum(d in docs for d in relevant) / len(relevant)
        found["all"].append(share)
        found[str(q["kind"])].append(share)
    return {kind: sum(v) / len(v) for kind, v in found.items()}


def test_corpus_is_big_enough_and_multilingual() -> None:
    queries = load_queries()
    assert len(queries) >= 20 and len(list((CORPUS / "docs").iterdir())) >= 15
    assert {q["lang"] for q in queries} == {"en", "it", "zh"}
    assert {"cross-language", "paraphrase"} <= {q["kind"] for q in queries}


def test_hybrid_recall_beats_bm25_alone(
    stack: tuple[HybridRetriever, HybridRetriever, list[list[str]]],
) -> None:
    lexical, hybrid, groups = stack
    queries = load_queries()
    table = {
        "BM25 alone": recall_at_k(lexical, queries, groups, rewrite=True),
        "hybrid (BM25 + USE, RRF)": recall_at_k(hybrid, queries, groups, rewrite=True),
        "hybrid, no rewriting": recall_at_k(hybrid, queries, groups, rewrite=False),
    }
    kinds = ["all", "same-language", "cross-language", "paraphrase"]
    print(f"\nrecall@{K} over {len(queries)} queries")
    print(f"{'':28}" + "".join(f"{kind:>16}" for kind in kinds))
    for name, row in table.items():
        print(f"{name:28}" + "".join(f"{row.get(kind, float('nan')):>16.3f}" for kind in kinds))

    bm25, both = table["BM25 alone"]["all"], table["hybrid (BM25 + USE, RRF)"]["all"]
    assert both > bm25
    assert both >= 0.8  # measured 0.89; a drop below 0.8 means retrieval regressed
