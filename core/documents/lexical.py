"""The lexical channel: a tokenizer for en/it/zh text and an in-memory BM25 index over chunks.

Chunks are tokenised once when the index is built and kept as an inverted index, so a query
costs only the postings of its own terms (a few ms over 10,000 chunks) instead of a pass over
every chunk in Python.
"""

from __future__ import annotations

import logging
import math
import re
import threading
import unicodedata
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from rank_bm25 import BM25Okapi

if TYPE_CHECKING:
    from core.ports import Chunk

# Han ideographs (incl. extensions and compatibility forms) plus kana: the scripts written
# without spaces, which jieba segments. Everything else goes through the word tokenizer.
_CJK = (
    "\u3040-\u30ff"  # hiragana, katakana
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\U00020000-\U0002ebef"  # CJK extensions B-F
)
_CJK_RUN = re.compile(f"([{_CJK}]+)")
_HAS_CJK = re.compile(f"[{_CJK}]")
_WORD = re.compile(r"\w+")


class Tokenizer:
    """Splits text into index terms: jieba for CJK runs, casefolded words for everything else.

    jieba is imported (and its dictionary loaded, about a second) only the first time text with
    CJK characters is seen, so an English/Italian-only deployment never pays for it. Each
    instance has its own jieba dictionary, so glossary words added here do not leak elsewhere.
    """

    def __init__(self, words: Iterable[str] = ()) -> None:
        self._jieba: Any = None
        self._user_words: list[str] = []
        self._lock = threading.Lock()
        self.add_words(words)

    def add_words(self, words: Iterable[str]) -> None:
        """Keep these names whole when segmenting Chinese (e.g. "中国区" rather than "中国" + "区").

        Only names containing CJK characters matter; others are split into words anyway.
        """
        new = [unicodedata.normalize("NFKC", w).strip() for w in words]
        new = [w for w in new if w and _HAS_CJK.search(w)]
        with self._lock:
            self._user_words.extend(new)
            if self._jieba is not None:
                for word in new:
                    # freq=None: jieba picks the frequency that keeps the word in one piece.
                    self._jieba.add_word(word, freq=None)

    def tokenize(self, text: str) -> list[str]:
        text = unicodedata.normalize("NFKC", text).casefold()
        tokens: list[str] = []
        for i, part in enumerate(_CJK_RUN.split(text)):
            if not part:
                continue
            if i % 2:  # odd parts are the captured CJK runs
                tokens.extend(t for t in self._segmenter().cut_for_search(part) if _WORD.match(t))
            else:
                tokens.extend(_WORD.findall(part))
        return tokens

    def _segmenter(self) -> Any:
        if self._jieba is None:
            with self._lock:
                if self._jieba is None:
                    import jieba

                    logging.getLogger("jieba").setLevel(logging.WARNING)
                    seg = jieba.Tokenizer()
                    seg.initialize()
                    for word in self._user_words:
                        seg.add_word(word, freq=None)
                    self._jieba = seg
        return self._jieba


class TokenMemo:
    """The tokens of every indexed text, kept between rebuilds of the BM25 index, so that after
    a re-ingest only new or changed texts are tokenised (segmenting Chinese is most of a
    rebuild: ~1.4 s of 1.6 s at 10,000 chunks). One memo per tokenizer: glossary names change
    how Chinese is segmented, so `words` (the names the tokenizer was given) tells the owner
    when a changed glossary needs a new memo."""

    def __init__(self, tokenizer: Tokenizer, *, words: tuple[str, ...] = ()) -> None:
        self.tokenizer = tokenizer
        self.words = words
        self._tokens: dict[str, list[str]] = {}

    def corpus(self, chunks: Sequence[Chunk]) -> list[list[str]]:
        """Tokens of each chunk's text, in order; texts no longer indexed are forgotten."""
        known, current = self._tokens, {}
        for chunk in chunks:
            text = chunk.text
            if text not in current:
                current[text] = known[text] if text in known else self.tokenizer.tokenize(text)
        self._tokens = current
        return [current[c.text] for c in chunks]


