"""The BM25 index follows ingests document by document (issue 28): a one-document ingest reads
and indexes that document only, and the index then scores exactly as one built from scratch.
Over the real chunk store on SQLite and PostgreSQL."""

from __future__ import annotations

import datetime as dt
import random
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy.engine import Engine

import core.documents.lexical as lexical
from core.contracts.documents import DocumentRecord
from core.contracts.ports import Chunk
from core.documents.lexical import Bm25Index, Tokenizer
from core.documents.lexical_sync import LexicalSync
from storage.chunk_store import SqlChunkStore
from storage.lexical_snapshot import LexicalSnapshots

WORDS = ["revenue", "margin", "store", "china", "italy", "online", "price", "demand", "board",
         "dividend", "营收", "下降"]
NAMES = ("中国区",)


def texts(rng: random.Random, n: int) -> list[str]:
    return [" ".join(rng.choices(WORDS, k=rng.randint(3, 12))) for _ in range(n)]


def put(store: SqlChunkStore, doc: str, bodies: list[str], *, restricted: bool = False,
        tag: str = "") -> None:
    chunks = [Chunk(id=f"{doc}#{i}{tag}", doc=doc, locator=f"para={i}", text=t,
                    restricted=restricted, metadata={"entity": "ORBIS_CN,ORBIS_IT"})
              for i, t in enumerate(bodies)]
    record = DocumentRecord(path=doc, sha256=f"{doc}{tag}".ljust(64, "0"), restricted=restricted,
                            ingested_at=dt.datetime.now(dt.UTC), n_chunks=len(chunks))
    store.replace_document(record, chunks)


def same_as_fresh(index: Bm25Index, store: SqlChunkStore, query: list[str]) -> None:
    """Every chunk scores as in an index built from all chunks now (ids matched up)."""
    fresh = Bm25Index(store.all_chunks(), Tokenizer(NAMES))
    got = dict(index.search(query, k=1000, allowed=index.mask(cleared=True)))
    want = dict(fresh.search(query, k=1000))
    assert got.keys() == want.keys()
    np.testing.assert_allclose([got[c] for c in want], list(want.values()), rtol=1e-12)


def test_a_one_document_ingest_reads_that_document_only_and_scores_as_a_rebuild(
    engine: Engine,
) -> None:
    rng = random.Random(5)
    store = SqlChunkStore(engine)
    for d in range(6):
        put(store, f"doc{d}.md", texts(rng, 10))
    sync = LexicalSync()
    index = sync.current(store, NAMES)
    assert index is not None and sync.last_read == 60 and len(index) == 60

    put(store, "doc3.md", ["the zebracorn programme", *texts(rng, 3)], tag="v2")
    index = sync.current(store, NAMES)
    assert index is not None and sync.last_read == 4  # the re-ingested document, nothing else
    assert len(index) == 54
    assert [cid for cid, _ in index.search(["zebracorn"], k=3)] == ["doc3.md#0v2"]
    assert not any(cid.startswith("doc3.md#") and not cid.endswith("v2")
                   for cid, _ in index.search(WORDS, k=100))
    same_as_fresh(index, store, ["revenue", "china", "营收", "zebracorn"])

    store.delete_document("doc1.md")
    index = sync.current(store, NAMES)
    assert index is not None and sync.last_read == 0 and len(index) == 44
    assert not any(cid.startswith("doc1.md#") for cid, _ in index.search(WORDS, k=100))
    same_as_fresh(index, store, ["margin", "dividend", "demand"])

    assert sync.current(store, NAMES) is index and sync.last_read == 0  # nothing changed


