"""The Protocols core needs from the outside world, declared once.

Implementations live in `storage/` (databases, vector collections) and `bot/` (model
providers). Core code depends only on these shapes, so every part can be swapped for a fake in
tests and for another engine in production. Every store core uses is declared here, with the
records it traffics in from this package only; some modules that use a port re-export it under
its old name (`core.fastpath.autopath.AutopathStore` ...). The stores the bot learns in (the
plan caches, the nightly maintenance and promotion) are core.contracts.learning_ports. What a
chat adapter is handed (the turn/message map, the delivery log, the inbox) is declared beside
the chat services in `core/chat/chat_ports.py`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np

    from core.contracts.documents import DocumentRecord
    from core.contracts.types import Fact, Period


# --- facts -------------------------------------------------------------------------------


class FactStore(Protocol):
    """Exact lookups on the fact table: the only place numbers come from."""

    def lookup(self, metric: str, entity: str, period: Period, channel: str) -> Fact | None: ...

    def periods(self, metric: str, entity: str, channel: str) -> list[Period]:
        """Periods that have a fact for this metric/entity/channel, newest first."""
        ...


# --- turns and feedback ------------------------------------------------------------------


@dataclass
class TurnRecord:
    """Everything remembered about one answered request."""

    id: str
    chat: str
    user: str
    question: str
    language: str
    route: str
    served_by: str
    plan: dict[str, Any]
    answer_text: str
    options: list[dict[str, str]]
    fixed_slots: dict[str, str]
    latency_ms: float
    reference_date: str | None = None
    parent_turn: str | None = None
    answer: dict[str, Any] = field(default_factory=dict)
    restricted: bool = False  # asked from a chat cleared for RESTRICTED data (at that time)


class TurnStore(Protocol):
    def record_turn(self, turn: TurnRecord) -> None: ...

    def get_turn(self, turn_id: str) -> TurnRecord | None: ...


# --- documents and retrieval -------------------------------------------------------------


@dataclass(frozen=True)
class Chunk:
    """A piece of a document small enough to quote, with where it came from."""

    id: str
    doc: str  # document key: "source/china/2025_review.pdf" (core.knowledge.document_sources)
    locator: str  # "page=3", "slide=2", "section=China", "para=4"
    text: str
    restricted: bool = False
    metadata: dict[str, str] = field(
        default_factory=dict
    )  # e.g. {"entity": "ORBIS_CN", "year": "2025"}


class StoredTokens(NamedTuple):
    """What is stored with a chunk: its encoded term counts and the key they were made under."""

    text: str
    key: str


class IndexedChunk(NamedTuple):
    """A chunk as the lexical index reads it: the chunk and its stored tokens (None: none)."""

    chunk: Chunk
    tokens: str | None = None
    key: str | None = None


@dataclass(frozen=True)
class ScoredChunk:
    chunk: Chunk
    score: float
    # The chunk's best cosine with any query variant; for a chunk found lexically only, the
    # cosine every chunk outside the vector lists is below (an upper bound), or None when the
    # vector channel did not answer. core.documents.passage_pick compares it with the relevance
    # floor.
    similarity: float | None = None


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised vectors. Each embedder knows its own cosine thresholds."""

    name: str
    dimension: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Shape (len(texts), dimension), float32, rows of unit length."""
        ...


class VectorIndex(Protocol):
    """Nearest-neighbour search over chunk embeddings (Chroma in production)."""

    def upsert(self, chunks: Sequence[Chunk], embeddings: np.ndarray) -> None: ...

    def delete_doc(self, doc: str) -> None: ...

    def query(
        self, embedding: np.ndarray, k: int, where: dict[str, Any] | None = None
    ) -> list[tuple[str, float]]:
        """(chunk id, cosine similarity) best first."""
        ...

    def query_many(
        self, embeddings: np.ndarray, k: int, where: dict[str, Any] | None = None
    ) -> list[list[tuple[str, float]]]:
        """`query` for each row of `embeddings`, in one request (a retrieval's five rewritten
        queries: one round trip to a Chroma server instead of five)."""
        ...


class ChunkStore(Protocol):
    """The database record of ingested documents and their chunks (source of truth)."""

    def all_chunks(self) -> Iterable[Chunk]: ...

    def get_chunks(self, ids: Sequence[str]) -> list[Chunk]: ...


@dataclass(frozen=True)
class ChatMessage:
    role: str  # "system" | "user" | "assistant"
    content: str


class LLM(Protocol):
    """A chat model. Any failure raises `core.contracts.errors.ModelError`; callers degrade
    honestly."""

    name: str

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        json_schema: dict[str, Any] | None = None,
        timeout: float | None = None,
    ) -> str: ...


# --- turns and feedback, as feedback and admin read them ---------------------------------


class FeedbackTurns(Protocol):
    def get_turn(self, turn_id: str) -> TurnRecord | None: ...

    def set_feedback(self, turn_id: str, user: str, verdict: str, via: str) -> str | None: ...

    def withdraw_feedback(self, turn_id: str, user: str) -> str | None: ...


class RecentTurns(Protocol):
    def recent_turns(self, n: int, *, chat: str | None = None) -> list[Any]: ...


# --- documents, as ingestion keeps them --------------------------------------------------


class DocumentCatalog(ChunkStore, Protocol):
    """A chunk store that also keeps the per-file records needed to re-ingest incrementally."""

    def documents(self, source: str | None = None) -> list[DocumentRecord]:
        """Every record, or those of one source."""
        ...

    def replace_document(
        self,
        record: DocumentRecord,
        chunks: Sequence[Chunk],
        tokens: Sequence[StoredTokens] | None = None,
    ) -> None:
        """Atomically replace every chunk of `record.path` and its record; `tokens`: each
        chunk's BM25 tokens, kept with it (core.documents.chunk_tokens)."""
        ...

    def delete_document(self, doc: str) -> None: ...


# --- knowledge-base versions -------------------------------------------------------------


class KbVersions(Protocol):
    """Where the knowledge-base versions live (implemented by storage.kb_version)."""

    def read(self) -> Mapping[str, int]:
        """{part: version}; an absent part reads as 0."""
        ...


# --- conversations -----------------------------------------------------------------------


@dataclass(frozen=True)
class ConversationContext:
    """The slots of the last answered request of one conversation, as codes: what a follow-up
    ("and Italy?") inherits. `at` is when it was answered (timezone-aware): it expires."""

    metrics: tuple[str, ...]
    entities: tuple[str, ...]
    periods: tuple[str, ...]  # period codes: FY2024, 2025H1, 2025Q3, 2025-03
    channels: tuple[str, ...]
    route: str
    at: dt.datetime
    table: str = ""  # the table it was answered with (table_shape.Analysis.shape), or ""
    language: str = ""  # the language it was answered in: a question saying none uses it

    def to_dict(self) -> dict[str, Any]:
        return {"metrics": list(self.metrics), "entities": list(self.entities),
                "periods": list(self.periods), "channels": list(self.channels),
                "route": self.route, "table": self.table, "language": self.language}


class ConversationStore(Protocol):
    """One context per (chat, conversation key), shared by every replica: a follow-up that
    reaches another process, or a second `ricorda ask --chat`, continues the conversation."""

    def load(self, chat: str, conversation: str) -> ConversationContext | None: ...

    def save(self, chat: str, conversation: str, context: ConversationContext) -> None: ...
