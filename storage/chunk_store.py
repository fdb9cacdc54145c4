"""The database side of document ingest: chunks and per-file records on SQLite or PostgreSQL.

Implements `core.contracts.ports.ChunkStore` and `core.documents.document_ingest.DocumentCatalog`
with SQLAlchemy Core statements (bulk inserts; one transaction per document), so replacing a
file's chunks is all-or-nothing and 10,000 chunks load in well under a second.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import case, delete, func, insert, literal, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

from core.contracts.documents import DocumentRecord, DocumentSource
from core.contracts.errors import StorageError
from core.contracts.ports import Chunk, IndexedChunk, StoredTokens
from storage.document_tables import ChunkRow, DocumentRow, DocumentSourceRow
from storage.kb_version import DOCUMENTS, bump_kb_version
from storage.tables import utcnow
from storage.upsert import upsert_statement

_CHUNKS = ChunkRow.__table__  # type: ignore[attr-defined]
_DOCS = DocumentRow.__table__  # type: ignore[attr-defined]
_SOURCES = DocumentSourceRow.__table__  # type: ignore[attr-defined]
_IN_BATCH = 500  # ids per IN (...) list: far below every backend's parameter limit


class SqlChunkStore:
    """Chunks and document records in the ricorda database (tables from `open_database`)."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._upsert_source = upsert_statement(
            engine.dialect.name,
            _SOURCES,
            ("name",),
            ("root", "restricted", "declared", "updated_at"),
        )

    def all_chunks(self) -> list[Chunk]:
        """Every chunk, by document and position (the corpus the BM25 index is built from)."""
        stmt = select(_CHUNKS).order_by(_CHUNKS.c.doc, _CHUNKS.c.ordinal)
        with _guard("read the chunks"), self._engine.connect() as conn:
            return [_to_chunk(row) for row in conn.execute(stmt).mappings()]

    def get_chunks(self, ids: Sequence[str]) -> list[Chunk]:
        """The chunks with these ids in the order asked; unknown ids are left out."""
        found: dict[str, Chunk] = {}
        unique = list(dict.fromkeys(ids))
        with _guard("read chunks"), self._engine.connect() as conn:
            for start in range(0, len(unique), _IN_BATCH):
                batch = unique[start : start + _IN_BATCH]
                rows = conn.execute(select(_CHUNKS).where(_CHUNKS.c.id.in_(batch))).mappings()
                found.update((row["id"], _to_chunk(row)) for row in rows)
        return [found[i] for i in ids if i in found]

    def chunks_of(self, docs: Sequence[str]) -> list[Chunk]:
        """The chunks of these documents, by document and position (what an index update
        reads after an ingest, instead of every chunk)."""
        unique = list(dict.fromkeys(docs))
        out: list[Chunk] = []
        with _guard("read chunks"), self._engine.connect() as conn:
            for start in range(0, len(unique), _IN_BATCH):
                batch = unique[start : start + _IN_BATCH]
                stmt = (
                    select(_CHUNKS)
                    .where(_CHUNKS.c.doc.in_(batch))
                    .order_by(_CHUNKS.c.doc, _CHUNKS.c.ordinal)
                )
                out.extend(_to_chunk(row) for row in conn.execute(stmt).mappings())
        return out

    def indexed_chunks(
        self, docs: Sequence[str], usable: Sequence[str] = ()
    ) -> list[IndexedChunk]:
        """`chunks_of` with each chunk's stored BM25 tokens (None for chunks ingested before
        they were stored): what the lexical index is built from without tokenising again.
        A chunk whose tokens were made under a key in `usable` comes without its text (""):
        the index never holds text, and at a million chunks reading it is half the rows."""
        unique = list(dict.fromkeys(docs))
        out: list[IndexedChunk] = []
        text = _CHUNKS.c.text
        if usable:
            text = case((_CHUNKS.c.tokens_key.in_(list(usable)), literal("")), else_=text)
        columns = [c for c in _CHUNKS.c if c.name != "text"] + [text.label("text")]
        with _guard("read chunks"), self._engine.connect() as conn:
            for start in range(0, len(unique), _IN_BATCH):
                batch = unique[start : start + _IN_BATCH]
                stmt = (
                    select(*columns)
                    .where(_CHUNKS.c.doc.in_(batch))
                    .order_by(_CHUNKS.c.doc, _CHUNKS.c.ordinal)
                )
                out.extend(
                    IndexedChunk(_to_chunk(row), row["tokens"], row["tokens_key"])
                    for row in conn.execute(stmt).mappings()
                )
        return out

    def documents(self, source: str | None = None) -> list[DocumentRecord]:
        """Every document record (or one source's), by key."""
        stmt = select(_DOCS).order_by(_DOCS.c.path)
        if source is not None:
            stmt = stmt.where(_DOCS.c.source == source)
        with _guard("read the document list"), self._engine.connect() as conn:
            rows = conn.execute(stmt).mappings()
            return [
                DocumentRecord(
                    path=r["path"],
                    sha256=r["sha256"],
                    restricted=r["restricted"],
                    ingested_at=r["ingested_at"],
                    n_chunks=r["n_chunks"],
                    source=r["source"],
                )
                for r in rows
            ]

    def restricted_documents(self, docs: Sequence[str]) -> set[str]:
        """Which of these document keys are RESTRICTED now (unknown keys are not)."""
        unique = list(dict.fromkeys(docs))
        found: set[str] = set()
        with _guard("read the document list"), self._engine.connect() as conn:
            for start in range(0, len(unique), _IN_BATCH):
                batch = unique[start : start + _IN_BATCH]
                stmt = select(_DOCS.c.path).where(_DOCS.c.path.in_(batch), _DOCS.c.restricted)
                found.update(conn.execute(stmt).scalars())
        return found

    # -- the registry of sources (undeclared folders keep a namespace of their own) ---------

    def sources(self) -> list[DocumentSource]:
        with _guard("read the document sources"), self._engine.connect() as conn:
            rows = conn.execute(select(_SOURCES).order_by(_SOURCES.c.name)).mappings()
            return [
                DocumentSource(r["name"], Path(r["root"]), r["restricted"], r["declared"])
                for r in rows
            ]

    def save_source(self, source: DocumentSource) -> None:
        """Record (or update) a source's folder and classification."""
        values = {
            "name": source.name,
            "root": str(source.root),
            "restricted": source.restricted,
            "declared": source.declared,
            "updated_at": utcnow(),
        }
        with _guard(f"record the source {source.name}"), self._engine.begin() as conn:
            conn.execute(self._upsert_source, values)
            bump_kb_version(conn, DOCUMENTS)  # a classification may have changed with it

    def replace_document(
        self,
        record: DocumentRecord,
        chunks: Sequence[Chunk],
        tokens: Sequence[StoredTokens] | None = None,
    ) -> None:
        """Swap a file's record and all its chunks in one transaction; `tokens` (one per chunk,
        `ChunkTokenizer.stored`) are kept with them for the lexical index."""
        if any(c.doc != record.path for c in chunks):
            raise ValueError(f"every chunk must belong to {record.path!r}")
        if tokens is not None and len(tokens) != len(chunks):
            raise ValueError(f"{len(tokens)} token rows for {len(chunks)} chunks")
        rows = [_to_row(c, ordinal) for ordinal, c in enumerate(chunks)]
        for row, stored in zip(rows, tokens or (), strict=False):
            row["tokens"], row["tokens_key"] = stored.text, stored.key
        with _guard(f"store {record.path}"), self._engine.begin() as conn:
            conn.execute(delete(_CHUNKS).where(_CHUNKS.c.doc == record.path))
            conn.execute(delete(_DOCS).where(_DOCS.c.path == record.path))
            conn.execute(
                insert(_DOCS).values(
                    path=record.path,
                    source=record.source,
                    sha256=record.sha256,
                    restricted=record.restricted,
                    ingested_at=record.ingested_at,
                    n_chunks=len(chunks),
                )
            )
            if rows:
                conn.execute(insert(_CHUNKS), rows)
            bump_kb_version(conn, DOCUMENTS)

    def reclassify(self, doc: str, restricted: bool) -> None:
        """Change a document's classification in place. Its content hash is forgotten, so the
        next ingest of its folder embeds it again (its vectors were dropped by the caller)."""
        with _guard(f"reclassify {doc}"), self._engine.begin() as conn:
            conn.execute(
                update(_DOCS).where(_DOCS.c.path == doc).values(restricted=restricted, sha256="")
            )
            conn.execute(
                update(_CHUNKS).where(_CHUNKS.c.doc == doc).values(restricted=restricted)
            )
            bump_kb_version(conn, DOCUMENTS)

    def delete_document(self, doc: str) -> None:
        with _guard(f"delete {doc}"), self._engine.begin() as conn:
            conn.execute(delete(_CHUNKS).where(_CHUNKS.c.doc == doc))
            conn.execute(delete(_DOCS).where(_DOCS.c.path == doc))
            bump_kb_version(conn, DOCUMENTS)

    def fingerprint(self) -> str:
        """Changes whenever any document is added, replaced or deleted (cheap to poll).

        Lets a long-running process notice that another process re-ingested and rebuild its
        in-memory BM25 index.
        """
        stmt = select(
            func.count(),
            func.coalesce(func.sum(_DOCS.c.n_chunks), 0),
            func.max(_DOCS.c.ingested_at),
        )
        with _guard("read the document list"), self._engine.connect() as conn:
            count, total, latest = conn.execute(stmt).one()
        return f"{count}:{total}:{latest}"


@contextmanager
def _guard(action: str) -> Iterator[None]:
    """Translate database errors into StorageError with the cause chained."""
    try:
        yield
    except SQLAlchemyError as exc:
        raise StorageError(f"cannot {action}: {exc.__class__.__name__}") from exc


def _to_row(chunk: Chunk, ordinal: int) -> dict[str, Any]:
    return {
        "id": chunk.id,
        "doc": chunk.doc,
        "ordinal": ordinal,
        "locator": chunk.locator,
        "text": chunk.text,
        "restricted": chunk.restricted,
        "metadata": dict(chunk.metadata),
        "tokens": None,
        "tokens_key": None,
    }


def _to_chunk(row: Any) -> Chunk:
    return Chunk(
        id=row["id"],
        doc=row["doc"],
        locator=row["locator"],
        text=row["text"],
        restricted=bool(row["restricted"]),
        metadata=dict(row["metadata"] or {}),
    )
