"""Tables for ingested documents and their chunks: the source of truth for the narrative channel.

The vector index and the in-memory BM25 index are both rebuilt from these rows, so they hold
everything a citation needs (file, locator, text) and the RESTRICTED flag on every chunk, and
each chunk's BM25 tokens, so a replica's index is built without tokenising the text again.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, Column, Index, Text
from sqlmodel import Field, SQLModel

from storage.columns import UtcDateTime, utcnow
from storage.document_adoption import adopt_legacy_documents

__all__ = ["ChunkRow", "DocumentRow", "DocumentSourceRow", "adopt_legacy_documents"]


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
    # the chunk's BM25 term counts and the key they were made under
    # (core.documents.chunk_tokens); NULL for chunks ingested before they were stored
    tokens: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    tokens_key: str | None = None
