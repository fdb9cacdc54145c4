"""The records of ingested documents: where they come from and what the database keeps of them.

Shared by ingestion (`core.documents.document_ingest`), the document-source rules
(`core.knowledge.document_sources`, which computes keys and classifications from a source) and
the chunk store (`storage.chunk_store`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

DEFAULT_SOURCE = "default"

Signature = tuple[str, bool, dt.datetime, int]
"""What the BM25 index remembers of one document: sha256, restricted, ingested_at, n_chunks."""


@dataclass(frozen=True)
class DocumentSource:
    """A folder of documents with a stable name and a classification."""

    name: str
    root: Path  # resolved, absolute
    restricted: bool = False
    declared: bool = True  # False: a folder ingested while no source was declared


@dataclass(frozen=True)
class DocumentRecord:
    """What the database remembers about one ingested file."""

    path: str  # the document key: "source/china/2025_review.pdf" (plain path in "default")
    sha256: str
    restricted: bool
    ingested_at: dt.datetime
    n_chunks: int
    source: str = DEFAULT_SOURCE