class _GuardedBM25(BM25Okapi):
    """rank_bm25's BM25Okapi with an IDF that is always positive.

    BM25Okapi uses idf = log((N - n + 0.5) / (n + 0.5)). On a small corpus that is zero for a
    term in exactly half of the documents and negative above half; its fix (replace negatives
    by epsilon x the average idf) leaves the zero alone, and the average itself can be <= 0, so
    a query word present in 1 of 2 documents scores nothing and the right document can rank
    below an unrelated one. We use the BM25+ / Lucene form idf = log(1 + (N - n + 0.5) /
    (n + 0.5)) instead: the same ordering of rare over common terms, but strictly positive, so
    every matching term adds to a document's score.
    """

    def _calc_idf(self, nd: dict[str, int]) -> None:
        n_docs = self.corpus_size
        self.idf = {
            word: math.log(1.0 + (n_docs - freq + 0.5) / (freq + 0.5)) for word, freq in nd.items()
        }
        self.average_idf = sum(self.idf.values()) / len(self.idf) if self.idf else 0.0


class Bm25Index:
    """BM25 over a fixed set of chunks, built once and kept in memory.

    Statistics come from rank_bm25 (with the guarded IDF above); scoring walks an inverted index
    of precomputed per-posting weights, so `search` touches only documents that contain a query
    term. Results are identical to `BM25Okapi.get_scores` with the same IDF.
    """

    def __init__(
        self,
        chunks: Iterable[Chunk],
        tokenizer: Tokenizer,
        *,
        k1: float = 1.5,
        b: float = 0.75,
        corpus: Sequence[list[str]] | None = None,
    ) -> None:
        """`corpus`: the chunks' tokens when already known (TokenMemo), else tokenised here."""
        self.tokenizer = tokenizer
        self.chunks: tuple[Chunk, ...] = tuple(chunks)
        self.ids: tuple[str, ...] = tuple(c.id for c in self.chunks)
        self._position = {cid: i for i, cid in enumerate(self.ids)}
        # Rank of each chunk id in sorted order: the tie-breaker that keeps results stable.
        self._id_rank = np.empty(len(self.ids), dtype=np.int64)
        self._id_rank[sorted(range(len(self.ids)), key=self.ids.__getitem__)] = np.arange(
            len(self.ids)
        )
        self._postings: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self.bm25: _GuardedBM25 | None = None
        if not self.chunks:
            return
        if corpus is None:
            corpus = [tokenizer.tokenize(c.text) for c in self.chunks]
        tokens = list(corpus)
        if not any(tokens):
            return
        self.bm25 = _GuardedBM25(tokens, k1=k1, b=b)
        self._build_postings(self.bm25)

    def __len__(self) -> int:
        return len(self.chunks)

    def chunk(self, chunk_id: str) -> Chunk | None:
        pos = self._position.get(chunk_id)
        return None if pos is None else self.chunks[pos]

    def _build_postings(self, bm25: _GuardedBM25) -> None:
        docs: dict[str, list[int]] = {}
        tfs: dict[str, list[int]] = {}
        for i, freqs in enumerate(bm25.doc_freqs):
            for term, tf in freqs.items():
                docs.setdefault(term, []).append(i)
                tfs.setdefault(term, []).append(tf)
        doc_len = np.asarray(bm25.doc_len, dtype=np.float64)
        norm = bm25.k1 * (1.0 - bm25.b + bm25.b * doc_len / bm25.avgdl)
        for term, rows in docs.items():
            idx = np.asarray(rows, dtype=np.int64)
            tf = np.asarray(tfs[term], dtype=np.float64)
            weight = bm25.idf[term] * tf * (bm25.k1 + 1.0) / (tf + norm[idx])
            self._postings[term] = (idx, weight)

    def scores(self, tokens: Sequence[str]) -> np.ndarray:
        """BM25 score of every chunk for these query tokens (a repeated token counts twice)."""
        out = np.zeros(len(self.chunks), dtype=np.float64)
        for token in tokens:
            posting = self._postings.get(token)
            if posting is not None:
                idx, weight = posting
                out[idx] += weight
        return out

    def search(
        self, tokens: Sequence[str], k: int, *, allowed: np.ndarray | None = None
    ) -> list[tuple[str, float]]:
        """Best `k` (chunk id, score) with a positive score, best first, ties by chunk id.

        `allowed` is a boolean mask over the index rows; rows outside it are never returned.
        """
        if k <= 0 or not self._postings:
            return []
        scores = self.scores(tokens)
        if allowed is not None:
            scores[~allowed] = 0.0
        hits = np.flatnonzero(scores > 0.0)
        if hits.size == 0:
            return []
        if hits.size > k:
            # Keep everything tied with the k-th score so the id tie-break sees all of them.
            kth = np.partition(scores[hits], hits.size - k)[hits.size - k]
            hits = hits[scores[hits] >= kth]
        order = np.lexsort((self._id_rank[hits], -scores[hits]))[:k]
        return [(self.ids[i], float(scores[i])) for i in hits[order]]
