"""Tables for ingested documents and their chunks: the source of truth for the narrative channel.

The vector index and the in-memory BM25 index are both rebuilt from these rows, so they hold
everything a citation needs (file, locator, text) and the RESTRICTED flag on every chunk.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, Column, Index, Text, inspect, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Field, SQLModel

from storage.tables import UtcDateTime, utcnow


class DocumentRow(SQLModel, table=True):
    """One ingested file; `sha256` of its bytes lets an unchanged file be skipped."""

    __tablename__ = "documents"

    # the document key (core.document_sources): "source/dir/file.md", a plain path in "default"
    path: str = Field(primary_key=True)
    source: str = Field(default="default", index=True)
    sha256: str
    restricted: bool = False
    ingested_at: dt.datetime = Field(
        default_factory=utcnow, sa_column=Column(UtcDateTime, nullable=False)
    )
    n_chunks: int = 0


class DocumentSourceRow(SQLModel, table=True):
    """A folder ingested as a source: declared ones from the glossary, and undeclared folders
    (named on the command line while nothing was declared) so each keeps its own namespace."""

    __tablename__ = "document_sources"

    name: str = Field(primary_key=True)
    root: str = Field(sa_column=Column(Text, nullable=False))  # resolved absolute folder
    restricted: bool = False
    declared: bool = False
    updated_at: dt.datetime = Field(
        default_factory=utcnow, sa_column=Column(UtcDateTime, nullable=False)
    )


def adopt_legacy_documents(engine: Engine) -> int:
    """Give a `documents` table made before sources existed its `source` column.

    Its rows become documents of the `default` source with their keys unchanged (so chunk ids
    and vectors stay valid). Returns how many documents were adopted (0 when nothing to do).
    Safe when two processes race: the loser sees the column and adopts nothing.
    """
    columns = {c["name"] for c in inspect(engine).get_columns("documents")}
    if "source" in columns:
        # migration 0002 added the column: documents still in `default` while no source of
        # that name was ever recorded are the adopted ones (until an ingest records it)
        with engine.connect() as conn:
            return int(
                conn.execute(
                    text(
                        "SELECT count(*) FROM documents WHERE source = 'default' AND NOT EXISTS "
                        "(SELECT 1 FROM document_sources WHERE name = 'default')"
                    )
                ).scalar_one()
            )
    try:
        with engine.begin() as conn:
            conn.execute(
                text("ALTER TABLE documents ADD COLUMN source VARCHAR NOT NULL DEFAULT 'default'")
            )
            conn.execute(
                text("CREATE INDEX IF NOT EXISTS ix_documents_source ON documents (source)")
            )
            return int(conn.execute(text("SELECT count(*) FROM documents")).scalar_one())
    except SQLAlchemyError:
        columns = {c["name"] for c in inspect(engine).get_columns("documents")}
        if "source" in columns:
            return 0  # another process adopted them first
        raise


class ChunkRow(SQLModel, table=True):
    """One quotable piece of a document. `meta` is stored in the `metadata` column."""

    __tablename__ = "chunks"
    __table_args__ = (Index("ix_chunks_doc_ordinal", "doc", "ordinal"),)

    id: str = Field(primary_key=True)
    doc: str = Field(foreign_key="documents.path", ondelete="CASCADE")
    ordinal: int  # position in the document, for reading order
    locator: str
    text: str = Field(sa_column=Column(Text, nullable=False))
    restricted: bool = Field(default=False, index=True)
    meta: dict[str, Any] = Field(
        default_factory=dict, sa_column=Column("metadata", JSON, nullable=False)
    )
