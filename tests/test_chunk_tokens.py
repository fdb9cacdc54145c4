"""Chunk tokens stored at ingest (issue 28): a replica starting on an empty volume builds its
BM25 index from the tokens the ingest stored, without tokenising (or loading jieba), and the
index is the one built from the text; chunks stored before tokens were (the 0004 migration
leaves them NULL) or under other glossary names are tokenised as before, so nothing is lost.
On SQLite and PostgreSQL."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import text
from sqlalchemy.engine import Engine

from core.contracts.documents import DocumentRecord
from core.contracts.ports import Chunk
from core.documents.chunk_tokens import ChunkTokenizer, decode, encode
from core.documents.document_ingest import ingest_documents
from core.documents.lexical import Bm25Index, Tokenizer
from core.documents.lexical_sync import LexicalSync
from storage.chunk_store import SqlChunkStore
from storage.db import make_engine, open_database
from storage.document_readers import read_document
from storage.migrations import alembic_config

NAMES = ("Orbis China", "中国区", "意大利区")
QUERIES = [["revenue"], ["china", "online"], ["中国区", "营收"], ["意大利区", "下降", "margin"],
           ["unknown"]]
DOCS = {
    "en.md": "Revenue in China grew online.\n\nThe margin fell in Italy; online stores grew.",
    "it.md": "Il fatturato di Orbis China è cresciuto online.",
    "zh.md": "中国区营收在2025年下降。\n\n意大利区营收下降，margin 也下降。",
    "mixed.md": "Orbis中国区 revenue 营收 online",
}


def ingest(folder: Path, store: SqlChunkStore, names: tuple[str, ...] = NAMES) -> None:
    folder.mkdir(exist_ok=True)
    for name, body in DOCS.items():
        (folder / name).write_text(body, encoding="utf-8")
    ingest_documents(folder, chunk_store=store, vector_index=None, embedder=None,
                     reader=read_document, tokens_of=ChunkTokenizer(names).stored)


def same_as_built_from_text(index: Bm25Index, store: SqlChunkStore,
                            names: tuple[str, ...] = NAMES) -> None:
    """Every query ranks and scores every chunk exactly as an index tokenised from the text."""
    fresh = Bm25Index(store.all_chunks(), Tokenizer(names))
    for query in QUERIES:
        assert index.search(query, k=100) == fresh.search(query, k=100)
    assert len(index) == len(fresh) > 0


def test_a_replica_on_an_empty_volume_indexes_the_stored_tokens(
    engine: Engine, tmp_path: Path
) -> None:
    store = SqlChunkStore(engine)
    ingest(tmp_path / "kb", store)
    rows = store.indexed_chunks([r.path for r in store.documents()])
    assert rows and all(r.tokens is not None for r in rows)

    replica = LexicalSync()  # no snapshot: what a new replica has
    index = replica.current(store, NAMES)
    assert index is not None
    assert replica.last_read == len(rows) and replica.tokenised == 0
    assert index.tokenizer._jieba is None  # building never segmented Chinese
    same_as_built_from_text(index, store)
    assert [c for c, _ in index.search(["中国区"], k=1)]  # a CJK query still works


def test_chunks_stored_before_tokens_were_are_tokenised_from_their_text(
    engine: Engine, tmp_path: Path
) -> None:
    store = SqlChunkStore(engine)
    ingest(tmp_path / "kb", store)
    legacy = [Chunk(id="old#0", doc="old.md", locator="para=1", text="Old revenue 中国区营收"),
              Chunk(id="old#1", doc="old.md", locator="para=2", text="online margin")]
    store.replace_document(
        DocumentRecord("old.md", "0" * 64, False, dt.datetime.now(dt.UTC), 2), legacy
    )  # as every ingest did before tokens were stored: NULL
    replica = LexicalSync()
    index = replica.current(store, NAMES)
    assert index is not None and replica.tokenised == 2
    same_as_built_from_text(index, store)
    assert "old#0" in {c for c, _ in index.search(["old"], k=5)}

    # a one-document ingest later: the update reads that document's stored tokens
    (tmp_path / "kb" / "new.md").write_text("zebracorn revenue", encoding="utf-8")
    ingest_documents(tmp_path / "kb", chunk_store=store, vector_index=None, embedder=None,
                     reader=read_document, tokens_of=ChunkTokenizer(NAMES).stored)
    index = replica.current(store, NAMES)
    assert index is not None and replica.last_read == 1 and replica.tokenised == 2
    [(found, _)] = index.search(["zebracorn"], k=1)
    assert store.get_chunks([found])[0].doc == "new.md"
    same_as_built_from_text(index, store)


def test_tokens_of_chinese_made_with_other_glossary_names_are_not_reused(
    engine: Engine, tmp_path: Path
) -> None:
    store = SqlChunkStore(engine)
    ingest(tmp_path / "kb", store, names=())  # ingested before the glossary named 中国区
    replica = LexicalSync()
    index = replica.current(store, NAMES)
    assert index is not None
    with_cjk = [r for r in store.indexed_chunks(list(DOCS)) if any(
        "\u4e00" <= ch <= "\u9fff" for ch in r.chunk.text)]
    assert replica.tokenised == len(with_cjk) > 0  # English/Italian chunks were reused
    same_as_built_from_text(index, store)
    assert [c for c, _ in index.search(["中国区"], k=1)]  # kept whole: the new names apply


def test_the_migration_leaves_existing_chunks_without_tokens_and_they_stay_searchable(
    db_url: str,
) -> None:
    """A database at the previous revision, with a chunk in it, upgrades in place (nothing
    copied or lost); its chunk has no stored tokens and is indexed from its text."""
    old = make_engine(db_url)
    with old.begin() as conn:
        command.upgrade(alembic_config(conn), "0003_conversations")
        conn.execute(text(
            "INSERT INTO documents (path, source, sha256, restricted, ingested_at, n_chunks)"
            " VALUES ('a.md', 'default', 'abc', false, '2026-12-01 10:00:00+00:00', 1)"))
        conn.execute(text(
            "INSERT INTO chunks (id, doc, ordinal, locator, text, restricted, metadata)"
            " VALUES ('a.md#0', 'a.md', 0, 'para=1', 'Legacy revenue text', false, '{}')"))
    old.dispose()
    engine = open_database(db_url)
    try:
        store = SqlChunkStore(engine)
        [row] = store.indexed_chunks(["a.md"])
        assert row.chunk.text == "Legacy revenue text" and row.tokens is None
        replica = LexicalSync()
        index = replica.current(store, NAMES)
        assert index is not None and replica.tokenised == 1
        assert [c for c, _ in index.search(["legacy"], k=1)] == ["a.md#0"]
    finally:
        engine.dispose()


def test_encoded_tokens_round_trip_as_term_counts() -> None:
    tokens = Tokenizer(["中国区"]).tokenize("Orbis中国区营收 ORBIS orbis，下降 2025")
    counts = decode(encode(tokens))
    assert counts["orbis"] == 3 and counts["中国区"] == 1 and sum(counts.values()) == len(tokens)
    assert decode(encode([])) == {}


def test_one_token_row_per_chunk_or_nothing_is_stored(engine: Engine) -> None:
    store = SqlChunkStore(engine)
    chunks = [Chunk(id="x#0", doc="x.md", locator="p", text="a"),
              Chunk(id="x#1", doc="x.md", locator="p", text="b")]
    record = DocumentRecord("x.md", "1" * 64, False, dt.datetime.now(dt.UTC), 2)
    with pytest.raises(ValueError, match="token rows"):
        store.replace_document(record, chunks, ChunkTokenizer(()).stored(chunks[:1]))
    assert store.documents() == []
