"""Keeps a serving process's BM25 index current, document by document.

Why: rebuilding the index after every ingest re-reads and re-indexes every chunk. At a million
chunks that is minutes of CPU and a second copy of the index in memory, on every replica, for a
one-file change (docs/scale.md). Instead the document list (path, content hash, ingest time,
classification) is compared with the one the index was built from; only documents that were
added, re-ingested, reclassified or deleted are read and re-indexed (`Bm25Index.updated`).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence
from typing import Protocol

from core.contracts.documents import Signature
from core.contracts.ports import Chunk, IndexedChunk
from core.documents.chunk_tokens import ChunkTokenizer
from core.documents.lexical import Bm25Index, Tokenizer

log = logging.getLogger("ricorda.lexical")

_READ_DOCS = 2000  # documents per read while building: the whole corpus is never in memory


class DocumentRow(Protocol):
    path: str
    sha256: str
    restricted: bool
    ingested_at: dt.datetime
    n_chunks: int


class IndexedChunks(Protocol):
    """What the sync reads: the document list and the chunks of some documents. A store that
    also has `indexed_chunks` (storage.chunk_store) is read through it: the chunks with the
    tokens stored at ingest, so they are not tokenised again."""

    def documents(self) -> Sequence[DocumentRow]: ...

    def chunks_of(self, docs: Sequence[str]) -> list[Chunk]: ...


class Snapshots(Protocol):
    """Where the index is kept between runs (storage.lexical_snapshot)."""

    def save(
        self, index: Bm25Index, words: tuple[str, ...], seen: dict[str, Signature]
    ) -> None: ...

    def load(self, words: tuple[str, ...]) -> tuple[Bm25Index, dict[str, Signature]] | None: ...


class LexicalSync:
    """The BM25 index for the documents as they are now, updated rather than rebuilt.

    `words` are the glossary names the tokenizer keeps whole; when they change the tokens
    change, and the next `current` builds afresh. `last_read` is how many chunk rows the last
    call read (the whole corpus on a build, the changed documents' after an ingest);
    `tokenised` how many of all the chunks read had no usable stored tokens, so their text was
    tokenised (chunks ingested before tokens were stored, or under another glossary)."""

    def __init__(self, snapshots: Snapshots | None = None) -> None:
        """`snapshots`: where the index is kept between runs; None: in memory only."""
        self._snapshots = snapshots
        self._index: Bm25Index | None = None
        self._words: tuple[str, ...] | None = None
        self._seen: dict[str, Signature] = {}
        self._unsaved = 0  # chunk rows indexed since the snapshot was written
        self._tokens: ChunkTokenizer | None = None
        self.last_read = 0
        self.tokenised = 0

    def current(self, store: IndexedChunks, words: tuple[str, ...]) -> Bm25Index | None:
        """The index for what `store` holds now; None when it holds no chunk."""
        # the list is read before the chunks: a document changed in between reads as changed
        # next time, so nothing is missed (at worst read twice)
        signature = {r.path: (r.sha256, r.restricted, r.ingested_at, r.n_chunks)
                     for r in store.documents()}  # fmt: skip
        if (self._index is None or self._words != words) and self._snapshots is not None:
            loaded = self._snapshots.load(words)
            if loaded is not None:
                self._index, self._seen = loaded
                self._words = words
        if self._index is None or self._words != words:
            self._index = self._build(store, list(signature), words)
            self._words = words
            self._unsaved = self._index.rows
        else:
            changed = [p for p, sig in signature.items() if self._seen.get(p) != sig]
            removed = [p for p in self._seen if p not in signature]
            self.last_read = 0
            if changed or removed:
                added, corpus = self._read(store, changed, self._tokenizer(self._index, words))
                self.last_read = len(added)
                self._index = self._index.updated(removed + changed, added, corpus)
                self._unsaved += len(added) + len(removed)
        self._seen = signature
        self._save_if_due()
        return self._index if len(self._index) else None

    def _save_if_due(self) -> None:
        """Write the snapshot after a build, and after updates worth a tenth of the index
        (until then a restart reads those documents again, which is cheap)."""
        if self._snapshots is None or self._index is None or self._words is None:
            return
        if self._unsaved == 0 or self._unsaved * 10 < max(self._index.rows, 1):
            return
        try:
            self._snapshots.save(self._index, self._words, self._seen)
            self._unsaved = 0
        except OSError as exc:  # a full disk costs the next start its time, not an answer
            log.warning("could not save the lexical index: %s", exc)

    def _tokenizer(self, index: Bm25Index, words: tuple[str, ...]) -> ChunkTokenizer:
        """Stored tokens are judged, and missing ones made, with the index's own tokenizer
        (one jieba dictionary per index)."""
        if self._tokens is None or self._tokens.tokenizer is not index.tokenizer:
            self._tokens = ChunkTokenizer(words, index.tokenizer)
        return self._tokens

    def _rows(
        self, store: IndexedChunks, docs: Sequence[str], tokens: ChunkTokenizer
    ) -> Sequence[IndexedChunk]:
        """The chunks of `docs` with their stored tokens; the text only of those whose tokens
        do not fit (`tokens.usable`): only they are tokenised."""
        reader = getattr(store, "indexed_chunks", None)
        if reader is not None:
            return reader(docs, tokens.usable)  # type: ignore[no-any-return]
        return [IndexedChunk(c) for c in store.chunks_of(docs)]

    def _read(
        self, store: IndexedChunks, docs: Sequence[str], tokens: ChunkTokenizer
    ) -> tuple[list[Chunk], list[dict[str, int]]]:
        """The chunks of `docs` and their term counts: stored ones where they fit."""
        rows = self._rows(store, docs, tokens)
        before = tokens.tokenised
        counts = tokens.counts(rows)
        self.tokenised += tokens.tokenised - before
        return [r.chunk for r in rows], counts

    def _build(self, store: IndexedChunks, docs: list[str], words: tuple[str, ...]) -> Bm25Index:
        index = Bm25Index((), Tokenizer(words))
        tokens = self._tokenizer(index, words)
        self.last_read = 0
        for start in range(0, len(docs), _READ_DOCS):
            rows = self._rows(store, docs[start : start + _READ_DOCS], tokens)
            self.last_read += len(rows)
            before = tokens.tokenised
            flat = tokens.flat(rows)
            self.tokenised += tokens.tokenised - before
            index._append_flat([r.chunk for r in rows], flat)  # not shared yet: in place
        return index
