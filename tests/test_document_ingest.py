"""Document ingest end to end: file types, failures, idempotency, replace, prune, restricted."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy.engine import Engine

from bot.models.embedders import HashingEmbedder
from core.contracts.errors import IngestError, ModelError
from core.documents.document_ingest import DocumentIngestReport, ingest_documents, is_restricted
from storage.chunk_store import SqlChunkStore
from storage.document_readers import read_document
from tests.document_fixtures import write_docx, write_pdf, write_pptx
from tests.retrieval_fakes import InMemoryVectorIndex


def make_corpus(root: Path) -> Path:
    (root / "china").mkdir(parents=True)
    (root / "restricted" / "board").mkdir(parents=True)
    (root / "notes.md").write_text("# China\n\nRevenue fell in China.\n\n# Italy\n\nItaly grew.\n")
    (root / "memo.txt").write_text("Perché il fatturato è calato.\n\nSecondo paragrafo.")
    write_pdf(root / "china" / "review.pdf", [["China footfall fell."], ["Online grew."]])
    write_docx(root / "china" / "plan.docx", [("h1", "Plan"), ("p", "Open ten stores.")])
    write_pptx(root / "deck.pptx", [("FY2025", "Revenue up 3%")])
    (root / "restricted" / "board" / "layoffs.md").write_text("Confidential: layoffs in Milan.")
    (root / "broken.docx").write_bytes(b"PK\x03\x04 truncated")
    (root / "fake.pdf").write_text("not a pdf at all")
    (root / ".hidden.md").write_text("skipped")
    (root / "~$plan.docx").write_bytes(b"office lock file")
    (root / "image.png").write_bytes(b"\x89PNG")
    return root


GOOD = [
    "china/plan.docx",
    "china/review.pdf",
    "deck.pptx",
    "memo.txt",
    "notes.md",
    "restricted/board/layoffs.md",
]


class CountingEmbedder(HashingEmbedder):
    def __init__(self, fail_on: str | None = None) -> None:
        super().__init__(64)
        self.calls = 0
        self.fail_on = fail_on

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        if self.fail_on and any(self.fail_on in t for t in texts):
            raise ModelError("embedder crashed")
        return super().embed(texts)


@pytest.fixture
def store(engine: Engine) -> SqlChunkStore:
    return SqlChunkStore(engine)


def run(
    root: Path,
    store: SqlChunkStore,
    index: InMemoryVectorIndex,
    embedder: HashingEmbedder | None = None,
    **kwargs: object,
) -> DocumentIngestReport:
    return ingest_documents(
        root,
        chunk_store=store,
        vector_index=index,
        embedder=embedder or CountingEmbedder(),
        **{"reader": read_document, **kwargs},
    )  # type: ignore[arg-type]


def test_first_ingest_reads_every_type_and_reports_broken_files(
    tmp_path: Path, store: SqlChunkStore
) -> None:
    root = make_corpus(tmp_path / "kb")
    index = InMemoryVectorIndex()
    seen: list[tuple[int, int, str]] = []
    report = run(root, store, index, progress=lambda d, t, f: seen.append((d, t, f)))

    assert sorted(report.added) == GOOD
    assert [name for name, _ in report.failed] == ["broken.docx", "fake.pdf"]
    assert "not a PDF" in dict(report.failed)["fake.pdf"]
    chunks = store.all_chunks()
    assert report.chunks_written == len(chunks) == len(index.ids)
    assert {c.id for c in chunks} == set(index.ids)
    locators = {(c.doc, c.locator) for c in chunks}
    assert {
        ("china/review.pdf", "page=2"),
        ("deck.pptx", "slide=1"),
        ("memo.txt", "para=1"),
        ("notes.md", "section=Italy"),
        ("china/plan.docx", "section=Plan"),
    } <= locators
    assert {c.doc for c in chunks if c.restricted} == {"restricted/board/layoffs.md"}
    assert [d for d, _, _ in seen] == list(range(1, 9)) and {t for _, t, _ in seen} == {8}
    assert {f for _, _, f in seen} == {*GOOD, "broken.docx", "fake.pdf"}
    assert "6 added" in report.summary() and "2 failed" in report.summary()


def test_second_ingest_skips_everything_unchanged(tmp_path: Path, store: SqlChunkStore) -> None:
    root = make_corpus(tmp_path / "kb")
    index = InMemoryVectorIndex()
    run(root, store, index)
    before = store.all_chunks()
    embedder = CountingEmbedder()
    report = run(root, store, index, embedder)
    assert sorted(report.unchanged) == GOOD
    assert report.added == report.replaced == [] and report.chunks_written == 0
    assert embedder.calls == 0
    assert store.all_chunks() == before


def test_a_changed_file_alone_is_replaced_in_database_and_vectors(
    tmp_path: Path, store: SqlChunkStore
) -> None:
    root = make_corpus(tmp_path / "kb")
    index = InMemoryVectorIndex()
    run(root, store, index)
    (root / "notes.md").write_text("# China\n\nRevenue recovered in Q4.\n")
    report = run(root, store, index)
    assert report.replaced == ["notes.md"]
    assert sorted(report.unchanged) == sorted(set(GOOD) - {"notes.md"})
    notes = [c for c in store.all_chunks() if c.doc == "notes.md"]
    assert [c.text for c in notes] == ["China\nRevenue recovered in Q4."]
    assert {
        cid for cid, m in zip(index.ids, index.meta, strict=True) if m["doc"] == "notes.md"
    } == {c.id for c in notes}
    assert not any("Italy grew" in c.text for c in store.all_chunks())


def test_removed_files_are_reported_and_pruned_only_when_asked(
    tmp_path: Path, store: SqlChunkStore
) -> None:
    root = make_corpus(tmp_path / "kb")
    index = InMemoryVectorIndex()
    run(root, store, index)
    (root / "deck.pptx").unlink()
    kept = run(root, store, index)
    assert kept.missing == ["deck.pptx"] and "deck.pptx" in index.docs()
    pruned = run(root, store, index, prune=True)
    assert pruned.pruned == ["deck.pptx"]
    assert "deck.pptx" not in {d.path for d in store.documents()}
    assert "deck.pptx" not in index.docs()
    assert all(c.doc != "deck.pptx" for c in store.all_chunks())


def test_tagger_metadata_is_stored_with_each_chunk(tmp_path: Path, store: SqlChunkStore) -> None:
    root = tmp_path / "kb"
    root.mkdir()
    (root / "a.md").write_text("# China\n\nChina revenue fell in 2025.\n\n# Italy\n\nItaly grew.")

    def tagger(text: str) -> dict[str, str]:
        return {"entity": "ORBIS_CN", "year": "2025"} if "China" in text else {}

    run(root, store, InMemoryVectorIndex(), tagger=tagger)
    meta = {c.locator: c.metadata for c in store.all_chunks()}
    assert meta == {"section=China": {"entity": "ORBIS_CN", "year": "2025"}, "section=Italy": {}}


def test_embedder_failure_leaves_the_file_to_be_redone(
    tmp_path: Path, store: SqlChunkStore
) -> None:
    root = tmp_path / "kb"
    root.mkdir()
    (root / "a.md").write_text("alpha text")
    (root / "b.md").write_text("boom text")
    index = InMemoryVectorIndex()
    with pytest.raises(ModelError):
        run(root, store, index, CountingEmbedder(fail_on="boom"))
    assert [d.path for d in store.documents()] == ["a.md"]  # b.md not recorded as done
    report = run(root, store, index)
    assert report.added == ["b.md"] and report.unchanged == ["a.md"]


def test_without_vectors_only_the_database_is_fed(tmp_path: Path, store: SqlChunkStore) -> None:
    root = tmp_path / "kb"
    root.mkdir()
    (root / "a.md").write_text("alpha text")
    report = ingest_documents(
        root, chunk_store=store, vector_index=None, embedder=None, reader=read_document
    )
    assert report.added == ["a.md"] and len(store.all_chunks()) == 1


def test_missing_root_is_an_ingest_error(tmp_path: Path, store: SqlChunkStore) -> None:
    with pytest.raises(IngestError):
        run(tmp_path / "nope", store, InMemoryVectorIndex())


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("restricted/a.md", True),
        ("hr/Restricted/x/a.pdf", True),
        ("restricted.md", False),
        ("unrestricted/a.md", False),
        ("a/b.md", False),
    ],
)
def test_restricted_folder_rule(path: str, expected: bool) -> None:
    assert is_restricted(path) is expected
