"""Ingest a folder of documents: read, chunk, tag, embed, and record them, idempotently.

The chunk store (database) is the source of truth and is written last for each file: if the
embedder or vector index fails half-way, the file's content hash is not recorded yet and the
next run simply does it again. A file whose bytes did not change is skipped without being read.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from core.contracts.documents import DEFAULT_SOURCE, DocumentRecord, DocumentSource
from core.contracts.errors import IngestError
from core.contracts.ports import Chunk, Embedder, VectorIndex
from core.contracts.ports import (  # declared with every storage port
    DocumentCatalog as DocumentCatalog,
)
from core.documents.chunking import Section, chunk_document
from core.knowledge.document_sources import (
    RESTRICTED_FOLDER,
    is_restricted,
    path_is_restricted,
    restricted_in,
    source_key,
    source_rel,
)

if TYPE_CHECKING:
    from core.contracts.ports import StoredTokens

DOCUMENT_SUFFIXES = frozenset({".md", ".txt", ".pdf", ".docx", ".pptx"})
EMBED_BATCH = 64

Reader = Callable[[Path], list[Section]]
Tagger = Callable[[str], dict[str, str]]
Progress = Callable[[int, int, str], None]
TokensOf = Callable[[Sequence[Chunk]], "list[StoredTokens]"]


@dataclass
class DocumentIngestReport:
    added: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)  # skipped: same content hash
    pruned: list[str] = field(default_factory=list)
    moved: list[str] = field(default_factory=list)  # old paths of files moved in the folder
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, why): symlinks
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
        if self.moved:
            parts.append(f"{len(self.moved)} moved (old copies removed)")
        if self.pruned:
            parts.append(f"{len(self.pruned)} pruned")
        if self.skipped:
            parts.append(f"{len(self.skipped)} skipped (symbolic links are not followed)")
        if self.failed:
            parts.append(f"{len(self.failed)} failed")
        if self.missing:
            parts.append(f"{len(self.missing)} no longer on disk (--prune removes them)")
        return f"{', '.join(parts)}; {self.chunks_written} chunks in {self.seconds:.1f} s"


def ingest_documents(
    folder: Path,
    *,
    chunk_store: DocumentCatalog,
    vector_index: VectorIndex | None,
    embedder: Embedder | None,
    reader: Reader,
    source: DocumentSource | None = None,
    skip_roots: Collection[Path] = (),
    prune: bool = False,
    progress: Progress | None = None,
    tagger: Tagger | None = None,
    clock: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC),
    titler: Callable[[Path], str | None] | None = None,
    tokens_of: TokensOf | None = None,
) -> DocumentIngestReport:
    """Bring the chunk store and vector index in line with the documents under `folder`.

    `folder` is the source's root or a folder inside it; paths, keys and classification are
    taken relative to the source root, never to `folder`. Without a source the folder is an
    undeclared source of its own (`core.knowledge.document_sources`). Symbolic links are reported
    and
    skipped, so nothing outside the folder is read; `skip_roots` are folders of other sources.
    A document no longer on disk whose content (or file name, when its classification changed)
    reappears elsewhere in the folder was moved: its old copy is removed even without `prune`,
    which otherwise removes documents of this source, under `folder`, gone from disk.
    `tagger(text)` returns metadata (e.g. entity codes and years found in the chunk) stored with
    each chunk; `titler(path)` the document's own title, kept with each chunk as "title" (what a
    citation shows: core.documents.source_titles). `tokens_of(chunks)` gives each chunk's BM25
    tokens to store with it (`ChunkTokenizer.stored`), so no serving process tokenises them
    again. `progress(done, total, current_file)` is called after each file. With no embedder or
    vector index only the lexical (BM25) channel is fed.
    """
    if not folder.is_dir():
        raise IngestError(f"{folder}: not a folder")
    resolved = folder.resolve()
    if source is None:
        source = DocumentSource(
            DEFAULT_SOURCE, resolved, path_is_restricted(resolved), declared=False
        )
    if resolved != source.root and source.root not in resolved.parents:
        raise IngestError(f"{folder}: not inside the folder of source {source.name!r}")
    started = time.perf_counter()
    report = DocumentIngestReport()
    files: list[Path] = []
    for path, why_skipped in walk_documents(resolved, skip=frozenset(skip_roots)):
        if why_skipped:
            report.skipped.append((path.relative_to(source.root).as_posix(), why_skipped))
        else:
            files.append(path)
    scope = resolved.relative_to(source.root).as_posix()
    prefix = "" if scope == "." else scope + "/"
    known = {
        record.path: record
        for record in chunk_store.documents(source.name)
        if source_rel(source, record.path).startswith(prefix)
    }
    use_vectors = vector_index is not None and embedder is not None
    on_disk: dict[str, tuple[str, bool]] = {}  # key -> (sha256, restricted)
    for done, path in enumerate(files, start=1):
        rel = doc_name(path, source.root)
        key = source_key(source, rel)
        try:
            content = path.read_bytes()
        except OSError as exc:
            report.failed.append((key, f"cannot read the file ({exc.strerror or exc})"))
            _report_progress(progress, done, len(files), key)
            continue
        digest = hashlib.sha256(content).hexdigest()
        restricted = restricted_in(source, rel)
        on_disk[key] = (digest, restricted)
        previous = known.get(key)
        if previous and previous.sha256 == digest and previous.restricted == restricted:
            report.unchanged.append(key)
            _report_progress(progress, done, len(files), key)
            continue
        try:
            sections = reader(path)
        except IngestError as exc:
            report.failed.append((key, str(exc)))
            _report_progress(progress, done, len(files), key)
            continue
        chunks = chunk_document(key, sections, restricted=restricted)
        if tagger is not None:
            chunks = [replace(c, metadata=dict(tagger(c.text))) for c in chunks]
        title = titler(path) if titler is not None else None
        if title:
            chunks = [replace(c, metadata={**c.metadata, "title": title}) for c in chunks]
        if use_vectors:
            assert vector_index is not None and embedder is not None
            # Also for a "new" file: a run that died before recording it may have left vectors;
            # and a reclassified one leaves the other partition here.
            vector_index.delete_doc(key)
            for batch in _batches(chunks, EMBED_BATCH):
                vector_index.upsert(batch, embedder.embed([c.text for c in batch]))
        record = DocumentRecord(key, digest, restricted, clock(), len(chunks), source.name)
        if tokens_of is None:
            chunk_store.replace_document(record, chunks)
        else:
            chunk_store.replace_document(record, chunks, tokens_of(chunks))
        (report.replaced if previous else report.added).append(key)
        report.chunks_written += len(chunks)
        _report_progress(progress, done, len(files), key)
    for key in sorted(set(known) - set(on_disk)):
        moved = _moved(known[key], on_disk)
        if not (prune or moved):
            report.missing.append(key)
            continue
        if vector_index is not None:
            vector_index.delete_doc(key)
        chunk_store.delete_document(key)
        (report.moved if moved else report.pruned).append(key)
    report.seconds = time.perf_counter() - started
    return report


def _moved(record: DocumentRecord, on_disk: dict[str, tuple[str, bool]]) -> bool:
    """Whether a document gone from its path is now elsewhere in the folder: the same bytes,
    or the same file name under the other classification (moved and edited at once)."""
    name = record.path.rsplit("/", 1)[-1]
    return any(
        sha == record.sha256 or (key.rsplit("/", 1)[-1] == name and restricted != record.restricted)
        for key, (sha, restricted) in on_disk.items()
    )


def walk_documents(
    folder: Path, *, skip: frozenset[Path] = frozenset()
) -> Iterator[tuple[Path, str | None]]:
    """(path, None) for each supported file under `folder` in a stable order, or (path, why)
    for a symbolic link, which is never followed: wherever it points (`restricted/`, outside
    the folder), its target is not read. Hidden entries and Office lock files are ignored."""
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        path = Path(entry.path)
        if entry.name.startswith(".") or entry.name.startswith("~$"):
            continue
        if entry.is_symlink():
            if entry.is_dir() or path.suffix.lower() in DOCUMENT_SUFFIXES:
                yield path, "symbolic link, not followed"
            continue
        if entry.is_dir(follow_symlinks=False):
            if path not in skip:
                yield from walk_documents(path, skip=skip)
        elif entry.is_file(follow_symlinks=False) and path.suffix.lower() in DOCUMENT_SUFFIXES:
            yield path, None


def document_files(root: Path) -> Iterable[Path]:
    """Supported files under root in a stable order (symbolic links left out)."""
    return [path for path, why in walk_documents(root) if why is None]


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


def _batches(chunks: list[Chunk], size: int) -> Iterable[list[Chunk]]:
    for start in range(0, len(chunks), size):
        yield chunks[start : start + size]


def _report_progress(progress: Progress | None, done: int, total: int, current: str) -> None:
    if progress is not None:
        progress(done, total, current)


__all__ = [
    "RESTRICTED_FOLDER",
    "DocumentCatalog",
    "DocumentIngestReport",
    "document_files",
    "ingest_documents",
    "is_restricted",
    "walk_documents",
]