def test_a_reclassified_document_leaves_an_uncleared_search_at_once(engine: Engine) -> None:
    store = SqlChunkStore(engine)
    put(store, "open.md", ["online price rules"])
    put(store, "board.md", ["board dividend decision"])
    sync = LexicalSync()
    index = sync.current(store, NAMES)
    assert index is not None
    assert [c for c, _ in index.search(["dividend"], k=5, allowed=index.mask(False))] == [
        "board.md#0"]
    store.reclassify("board.md", True)
    index = sync.current(store, NAMES)
    assert index is not None and sync.last_read == 1
    assert index.search(["dividend"], k=5, allowed=index.mask(False)) == []
    assert [c for c, _ in index.search(["dividend"], k=5, allowed=index.mask(True))] == [
        "board.md#0"]
    visible = index.mask(False, {"entity": "ORBIS_IT"})
    assert [index.ids[i] for i in np.flatnonzero(visible)] == ["open.md#0"]
    assert not index.mask(True, {"entity": "ORBIS_HK"}).any()


def test_new_glossary_names_rebuild_the_tokens(engine: Engine) -> None:
    store = SqlChunkStore(engine)
    put(store, "zh.md", ["中国区营收下降"])
    sync = LexicalSync()
    sync.current(store, ())
    index = sync.current(store, NAMES)
    assert index is not None and sync.last_read == 1
    assert [c for c, _ in index.search(["中国区"], k=1)] == ["zh.md#0"]


def test_many_updates_compact_and_still_score_as_a_rebuild(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(lexical, "_COMPACT_MIN", 0)
    rng = random.Random(9)
    tokenizer = Tokenizer()
    live: dict[str, list[Chunk]] = {}
    index = Bm25Index((), tokenizer)
    for step in range(40):
        doc = f"d{rng.randrange(8)}.md"
        live[doc] = [Chunk(f"{doc}@{step}.{i}", doc, "p", t, restricted=bool(i % 3 == 0))
                     for i, t in enumerate(texts(rng, rng.randint(0, 6)))]
        index = index.updated([doc], live[doc])
    assert index.rows < sum(len(c) for c in live.values()) * 2  # removed rows were dropped
    fresh = Bm25Index([c for cs in live.values() for c in cs], tokenizer)
    query = ["revenue", "board", "下降"]
    for cleared in (False, True):
        got = index.search(query, k=50, allowed=index.mask(cleared))
        want = fresh.search(query, k=50, allowed=fresh.mask(cleared))
        assert [c for c, _ in got] == [c for c, _ in want] and got
        np.testing.assert_allclose([s for _, s in got], [s for _, s in want], rtol=1e-12)


def test_a_restart_maps_the_saved_index_and_reads_only_what_changed_meanwhile(
    engine: Engine, tmp_path: Path
) -> None:
    rng = random.Random(11)
    store = SqlChunkStore(engine)
    for d in range(5):
        put(store, f"doc{d}.md", texts(rng, 8), restricted=d == 4)
    first = LexicalSync(LexicalSnapshots(tmp_path / "lexical"))
    built = first.current(store, NAMES)
    assert built is not None and first.last_read == 40
    query = ["revenue", "board", "营收"]
    before = built.search(query, k=40, allowed=built.mask(False))

    restarted = LexicalSync(LexicalSnapshots(tmp_path / "lexical"))
    loaded = restarted.current(store, NAMES)
    assert loaded is not None and restarted.last_read == 0  # no chunk read, none tokenised
    assert loaded.search(query, k=40, allowed=loaded.mask(False)) == before
    assert not any(cid.startswith("doc4.md") for cid, _ in before)

    put(store, "doc2.md", ["zebracorn launch"], tag="v2")  # while no process was running
    again = LexicalSync(LexicalSnapshots(tmp_path / "lexical"))
    index = again.current(store, NAMES)
    assert index is not None and again.last_read == 1
    assert [c for c, _ in index.search(["zebracorn"], k=2)] == ["doc2.md#0v2"]
    same_as_fresh(index, store, query)

    other_words = LexicalSync(LexicalSnapshots(tmp_path / "lexical"))
    assert other_words.current(store, ("意大利区",)) is not None
    assert other_words.last_read == 33  # tokens made with other names are not reused

    (tmp_path / "lexical" / "header.json").write_text("{not json", encoding="utf-8")
    broken = LexicalSync(LexicalSnapshots(tmp_path / "lexical"))
    assert broken.current(store, NAMES) is not None and broken.last_read == 33
