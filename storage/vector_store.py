"""Chunk embeddings in Chroma: embedded on disk by default, a Chroma server by URL.

Three promises on top of chromadb:
- Chroma never embeds anything itself. Its default embedding function downloads a model at
  run time; the collection gets one that raises instead, and vectors are always passed in.
- One embedding model per collection. Its name and dimension are recorded in the collection
  metadata; opening it with another embedder raises `EmbedderMismatchError` naming both and
  the command that rebuilds the index, instead of silently comparing incompatible vectors.
- chromadb errors become `core.contracts.errors.StorageError`, with the original chained.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import numpy as np

from core.contracts.errors import EmbedderMismatchError, RicordaError, StorageError
from core.contracts.ports import Chunk

logger = logging.getLogger(__name__)

DEFAULT_COLLECTION = "ricorda_chunks"
REINDEX_COMMAND = "ricorda ingest --reindex DIR"


def _no_embedding_function() -> Any:
    """A chromadb embedding function that refuses to run (built lazily: chromadb is heavy)."""
    from chromadb.api.types import Documents, EmbeddingFunction, Embeddings

    class ExplicitEmbeddingsOnly(EmbeddingFunction[Documents]):
        def __init__(self) -> None:
            pass

        def __call__(self, input: Documents) -> Embeddings:
            raise StorageError(
                "Chroma was asked to embed text itself; ricorda always passes embeddings."
            )

        @staticmethod
        def name() -> str:
            return "ricorda-explicit-embeddings"

        def get_config(self) -> dict[str, Any]:
            return {}

        @staticmethod
        def build_from_config(config: dict[str, Any]) -> ExplicitEmbeddingsOnly:
            return ExplicitEmbeddingsOnly()

        def default_space(self) -> Any:
            return "cosine"

    return ExplicitEmbeddingsOnly()


@contextmanager
def _translated(action: str) -> Iterator[None]:
    try:
        yield
    except RicordaError:
        raise
    except Exception as exc:  # chromadb raises ValueError, ChromaError, httpx errors, ...
        raise StorageError(f"The vector store failed to {action}: {exc}") from exc


def _where_clause(where: dict[str, Any] | None) -> dict[str, Any] | None:
    """Chroma's filter syntax from a flat {key: value} dict (lists mean "any of").

    Chroma needs an explicit `$and` for several keys; a dict already using operators
    (`$and`, `$or`) is passed through unchanged.
    """
    if not where:
        return None
    if any(key.startswith("$") for key in where):
        return where
    terms = [
        {key: {"$in": list(value)}} if isinstance(value, list | tuple | set) else {key: value}
        for key, value in where.items()
    ]
    return terms[0] if len(terms) == 1 else {"$and": terms}


def _chunk_metadata(chunk: Chunk) -> dict[str, str | bool]:
    meta: dict[str, str | bool] = {str(k): str(v) for k, v in chunk.metadata.items()}
    meta.update(doc=chunk.doc, locator=chunk.locator, restricted=bool(chunk.restricted))
    return meta


class ChromaVectorIndex:
    """`core.contracts.ports.VectorIndex` over one Chroma collection, cosine space.

    `url` (e.g. RICORDA_CHROMA_URL="http://chroma:8000") selects a Chroma server, otherwise the
    collection lives in `data_dir/chroma`. `recreate=True` drops any existing collection first
    (what `ingest --reindex` does after an embedder change).
    """

    def __init__(
        self,
        *,
        embedder_name: str,
        dimension: int,
        data_dir: str | Path | None = None,
        url: str | None = None,
        collection: str = DEFAULT_COLLECTION,
        recreate: bool = False,
    ) -> None:
        if (data_dir is None) == (url is None):
            raise ValueError("give exactly one of data_dir (embedded Chroma) or url (a server)")
        self.embedder_name = embedder_name
        self.dimension = dimension
        self._name = collection
        self._where = url or str(Path(data_dir or ".") / "chroma")
        self._client = self._connect(data_dir, url)
        with _translated("open its collection"):
            if recreate:
                self._drop()
            self._collection = self._get_or_create()
            self._check_embedder()
            self._max_batch = max(1, int(self._client.get_max_batch_size()))

    # --- setup ---------------------------------------------------------------------------

    @staticmethod
    def _connect(data_dir: str | Path | None, url: str | None) -> Any:
        try:
            import chromadb
            from chromadb.config import Settings
        except ImportError as exc:
            raise StorageError("The vector store needs the package chromadb.") from exc
        settings = Settings(anonymized_telemetry=False)
        if url is not None:
            parsed = urlparse(url if "://" in url else f"http://{url}")
            https = parsed.scheme == "https"
            with _translated(f"connect to the Chroma server at {url}"):
                return chromadb.HttpClient(
                    host=parsed.hostname or "localhost",
                    port=parsed.port or (443 if https else 8000),
                    ssl=https,
                    settings=settings,
                )
        path = Path(data_dir or ".") / "chroma"
        with _translated(f"open {path}"):
            path.mkdir(parents=True, exist_ok=True)
            return chromadb.PersistentClient(path=str(path), settings=settings)

    def _get_or_create(self) -> Any:
        return self._client.get_or_create_collection(
            self._name,
            metadata={"embedder": self.embedder_name, "dimension": self.dimension},
            configuration={"hnsw": {"space": "cosine"}},
            embedding_function=_no_embedding_function(),
        )

    def _drop(self) -> None:
        existing = {getattr(c, "name", c) for c in self._client.list_collections()}
        if self._name in existing:
            self._client.delete_collection(self._name)

    def _check_embedder(self) -> None:
        meta = self._collection.metadata or {}
        built_with = (meta.get("embedder"), meta.get("dimension"))
        if built_with == (self.embedder_name, self.dimension):
            return
        if self._collection.count() == 0:  # nothing indexed yet: just adopt the new embedder
            self._drop()
            self._collection = self._get_or_create()
            return
        raise EmbedderMismatchError(
            f"The document index at {self._where} was built with the embedder "
            f"'{built_with[0]}' ({built_with[1]} dimensions) but the configured embedder is "
            f"'{self.embedder_name}' ({self.dimension} dimensions). Re-index the documents with "
            f"`{REINDEX_COMMAND}`, or configure the embedder '{built_with[0]}' again."
        )

    # --- VectorIndex -------------------------------------------------------------------

    def upsert(self, chunks: Sequence[Chunk], embeddings: np.ndarray) -> None:
        vectors = np.asarray(embeddings, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape != (len(chunks), self.dimension):
            raise StorageError(
                f"Expected {len(chunks)} embeddings of dimension {self.dimension} from "
                f"'{self.embedder_name}', got an array of shape {vectors.shape}."
            )
        with _translated(f"store {len(chunks)} chunk embeddings"):
            for start in range(0, len(chunks), self._max_batch):
                part = chunks[start : start + self._max_batch]
                self._collection.upsert(
                    ids=[c.id for c in part],
                    embeddings=vectors[start : start + len(part)],
                    metadatas=[_chunk_metadata(c) for c in part],
                )

    def delete_doc(self, doc: str) -> None:
        with _translated(f"delete the chunks of {doc}"):
            self._collection.delete(where={"doc": doc})

    def query(
        self, embedding: np.ndarray, k: int, where: dict[str, Any] | None = None
    ) -> list[tuple[str, float]]:
        """(chunk id, cosine similarity) best first, ties broken by id."""
        return self.query_many(np.asarray(embedding).reshape(1, -1), k, where)[0]

    def query_many(
        self, embeddings: np.ndarray, k: int, where: dict[str, Any] | None = None
    ) -> list[list[tuple[str, float]]]:
        """`query` for each row of `embeddings` in one Chroma call: a retrieval's rewritten
        queries cost one round trip to a Chroma server, not one each."""
        vectors = np.asarray(embeddings, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[1] != self.dimension:
            raise StorageError(
                f"Query embeddings have shape {vectors.shape}, the index {self.dimension} "
                "dimensions."
            )
        if k <= 0 or not len(vectors):
            return [[] for _ in range(len(vectors))]
        with _translated("search the document index"):
            # chromadb 1.x caps n_results at what matches (and answers [] when empty)
            result = self._collection.query(
                query_embeddings=vectors,
                n_results=k,
                where=_where_clause(where),
                include=["distances"],
            )
        out = []
        for ids, distances in zip(result["ids"], result["distances"], strict=True):
            pairs = [(cid, 1.0 - float(d)) for cid, d in zip(ids, distances, strict=True)]
            out.append(sorted(pairs, key=lambda p: (-p[1], p[0])))
        return out

    # --- maintenance ---------------------------------------------------------------------

    def count(self) -> int:
        with _translated("count the indexed chunks"):
            return int(self._collection.count())

    def reset(self) -> None:
        """Drop every vector and record the configured embedder afresh."""
        with _translated("reset the document index"):
            self._drop()
            self._collection = self._get_or_create()
