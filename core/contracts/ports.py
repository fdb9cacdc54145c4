"""The Protocols core needs from the outside world, declared once.

Implementations live in `storage/` (databases, vector collections) and `bot/` (model
providers). Core code depends only on these shapes, so every part can be swapped for a fake in
tests and for another engine in production. Every store core uses is declared here, with the
records it traffics in from this package only; some modules that use a port re-export it under
its old name (`core.fastpath.autopath.AutopathStore` ...). What a chat adapter is handed (the
turn/message map, the delivery log, the inbox) is declared beside the chat services in
`core/chat/chat_ports.py`.
"""

from __future__ import annotations

import builtins
import datetime as dt
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np

    from core.contracts.autopaths import AntiView, AutopathView, Observation
    from core.contracts.composites import CompositeSpec
    from core.contracts.documents import DocumentRecord
    from core.contracts.fastpath import FastpathEntry
    from core.contracts.maintenance import AutopathSummary, EntrySummary, Provenance, Removal
    from core.contracts.promotion import ExecutorView, ProposalView
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


# --- the plan cache (L0) -----------------------------------------------------------------


class FastpathStore(Protocol):
    """Storage of L0 entries; the database is the source of truth (see storage.fastpath_store)."""

    def upsert(self, entry: FastpathEntry) -> FastpathEntry:
        """Insert, or overwrite the entry with the same `canonical_hash` (last writer wins);
        returns the stored entry (which keeps the existing row's id, created_at and n_uses)."""
        ...

    def by_hash(self, canonical_hash: str) -> FastpathEntry | None: ...

    def by_id(self, entry_id: str) -> FastpathEntry | None: ...

    def touch(self, entry_id: str, now: dt.datetime | None = None) -> bool:
        """Count one use (n_uses + 1, last_used_at = now); False when the entry is gone."""
        ...

    def delete(self, entry_id: str) -> bool: ...

    def delete_by_hash(self, canonical_hash: str) -> bool: ...

    def purge_all(self) -> int: ...

    def count(self) -> int: ...

    def list(self, limit: int = 20, offset: int = 0) -> builtins.list[FastpathEntry]:
        """Most used first; ties by most recently used, then id."""
        ...

    def iter_all(self) -> Iterator[FastpathEntry]: ...

    def nearest(
        self, embedding: np.ndarray, *, embedder: str, k: int = 1
    ) -> builtins.list[tuple[FastpathEntry, float]]:
        """Best cosine first, among entries that are not query-specific and were embedded by
        `embedder`; every entry returned still exists in the database."""
        ...


# --- autopaths (L1) ----------------------------------------------------------------------


class AutopathTransaction(Protocol):
    """Reads and writes inside one database transaction (rows read here are locked)."""

    def observation(self, turn_id: str) -> Observation | None: ...

    def set_verdict_counts(self, turn_id: str, *, positives: int, negatives: int) -> None: ...

    def autopath(self, cluster_id: str, framework_hash: str) -> AutopathView | None: ...

    def autopath_by_id(self, autopath_id: int) -> AutopathView | None: ...

    def save_autopath(self, autopath: AutopathView) -> AutopathView:
        """Insert (id None, returns it with its id) or update by id."""
        ...

    def antis(self, intent_hash: str, framework_hash: str) -> list[AntiView]: ...

    def save_anti(self, anti: AntiView) -> None:
        """Insert or replace the row of (cluster, intent hash, framework hash)."""
        ...

    def delete_anti(self, cluster_id: str, intent_hash: str, framework_hash: str) -> None: ...

    def other_verdicts(
        self,
        user: str,
        verdict: str,
        turn_id: str,
        *,
        framework_hash: str,
        cluster_id: str | None = None,
        intent_hash: str | None = None,
    ) -> int:
        """How many other observed turns with this framework (and cluster, or intent hash)
        carry `user`'s `verdict`."""
        ...


class AutopathStore(Protocol):
    """Where observations, autopaths and anti-autopaths live (storage.autopath_store)."""

    def add_observation(self, observation: Observation) -> bool:
        """Store it; False (and no change) when that turn was already observed."""
        ...

    def recent_embeddings(self, per_cluster: int) -> list[tuple[str, np.ndarray]]:
        """(cluster id, embedding) of the newest `per_cluster` observations of each cluster,
        oldest first."""
        ...

    def intent_clusters(self) -> list[tuple[str, str]]:
        """Every distinct (intent hash, cluster id) observed."""
        ...

    def cluster_state(self, cluster_id: str) -> tuple[list[AutopathView], list[AntiView]]: ...

    def autopaths(self) -> list[AutopathView]: ...

    def anti_autopaths(self) -> list[AntiView]: ...

    def purge_plans(self) -> tuple[int, int]:
        """Delete every autopath and observation (anti-autopaths stay): (autopaths, obs)."""
        ...

    def transaction(self) -> AbstractContextManager[AutopathTransaction]: ...


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


# --- nightly maintenance and promotion ---------------------------------------------------


class MaintenanceStore(Protocol):
    def scan_fastpaths(self) -> Iterable[EntrySummary]: ...

    def scan_autopaths(self) -> Iterable[AutopathSummary]: ...

    def remove(self, removals: list[Removal], *, run_id: str, at: dt.datetime) -> list[Removal]:
        """Remove and log in the same transactions; an L0 entry rewritten or used since it was
        read is kept. Inherited uses are added to the heir executor. Returns what was removed."""
        ...

    def night_done(self, night: str) -> bool: ...

    def mark_night(
        self, night: str, *, run_id: str, at: dt.datetime, summary: dict[str, Any]
    ) -> bool:
        """Record the night as done; False when another replica recorded it first."""
        ...


class RunLock(Protocol):
    def hold(self) -> AbstractContextManager[bool]:
        """True inside when this process holds the lock, False when another one does."""
        ...


class PromotionStore(Protocol):
    """Proposals, composite executors and provenance (storage.promotion_store)."""

    def proposal_for(self, framework_hash: str, intent: str) -> ProposalView | None: ...

    def proposal(self, proposal_id: int) -> ProposalView | None: ...

    def proposals(self, status: str | None = None) -> list[ProposalView]: ...

    def add_proposal(self, proposal: ProposalView) -> ProposalView: ...

    def update_proposal(self, proposal: ProposalView) -> None:
        """Refresh a pending proposal's members, counts and nights (by id)."""
        ...

    def group_members(self, framework_hash: str, intent: str) -> list[tuple[str, str]]:
        """(id, canonical hash) of the L0 entries of that group now (not query-specific)."""
        ...

    def approve(
        self, proposal_id: int, spec: CompositeSpec, members: list[tuple[str, str]], *,
        by: str, at: dt.datetime, night: str,
    ) -> bool:
        """In one transaction: the executor row, its provenance, the proposal decided.
        False (and no change) when the proposal is no longer pending."""
        ...

    def reject(self, proposal_id: int, *, by: str, at: dt.datetime, night: str) -> bool: ...

    def executor_named(self, name: str) -> ExecutorView | None: ...

    def executors(self) -> list[ExecutorView]: ...

    def composites(self) -> list[CompositeSpec]:
        """The active composite executors, as the catalog loads them."""
        ...

    def retire(self, name: str, *, by: str, at: dt.datetime) -> bool: ...

    def provenance(self) -> list[Provenance]:
        """Provenance rows of the active executors."""
        ...

    def auto_approved_on(self, night: str) -> bool: ...


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
