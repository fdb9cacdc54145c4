"""ChromaVectorIndex against a real embedded Chroma in tmp_path, and a real `chroma run` server."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from core.contracts.errors import EmbedderMismatchError, StorageError
from core.contracts.ports import Chunk
from storage.vector_store import ChromaVectorIndex

DIM = 4


def _unit(*values: float) -> np.ndarray:
    v = np.array(values, dtype=np.float32)
    return v / np.linalg.norm(v)


def _chunks() -> tuple[list[Chunk], np.ndarray]:
    chunks = [
        Chunk("a1", "a.md", "para=1", "alpha", metadata={"entity": "ORBIS_CN", "year": "2025"}),
        Chunk("a2", "a.md", "para=2", "alpha two", metadata={"entity": "ORBIS_IT"}),
        Chunk("b1", "b.pdf", "page=1", "beta", metadata={"entity": "ORBIS_CN", "year": "2024"}),
        Chunk("r1", "restricted/r.md", "para=1", "secret", restricted=True),
    ]
    vectors = np.stack(
        [_unit(1, 0, 0, 0), _unit(1, 1, 0, 0), _unit(0, 1, 0, 0), _unit(1, 0.1, 0, 0)]
    )
    return chunks, vectors


@pytest.fixture
def index(tmp_path: Path) -> ChromaVectorIndex:
    chunks, vectors = _chunks()
    idx = ChromaVectorIndex(embedder_name="test-emb", dimension=DIM, data_dir=tmp_path)
    idx.upsert(chunks, vectors)
    return idx


def test_query_returns_cosine_similarity_best_first(index: ChromaVectorIndex) -> None:
    hits = index.query(_unit(1, 0, 0, 0), k=10)
    assert [cid for cid, _ in hits] == ["a1", "r1", "a2", "b1"]
    scores = dict(hits)
    assert scores["a1"] == pytest.approx(1.0, abs=1e-5)
    assert scores["a2"] == pytest.approx(float(_unit(1, 1, 0, 0)[0]), abs=1e-5)
    assert scores["b1"] == pytest.approx(0.0, abs=1e-5)


def test_query_k_limits_and_k_larger_than_collection_is_fine(index: ChromaVectorIndex) -> None:
    assert [cid for cid, _ in index.query(_unit(0, 1, 0, 0), k=1)] == ["b1"]
    assert len(index.query(_unit(0, 1, 0, 0), k=500)) == 4


def test_where_filters_on_chunk_metadata(index: ChromaVectorIndex) -> None:
    query = _unit(1, 0, 0, 0)
    assert {c for c, _ in index.query(query, 10, where={"entity": "ORBIS_CN"})} == {"a1", "b1"}
    both = index.query(query, 10, where={"entity": "ORBIS_CN", "year": "2024"})
    assert [c for c, _ in both] == ["b1"]
    assert {c for c, _ in index.query(query, 10, where={"restricted": False})} == {"a1", "a2", "b1"}
    assert {c for c, _ in index.query(query, 10, where={"doc": ["a.md", "b.pdf"]})} == {
        "a1",
        "a2",
        "b1",
    }
    assert index.query(query, 10, where={"entity": "NOBODY"}) == []


def test_upsert_replaces_and_delete_doc_removes_only_that_doc(index: ChromaVectorIndex) -> None:
    moved = Chunk("a1", "a.md", "para=1", "alpha moved")
    index.upsert([moved], _unit(0, 0, 1, 0)[None, :])
    assert index.count() == 4
    assert index.query(_unit(0, 0, 1, 0), k=1)[0] == ("a1", pytest.approx(1.0, abs=1e-5))
    index.delete_doc("a.md")
    assert index.count() == 2
    assert {c for c, _ in index.query(_unit(1, 0, 0, 0), 10)} == {"b1", "r1"}


def test_vectors_persist_across_reopen(index: ChromaVectorIndex, tmp_path: Path) -> None:
    reopened = ChromaVectorIndex(embedder_name="test-emb", dimension=DIM, data_dir=tmp_path)
    assert reopened.count() == 4
    assert reopened.query(_unit(0, 1, 0, 0), k=1)[0][0] == "b1"


def test_other_embedder_on_a_built_index_is_refused_with_the_reindex_command(
    index: ChromaVectorIndex, tmp_path: Path
) -> None:
    with pytest.raises(EmbedderMismatchError) as err:
        ChromaVectorIndex(embedder_name="bge-m3", dimension=1024, data_dir=tmp_path)
    message = str(err.value)
    assert "test-emb" in message and "bge-m3" in message
    assert "ricorda ingest --reindex" in message
    # the refused open left the index intact
    assert (
        ChromaVectorIndex(embedder_name="test-emb", dimension=DIM, data_dir=tmp_path).count() == 4
    )


def test_recreate_rebuilds_for_the_new_embedder(index: ChromaVectorIndex, tmp_path: Path) -> None:
    fresh = ChromaVectorIndex(embedder_name="other", dimension=3, data_dir=tmp_path, recreate=True)
    assert fresh.count() == 0
    fresh.upsert([Chunk("x", "x.md", "para=1", "x")], np.eye(3, dtype=np.float32)[:1])
    again = ChromaVectorIndex(embedder_name="other", dimension=3, data_dir=tmp_path)
    assert again.query(np.eye(3, dtype=np.float32)[0], 1)[0][0] == "x"


def test_an_empty_index_silently_adopts_a_new_embedder(tmp_path: Path) -> None:
    ChromaVectorIndex(embedder_name="old", dimension=DIM, data_dir=tmp_path)
    new = ChromaVectorIndex(embedder_name="new", dimension=3, data_dir=tmp_path)
    new.upsert([Chunk("x", "x.md", "para=1", "x")], np.eye(3, dtype=np.float32)[:1])
    assert new.count() == 1


def test_reset_empties_the_index(index: ChromaVectorIndex) -> None:
    index.reset()
    assert index.count() == 0
    assert index.query(_unit(1, 0, 0, 0), k=3) == []


def test_chroma_never_embeds_text_itself(index: ChromaVectorIndex) -> None:
    collection = index._collection
    with pytest.raises(StorageError, match="always passes embeddings"):
        collection.query(query_texts=["would download a model"], n_results=1)
    with pytest.raises(StorageError, match="always passes embeddings"):
        collection.add(ids=["t"], documents=["would download a model"])


def test_wrong_shapes_are_a_storage_error_not_a_chroma_crash(index: ChromaVectorIndex) -> None:
    chunks, _ = _chunks()
    with pytest.raises(StorageError, match="dimension 4"):
        index.upsert(chunks[:2], np.ones((2, 3), dtype=np.float32))
    with pytest.raises(StorageError, match="dimension"):
        index.query(np.ones(7, dtype=np.float32), k=1)


def test_chromadb_errors_are_translated_with_the_cause_chained(index: ChromaVectorIndex) -> None:
    with pytest.raises(StorageError) as err:
        index.query(_unit(1, 0, 0, 0), 3, where={"$bogus": [1]})
    assert err.value.__cause__ is not None


def test_exactly_one_location_is_required(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        ChromaVectorIndex(embedder_name="e", dimension=2)
    with pytest.raises(ValueError):
        ChromaVectorIndex(embedder_name="e", dimension=2, data_dir=tmp_path, url="http://x:1")


def test_unreachable_server_is_a_storage_error() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(StorageError, match="Chroma"):
        ChromaVectorIndex(embedder_name="e", dimension=2, url=f"http://127.0.0.1:{port}")


# --- a real Chroma server ----------------------------------------------------------------


@pytest.fixture
def chroma_server(tmp_path: Path) -> Iterator[str]:
    """`chroma run` on a free loopback port for this test, stopped afterwards."""
    exe = shutil.which("chroma") or str(Path(sys.executable).parent / "chroma")
    if not Path(exe).exists():
        pytest.skip("the chroma CLI is not installed")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [
            exe,
            "run",
            "--path",
            str(tmp_path / "server"),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                pytest.skip(f"chroma run exited with {proc.returncode}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.skip("chroma run did not start listening within 20 s")
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_http_client_against_a_real_chroma_server(chroma_server: str) -> None:
    chunks, vectors = _chunks()
    idx = ChromaVectorIndex(embedder_name="test-emb", dimension=DIM, url=chroma_server)
    idx.upsert(chunks, vectors)
    assert idx.count() == 4
    assert [c for c, _ in idx.query(_unit(0, 1, 0, 0), 2, where={"restricted": False})] == [
        "b1",
        "a2",
    ]
    with pytest.raises(EmbedderMismatchError, match="--reindex"):
        ChromaVectorIndex(embedder_name="other", dimension=DIM, url=chroma_server)
    idx.delete_doc("b.pdf")
    assert idx.count() == 3


def test_query_many_answers_each_embedding_as_a_single_query_would(
    index: ChromaVectorIndex,
) -> None:
    """A retrieval's rewritten queries go to Chroma in one call: same hits, same cosines."""
    queries = np.stack([_unit(1, 0, 0, 0), _unit(0, 1, 0, 0), _unit(1, 1, 0, 0),
                        _unit(0, 0, 1, 0), _unit(1, 0.1, 0, 0)])
    for where in (None, {"restricted": False}, {"entity": "ORBIS_CN"}):
        assert index.query_many(queries, 3, where) == [index.query(q, 3, where) for q in queries]
    assert index.query_many(queries, 0) == [[]] * 5
    with pytest.raises(StorageError):
        index.query_many(np.ones((2, 7), dtype=np.float32), 1)
