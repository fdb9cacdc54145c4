"""SqlChunkStore on SQLite and PostgreSQL: the database record of documents and chunks."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine

from core.contracts.documents import DocumentRecord, DocumentSource
from core.contracts.ports import Chunk
from storage.chunk_store import SqlChunkStore
from storage.db import make_engine, open_database
from storage.document_tables import adopt_legacy_documents

T0 = dt.datetime(2025, 3, 1, 9, 0, tzinfo=dt.UTC)


def record(
    path: str, sha: str = "a" * 64, *, restricted: bool = False, at: dt.datetime = T0
) -> DocumentRecord:
    return DocumentRecord(path=path, sha256=sha, restricted=restricted, ingested_at=at, n_chunks=0)


def chunks(doc: str, texts: list[str], *, restricted: bool = False) -> list[Chunk]:
    return [
        Chunk(
            id=f"{doc}#{i}",
            doc=doc,
            locator=f"para={i + 1}",
            text=t,
            restricted=restricted,
            metadata={"entity": "ORBIS_CN", "year": "2025"} if i == 0 else {},
        )
        for i, t in enumerate(texts)
    ]


@pytest.fixture
def store(engine: Engine) -> SqlChunkStore:
    return SqlChunkStore(engine)


def test_replace_document_round_trips_text_flags_and_metadata(store: SqlChunkStore) -> None:
    written = chunks("zh/报告.md", ["中国区营收下降。", "Perché è calato? ✓"], restricted=True)
    store.replace_document(record("zh/报告.md", restricted=True), written)
    assert store.all_chunks() == written
    [doc] = store.documents()
    assert (doc.path, doc.restricted, doc.n_chunks, doc.ingested_at) == ("zh/报告.md", True, 2, T0)


def test_replacing_a_document_removes_its_old_chunks_only(store: SqlChunkStore) -> None:
    store.replace_document(record("a.md"), chunks("a.md", ["old one", "old two", "old three"]))
    store.replace_document(record("b.md"), chunks("b.md", ["other"]))
    store.replace_document(record("a.md", "b" * 64), chunks("a.md", ["new one"]))
    texts = [c.text for c in store.all_chunks()]
    assert texts == ["new one", "other"]
    assert {d.path: d.sha256 for d in store.documents()} == {"a.md": "b" * 64, "b.md": "a" * 64}


def test_get_chunks_keeps_the_requested_order_and_skips_unknown_ids(store: SqlChunkStore) -> None:
    store.replace_document(record("a.md"), chunks("a.md", [f"text {i}" for i in range(700)]))
    wanted = ["a.md#650", "missing", "a.md#3", "a.md#0"]
    assert [c.id for c in store.get_chunks(wanted)] == ["a.md#650", "a.md#3", "a.md#0"]
    assert len(store.get_chunks([f"a.md#{i}" for i in range(700)])) == 700  # > one IN batch


def test_delete_document_and_fingerprint_changes(store: SqlChunkStore) -> None:
    empty = store.fingerprint()
    store.replace_document(record("a.md"), chunks("a.md", ["one"]))
    store.replace_document(record("b.md"), chunks("b.md", ["two"]))
    both = store.fingerprint()
    store.replace_document(record("b.md", at=T0 + dt.timedelta(hours=1)), chunks("b.md", ["2"]))
    replaced = store.fingerprint()
    store.delete_document("a.md")
    assert [c.doc for c in store.all_chunks()] == ["b.md"]
    assert [d.path for d in store.documents()] == ["b.md"]
    assert len({empty, both, replaced, store.fingerprint()}) == 4


def test_chunks_of_another_document_are_refused(store: SqlChunkStore) -> None:
    with pytest.raises(ValueError):
        store.replace_document(record("a.md"), chunks("b.md", ["x"]))
    assert store.documents() == []


def test_documents_are_listed_per_source_and_restricted_ones_known(store: SqlChunkStore) -> None:
    a = DocumentRecord("handbook/a.md", "a" * 64, False, T0, 0, source="handbook")
    b = DocumentRecord("archive/a.md", "b" * 64, True, T0, 0, source="archive")
    store.replace_document(a, chunks("handbook/a.md", ["one"]))
    store.replace_document(b, chunks("archive/a.md", ["two"], restricted=True))
    assert [d.path for d in store.documents("handbook")] == ["handbook/a.md"]
    assert [d.source for d in store.documents()] == ["archive", "handbook"]
    assert store.restricted_documents(["handbook/a.md", "archive/a.md", "gone.md"]) == {
        "archive/a.md"
    }


def test_sources_are_recorded_and_updated(store: SqlChunkStore, tmp_path: Path) -> None:
    store.save_source(DocumentSource("docs", tmp_path / "docs", False, False))
    store.save_source(DocumentSource("docs", tmp_path / "docs", True, True))
    assert store.sources() == [DocumentSource("docs", tmp_path / "docs", True, True)]


def test_a_documents_table_from_before_sources_is_adopted(db_url: str) -> None:
    """The table as the previous release created it, on SQLite and PostgreSQL."""
    engine = make_engine(db_url)
    try:
        with engine.begin() as conn:
            conn.execute(text(
                "CREATE TABLE documents (path VARCHAR PRIMARY KEY, sha256 VARCHAR NOT NULL, "
                "restricted BOOLEAN NOT NULL, ingested_at TIMESTAMP WITH TIME ZONE NOT NULL, "
                "n_chunks INTEGER NOT NULL)"
            ))
            conn.execute(text(
                "INSERT INTO documents VALUES ('a.md', :sha, false, :at, 1)"
            ), {"sha": "a" * 64, "at": T0})
        engine.dispose()
        engine = open_database(db_url)
        assert adopt_legacy_documents(engine) == 1
        assert adopt_legacy_documents(engine) == 0  # once
        store = SqlChunkStore(engine)
        assert [(d.path, d.source) for d in store.documents("default")] == [("a.md", "default")]
    finally:
        engine.dispose()
