"""Retrieval quality on the labeled en/it/zh corpus: hybrid must beat BM25 alone, unrelated
questions find nothing, and the passages an extractive answer shows are the relevant ones.

The real stack end to end: documents ingested into SQLite and Chroma with the offline USE
embedder, BM25 built from the chunk store, glossary query rewriting, RRF, and the embedder's
relevance floor (as the application builds it). Run with `-s` to see the tables.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from bot.models.embedders import UseEmbedder
from core.contracts.ports import Chunk, ScoredChunk
from core.documents.document_ingest import ingest_documents
from core.documents.lexical import Bm25Index, Tokenizer
from core.documents.narrative_channel import RETRIEVE_K
from core.documents.passage_pick import pick_passages
from core.documents.query_rewrite import rewrite_queries
from core.documents.retrieval import HybridRetriever
from core.knowledge.glossary import Glossary, load_glossary
from core.knowledge.names import NameIndex
from storage.chunk_store import SqlChunkStore
from storage.db import open_database
from storage.document_readers import read_document
from storage.vector_store import ChromaVectorIndex

CORPUS = Path(__file__).parent / "fixtures" / "retrieval"
K = 5


def synonym_groups(glossary: Glossary) -> list[list[str]]:
    tables = (glossary.metrics, glossary.entities, glossary.channels)
    return [[*term.names, term.code] for table in tables for term in table.values()]


def build_stack(data: Path) -> tuple[HybridRetriever, HybridRetriever, list[list[str]]]:
    """(BM25 alone, hybrid with the USE floor, synonym groups) over the labeled corpus, ingested
    under `data` (also used by `bench/bench_retrieval.py --quality`)."""
    glossary = load_glossary(CORPUS / "glossary.toml")
    groups = synonym_groups(glossary)
    store = SqlChunkStore(open_database(f"sqlite:///{data / 'ricorda.db'}"))
    embedder = UseEmbedder()
    index = ChromaVectorIndex(
        embedder_name=embedder.name, dimension=embedder.dimension, data_dir=data
    )
    report = ingest_documents(
        CORPUS / "docs", chunk_store=store, vector_index=index, embedder=embedder,
        reader=read_document,
    )
    assert not report.failed and len(report.added) >= 15
    bm25 = Bm25Index(store.all_chunks(), Tokenizer(n for g in groups for n in g))
    floor = embedder.thresholds.relevance
    hybrid = HybridRetriever(store, bm25, index, embedder, relevance_floor=floor)
    lexical = HybridRetriever(store, bm25, None, None)
    return lexical, hybrid, groups


@pytest.fixture(scope="module")
def stack(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[HybridRetriever, HybridRetriever, list[list[str]]]:
    return build_stack(tmp_path_factory.mktemp("quality"))


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


# Questions about nothing in the corpus, in the three languages.
UNRELATED = [
    "What is the capital of France?", "How do I bake sourdough bread?",
    "Tell me a joke about cats", "Who won the football world cup in 2018?",
    "What is the boiling point of water?", "Come si prepara la pasta alla carbonara?",
    "Chi ha scritto la Divina Commedia?", "Qual è la capitale della Francia?",
    "明天北京的天气怎么样？", "怎么做红烧肉？", "谁写了红楼梦？", "How tall is Mount Everest?",
    "Recommend a good science fiction novel", "What's the best way to learn the guitar?",
    "Quanto è alto il Monte Bianco?", "Which planets have rings?",
    "Write me a poem about autumn", "How do vaccines work?",
    "Chi ha vinto il campionato di calcio?", "Come si coltivano i pomodori?",
    "Dimmi una barzelletta", "如何学习弹钢琴？", "太阳系有几颗行星？",
    "What's the weather tomorrow in Milan?", "Is coffee bad for your health?",
    "Translate hello into Japanese", "What time is it in Tokyo?",
]  # fmt: skip


def test_unrelated_questions_find_nothing(
    stack: tuple[HybridRetriever, HybridRetriever, list[list[str]]],
) -> None:
    """Below the relevance floor nothing is returned, so nothing is quoted. Measured with USE:
    25 of these 27 are refused (two score 0.21 and 0.24, above the weakest labeled query that
    is answered, 0.19): the floor is set where recall@5 above does not move."""
    _, hybrid, groups = stack
    found = [q for q in UNRELATED if hybrid.retrieve(rewrite_queries(q, groups), cleared=True, k=K)]
    print(f"\nunrelated questions that still found snippets: {len(found)}/{len(UNRELATED)} {found}")
    assert len(found) <= 2


def test_an_unrelated_question_is_answered_with_nothing_found(
    stack: tuple[HybridRetriever, HybridRetriever, list[list[str]]],
) -> None:
    """The narrative channel over the same retriever: no snippet quoted, no source listed."""
    from core.documents.narrative_channel import DocumentNarrative
    from core.knowledge.names import NameIndex

    _, hybrid, _ = stack
    channel = DocumentNarrative(
        names=NameIndex(load_glossary(CORPUS / "glossary.toml")), build_retriever=lambda: hybrid
    )
    for question, language in [("How do I bake sourdough bread?", "en"), ("怎么做红烧肉？", "zh")]:
        snippets = channel.search(question, filters={}, cleared=False)
        result = channel.compose(
            question, language=language, snippets=snippets, cleared=False, rerank=False
        )
        text = result.text
        assert (snippets, result.sources, result.mode) == ([], [], "empty")
        assert "nothing" in text or "没有找到" in text
    # and a related one still quotes its document
    snippets = channel.search("How did exchange rates affect revenue?", filters={}, cleared=False)
    assert snippets and "currency_translation.md" in {s.chunk.doc for s in snippets}


# --- the passages an extractive answer shows ------------------------------------------------

SHOWN = 3  # core.documents.narrative.EXTRACTIVE_SNIPPETS


def top_distinct(snippets: list[ScoredChunk], **_: object) -> list[Chunk]:
    """The selection before core.documents.passage_pick: the first three chunks of distinct text."""
    chosen: list[Chunk] = []
    for s in snippets:
        if all(s.chunk.text != c.text for c in chosen) and len(chosen) < SHOWN:
            chosen.append(s.chunk)
    return chosen


def picked(
    snippets: list[ScoredChunk],
    *,
    language: str,
    entities: list[str],
    names: NameIndex,
    floor: float | None,
) -> list[Chunk]:
    chosen = pick_passages(
        snippets, language=language, entities=entities, names=names, limit=SHOWN, floor=floor
    )
    return [p.snippet.chunk for p in chosen]


def passage_quality(
    retriever: HybridRetriever,
    queries: list[dict[str, object]],
    groups: list[list[str]],
    names: NameIndex,
    select: object,
) -> dict[str, float]:
    """precision@3: share of the shown passages (up to 3) from a relevant document, averaged
    over questions (a question shown nothing scores 0); answered@3: share of questions shown
    at least one relevant passage; about: for questions naming an entity other than the
    company itself, share of shown passages from a document about that entity (labels in
    fixtures/retrieval/doc_entities.json, independent of how passage_pick judges it)."""
    about_docs = json.loads((CORPUS / "doc_entities.json").read_text(encoding="utf-8"))
    default = names.glossary.default_entity
    precision, answered, about, about_shown = [], [], 0, 0
    for q in queries:
        question = str(q["query"])
        found = retriever.retrieve(rewrite_queries(question, groups), cleared=True, k=RETRIEVE_K)
        entities = list(dict.fromkeys(m.code for m in names.find(question) if m.kind == "entity"))
        shown = select(  # type: ignore[operator]
            found,
            language=str(q["lang"]),
            entities=entities,
            names=names,
            floor=retriever.relevance_floor,
        )
        relevant = sum(c.doc in q["relevant"] for c in shown)  # type: ignore[operator]
        precision.append(relevant / len(shown) if shown else 0.0)
        answered.append(float(relevant > 0))
        asked = set(entities) - {default}
        if asked:
            about_shown += len(shown)
            about += sum(bool(asked & set(about_docs[c.doc])) for c in shown)
    return {
        "precision@3": sum(precision) / len(precision),
        "answered@3": sum(answered) / len(answered),
        "about": about / about_shown if about_shown else 0.0,
        "about_shown": float(about_shown),
    }


def test_extractive_answers_show_relevant_passages_about_the_asked_entity(
    stack: tuple[HybridRetriever, HybridRetriever, list[list[str]]],
) -> None:
    """The three passages an answer without an LLM quotes. Measured: before (the first three
    distinct chunks) precision@3 0.417, answered@3 0.679, about 6/15 = 0.400; after
    (core.documents.passage_pick) 0.530, 0.821, 10/15 = 0.667. The floors sit between the two."""
    _, hybrid, groups = stack
    names = NameIndex(load_glossary(CORPUS / "glossary.toml"))
    queries = load_queries()
    before = passage_quality(hybrid, queries, groups, names, top_distinct)
    after = passage_quality(hybrid, queries, groups, names, picked)
    print(f"\nextractive passages over {len(queries)} queries")
    print(f"{'':34}{'precision@3':>14}{'answered@3':>14}{'about entity':>14}")
    for name, row in (("before: first 3 distinct chunks", before), ("after: passage_pick", after)):
        figures = "".join(f"{row[k]:>14.3f}" for k in ("precision@3", "answered@3", "about"))
        print(f"{name:34}{figures}  ({row['about_shown']:.0f} shown naming an entity)")

    assert before["precision@3"] < 0.5 <= after["precision@3"]
    assert before["about"] < 0.6 <= after["about"]
    assert after["answered@3"] >= before["answered@3"]  # fewer, better passages, none lost
