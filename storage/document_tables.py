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

from storage.columns import UtcDateTime, utcnow


class DocumentRow(SQLModel, table=True):
    """One ingested file; `sha256` of its bytes lets an unchanged file be skipped."""

    __tablename__ = "documents"

    # the document key (core.knowledge.document_sources): "source/dir/file.md", a plain path in
    # "default"
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
    """Adopt documents ingested before sources existed into the `default` source, once.

    Their keys stay unchanged (so chunk ids and vectors stay valid). The adoption is recorded as
    a `default` source row with no folder yet (the next undeclared folder ingested claims it),
    so the operator's notice is given once. Returns how many documents were adopted (0 when
    nothing to do). Safe when two processes race: the loser records nothing and returns 0.
    """
    columns = {c["name"] for c in inspect(engine).get_columns("documents")}
    try:
        with engine.begin() as conn:
            if "source" not in columns:  # a table older than migration 0002's column
                conn.execute(
                    text(
                        "ALTER TABLE documents ADD COLUMN source VARCHAR NOT NULL "
                        "DEFAULT 'default'"
                    )
                )
                conn.execute(
                    text("CREATE INDEX IF NOT EXISTS ix_documents_source ON documents (source)")
                )
            adopted = int(
                conn.execute(
                    text(
                        "SELECT count(*) FROM documents WHERE source = 'default' AND NOT EXISTS "
                        "(SELECT 1 FROM document_sources WHERE name = 'default')"
                    )
                ).scalar_one()
            )
            if adopted:
                conn.execute(
                    text(
                        "INSERT INTO document_sources (name, root, restricted, declared, "
                        "updated_at) VALUES ('default', '', false, false, :at)"
                    ),
                    {"at": utcnow()},
                )
            return adopted
    except SQLAlchemyError:
        with engine.connect() as conn:
            recorded = conn.execute(
                text("SELECT 1 FROM document_sources WHERE name = 'default'")
            ).first()
        if recorded is not None:
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
