"""Ingest a folder of documents: read, chunk, tag, embed, and record them, idempotently.

The chunk store (database) is the source of truth and is written last for each file: if the
embedder or vector index fails half-way, the file's content hash is not recorded yet and the
next run simply does it again. A file whose bytes did not change is skipped without being read.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from core.chunking import Section, chunk_document
from core.errors import IngestError
from core.ports import Chunk, ChunkStore, Embedder, VectorIndex

DOCUMENT_SUFFIXES = frozenset({".md", ".txt", ".pdf", ".docx", ".pptx"})
RESTRICTED_FOLDER = "restricted"
EMBED_BATCH = 64

Reader = Callable[[Path], list[Section]]
Tagger = Callable[[str], dict[str, str]]
Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class DocumentRecord:
    """What the database remembers about one ingested file."""

    path: str  # relative to the ingested folder, POSIX separators: "china/2025_review.pdf"
    sha256: str
    restricted: bool
    ingested_at: dt.datetime
    n_chunks: int


class DocumentCatalog(ChunkStore, Protocol):
    """A chunk store that also keeps the per-file records needed to re-ingest incrementally."""

    def documents(self) -> list[DocumentRecord]: ...

    def replace_document(self, record: DocumentRecord, chunks: Sequence[Chunk]) -> None:
        """Atomically replace every chunk of `record.path` and its record."""
        ...

    def delete_document(self, doc: str) -> None: ...


@dataclass
class DocumentIngestReport:
    added: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)  # skipped: same content hash
    pruned: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # recorded but gone from disk, not pruned
    failed: list[tuple[str, str]] = field(default_factory=list)  # (file, reason)
    chunks_written: int = 0
    seconds: float = 0.0

    def summary(self) -> str:
        """One line for the CLI, e.g. "2 added, 1 replaced, 5 unchanged, 1 failed; 37 chunks"."""
        parts = [
            f"{len(self.added)} added",
            f"{len(self.replaced)} replaced",
            f"{len(self.unchanged)} unchanged",
        ]
        if self.pruned:
            parts.append(f"{len(self.pruned)} pruned")
        if self.failed:
            parts.append(f"{len(self.failed)} failed")
        if self.missing:
            parts.append(f"{len(self.missing)} no longer on disk (--prune removes them)")
        return f"{', '.join(parts)}; {self.chunks_written} chunks in {self.seconds:.1f} s"


def ingest_documents(
    root: Path,
    *,
    chunk_store: DocumentCatalog,
    vector_index: VectorIndex | None,
    embedder: Embedder | None,
    prune: bool = False,
    progress: Progress | None = None,
    tagger: Tagger | None = None,
    reader: Reader | None = None,
    clock: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC),
) -> DocumentIngestReport:
    """Bring the chunk store and vector index in line with the documents under `root`.

    Everything below a `restricted/` folder is RESTRICTED. `tagger(text)` returns metadata
    (e.g. entity codes and years found in the chunk) stored with each chunk. `progress(done,
    total, current_file)` is called after each file. With no embedder or vector index only the
    lexical (BM25) channel is fed.
    """
    if not root.is_dir():
        raise IngestError(f"{root}: not a folder")
    if reader is None:
        from storage.document_readers import read_document

        reader = read_document
    started = time.perf_counter()
    report = DocumentIngestReport()
    files = list(document_files(root))
    known = {record.path: record for record in chunk_store.documents()}
    use_vectors = vector_index is not None and embedder is not None
    for done, path in enumerate(files, start=1):
        rel = doc_name(path, root)
        try:
            content = path.read_bytes()
        except OSError as exc:
            report.failed.append((rel, f"cannot read the file ({exc.strerror or exc})"))
            _report_progress(progress, done, len(files), rel)
            continue
        digest = hashlib.sha256(content).hexdigest()
        restricted = is_restricted(rel)
        previous = known.get(rel)
        if previous and previous.sha256 == digest and previous.restricted == restricted:
            report.unchanged.append(rel)
            _report_progress(progress, done, len(files), rel)
            continue
        try:
            sections = reader(path)
        except IngestError as exc:
            report.failed.append((rel, str(exc)))
            _report_progress(progress, done, len(files), rel)
            continue
        chunks = chunk_document(rel, sections, restricted=restricted)
        if tagger is not None:
            chunks = [replace(c, metadata=dict(tagger(c.text))) for c in chunks]
        if use_vectors:
            assert vector_index is not None and embedder is not None
            # Also for a "new" file: a run that died before recording it may have left vectors.
            vector_index.delete_doc(rel)
            for batch in _batches(chunks, EMBED_BATCH):
                vector_index.upsert(batch, embedder.embed([c.text for c in batch]))
        record = DocumentRecord(rel, digest, restricted, clock(), len(chunks))
        chunk_store.replace_document(record, chunks)
        (report.replaced if previous else report.added).append(rel)
        report.chunks_written += len(chunks)
        _report_progress(progress, done, len(files), rel)
    on_disk = {doc_name(path, root) for path in files}
    for rel in sorted(set(known) - on_disk):
        if not prune:
            report.missing.append(rel)
            continue
        if vector_index is not None:
            vector_index.delete_doc(rel)
        chunk_store.delete_document(rel)
        report.pruned.append(rel)
    report.seconds = time.perf_counter() - started
    return report


def document_files(root: Path) -> Iterable[Path]:
    """Supported files under root in a stable order, skipping hidden and Office lock files."""
    for path in sorted(root.rglob("*")):
        rel_parts = path.relative_to(root).parts
        if any(part.startswith(".") for part in rel_parts) or path.name.startswith("~$"):
            continue
        if path.suffix.lower() in DOCUMENT_SUFFIXES and path.is_file():
            yield path


def doc_name(path: Path, root: Path) -> str:
    """The document's name: its path below `root`, POSIX separators. A file name that is not
    UTF-8 (Python keeps its bytes as lone surrogates) is spelled with `\\xNN` escapes, so it
    can be stored, hashed and shown like any other name instead of failing the whole ingest."""
    rel = path.relative_to(root).as_posix()
    try:
        raw = rel.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate that is no escaped byte (not from a file system)
        raw = rel.encode("utf-8", "backslashreplace")
    return raw.decode("utf-8", "backslashreplace")


def is_restricted(rel_path: str) -> bool:
    """A file is RESTRICTED when any folder on its path is named `restricted`."""
    folders = rel_path.split("/")[:-1]
    return any(part.casefold() == RESTRICTED_FOLDER for part in folders)


def _batches(chunks: list[Chunk], size: int) -> Iterable[list[Chunk]]:
    for start in range(0, len(chunks), size):
        yield chunks[start : start + size]


def _report_progress(progress: Progress | None, done: int, total: int, current: str) -> None:
    if progress is not None:
        progress(done, total, current)
