"""The lexical channel: a tokenizer for en/it/zh text and an in-memory BM25 index over chunks.

Chunks are tokenised once and kept as an inverted index of numpy arrays (per term: the rows
that contain it and how often), so a query costs only the postings of its own terms. The index
holds no chunk text (a million chunks would be over a GB per replica): only ids, lengths, the
RESTRICTED flag and the metadata values filters ask for; retrieved chunks are read from the
chunk store. It is updated by document (`updated`): a one-document ingest re-tokenises that
document's chunks and copies the postings of the terms they contain, nothing else
(docs/scale.md).
"""

from __future__ import annotations

import logging
import re
import threading
import unicodedata
from collections import Counter, OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

if TYPE_CHECKING:
    from core.contracts.ports import Chunk

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


def has_cjk(text: str) -> bool:
    """Whether tokenising `text` involves jieba (after NFKC, as `Tokenizer.tokenize` sees it)."""
    return not text.isascii() and bool(_HAS_CJK.search(unicodedata.normalize("NFKC", text)))


def cjk_words(words: Iterable[str]) -> list[str]:
    """The names that change how CJK text is segmented, normalised as the tokenizer uses them
    (other names are split into words anyway)."""
    new = [unicodedata.normalize("NFKC", w).strip() for w in words]
    return [w for w in new if w and _HAS_CJK.search(w)]


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
        new = cjk_words(words)
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


def guarded_idf(n_docs: int, df: np.ndarray | float) -> np.ndarray | float:
    """BM25's IDF in the BM25+ / Lucene form, log(1 + (N - n + 0.5) / (n + 0.5)): always positive.

    rank_bm25's BM25Okapi uses log((N - n + 0.5) / (n + 0.5)), zero for a term in exactly half
    the documents and negative above half (its epsilon fix leaves the zero alone), so on a small
    corpus a query word present in 1 of 2 documents scored nothing and the right document could
    rank below an unrelated one. This form keeps rare over common, and every matching term adds.
    """
    return np.log1p((n_docs - df + 0.5) / (df + 0.5))


# postings whose weights are kept between queries, each with its row as numpy's index type
# (64 MB: 8 bytes of float64 weight and 8 of intp row; numpy widens int32 rows on every
# fancy-indexed add, which made adding a posting 3-4x slower than with intp rows)
_WEIGHT_CACHE_POSTINGS = 4_000_000
_BOUNDS_KEPT = 100_000  # query terms whose IDF and largest weight are remembered
_META_SEP = ","
# a chunk's terms: its tokens in order, or their counts (core.documents.chunk_tokens)
Terms = Sequence[str] | Mapping[str, int]


class FlatTerms(NamedTuple):
    """The term counts of several chunks in flat form: `sizes[i]` (term, tf) pairs per chunk,
    in chunk order, each term once per chunk."""

    terms: list[str]
    tf: np.ndarray  # float32
    sizes: np.ndarray  # int64, one per chunk
_COMPACT_MIN = 1000  # removed rows before a compaction is considered (and a quarter of all)
# a posting list is added to every row (not looked up row by row) when it is shorter than
# this many times the rows still in the race: a binary search costs ~log2(list) steps a row
_DENSE_BELOW = 8
# Below this many rows `search` scores every row (the sums pruning would skip are short lists
# there, and its bookkeeping costs more than it saves); from it on, MaxScore. Measured side by
# side on bench_scale's corpus: exhaustive 2.2x faster at 10,000 rows, 1.1x at 75,000, the
# same at 100,000, pruning ahead beyond.
PRUNE_FROM_ROWS = 100_000


class Bm25Index:
    """BM25 (k1, b; the guarded IDF above) over a set of chunks, as numpy postings.

    Scores equal rank_bm25's `BM25Okapi.get_scores` with that IDF. An index is never changed
    once built: `updated` returns a new one that shares every untouched posting with it, so a
    search running on another thread always sees one consistent version.
    """

    def __init__(
        self,
        chunks: Iterable[Chunk],
        tokenizer: Tokenizer,
        *,
        k1: float = 1.5,
        b: float = 0.75,
        corpus: Sequence[Terms] | None = None,
    ) -> None:
        """`corpus`: the chunks' tokens (or term counts) when already known (TokenMemo,
        core.documents.chunk_tokens), else tokenised here."""
        self.tokenizer = tokenizer
        self.k1, self.b = k1, b
        self.ids: list[str] = []
        self._position: dict[str, int] = {}  # chunk id: its live row
        self._doc_len = np.zeros(0, dtype=np.float64)
        self._restricted = np.zeros(0, dtype=bool)
        self._alive = np.zeros(0, dtype=bool)
        self._n_alive, self._len_sum, self._dead = 0, 0.0, 0
        self._postings: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # term: (rows, tf)
        self._meta: dict[tuple[str, str], np.ndarray] = {}  # (key, value): rows
        self._docs: dict[str, np.ndarray] = {}  # document: its rows
        self._norm: np.ndarray | None = None
        self._weight_cache: OrderedDict[str, tuple[np.ndarray, np.ndarray]] = OrderedDict()
        self._bounds: dict[str, tuple[Any, float]] = {}  # term: (IDF, largest weight)
        self._cached = 0
        self._lock = threading.Lock()
        self._append(list(chunks), corpus)

    def __len__(self) -> int:
        return self._n_alive

    @property
    def rows(self) -> int:
        """Rows in the arrays, removed ones included until the next compaction."""
        return len(self.ids)

    # -- building ---------------------------------------------------------------------------

    def updated(
        self,
        removed: Iterable[str] = (),
        added: Sequence[Chunk] = (),
        corpus: Sequence[Terms] | None = None,
    ) -> Bm25Index:
        """A new index without the chunks of the `removed` documents and with `added` (whose
        documents are removed first: a re-ingested file replaces its old chunks). Only the
        added chunks are tokenised, and only the postings of their terms are copied."""
        new = object.__new__(Bm25Index)
        new.__dict__.update(self.__dict__)
        new._postings, new._meta, new._docs = dict(self._postings), dict(self._meta), dict(
            self._docs
        )
        new.ids = list(self.ids)
        new._position = dict(self._position)
        new._alive = self._alive.copy()
        new._weight_cache, new._cached, new._lock = OrderedDict(), 0, threading.Lock()
        new._bounds = {}
        gone = set(removed) | {c.doc for c in added}
        for doc in gone:
            rows = new._docs.pop(doc, None)
            if rows is not None and rows.size:
                live = rows[new._alive[rows]]
                new._alive[live] = False
                for row in live.tolist():
                    new._position.pop(new.ids[row], None)
                new._n_alive -= live.size
                new._len_sum -= float(new._doc_len[live].sum())
                new._dead += live.size
        new._append(list(added), corpus)
        if new._dead > max(_COMPACT_MIN, new.rows // 4):
            new._compact()
        return new

    def _append(self, chunks: list[Chunk], corpus: Sequence[Terms] | None) -> None:
        if corpus is None:
            corpus = [self.tokenizer.tokenize(c.text) for c in chunks]
        terms: list[str] = []
        tfs: list[int] = []
        sizes = np.empty(len(chunks), dtype=np.int64)
        for i, tokens in enumerate(corpus):
            counts = tokens if isinstance(tokens, Mapping) else Counter(tokens)
            terms.extend(counts.keys())
            tfs.extend(counts.values())
            sizes[i] = len(counts)
        self._append_flat(chunks, FlatTerms(terms, np.asarray(tfs, dtype=np.float32), sizes))

    def _append_flat(self, chunks: list[Chunk], flat: FlatTerms) -> None:
        """Add `chunks` whose term counts are `flat`: the postings are cut from one sort of
        all (term, row) pairs instead of growing a list per term chunk by chunk, which was
        most of building an index from stored tokens (docs/scale.md)."""
        self._norm = None
        if not chunks:
            return
        base = len(self.ids)
        local = np.repeat(np.arange(len(chunks), dtype=np.int32), flat.sizes)
        lengths = np.bincount(local, weights=flat.tf, minlength=len(chunks)).astype(np.float64)
        # each pair's term named by the position of its first pair (one C-level pass); the
        # vocabulary's order is that of first positions, so sorted groups follow it
        vocab: dict[str, int] = {}
        first = np.array(
            list(map(vocab.setdefault, flat.terms, range(len(flat.terms)))), dtype=np.int64
        )
        order = np.argsort(first, kind="stable")  # rows stay ascending within a term
        grouped = first[order]
        cuts = [0, *(np.flatnonzero(np.diff(grouped)) + 1).tolist(), grouped.size]
        all_rows, all_tf = local[order] + np.int32(base), flat.tf[order]
        meta: dict[tuple[str, str], list[int]] = {}
        docs: dict[str, list[int]] = {}
        for i, chunk in enumerate(chunks):
            row = base + i
            for key, value in chunk.metadata.items():
                for item in {v.strip() for v in str(value).split(_META_SEP)}:
                    meta.setdefault((str(key), item), []).append(row)
            docs.setdefault(chunk.doc, []).append(row)
        self.ids.extend(c.id for c in chunks)
        self._position.update((c.id, base + i) for i, c in enumerate(chunks))
        self._doc_len = np.concatenate([self._doc_len, lengths])
        flags = np.fromiter((c.restricted for c in chunks), dtype=bool, count=len(chunks))
        self._restricted = np.concatenate([self._restricted, flags])
        self._alive = np.concatenate([self._alive, np.ones(len(chunks), dtype=bool)])
        self._n_alive += len(chunks)
        self._len_sum += float(lengths.sum())
        for j, term in enumerate(vocab):
            r, t = all_rows[cuts[j] : cuts[j + 1]], all_tf[cuts[j] : cuts[j + 1]]
            old = self._postings.get(term)
            self._postings[term] = (r, t) if old is None else (
                np.concatenate([old[0], r]), np.concatenate([old[1], t])
            )
        for pair, rows in meta.items():
            r = np.asarray(rows, dtype=np.int32)
            old_rows = self._meta.get(pair)
            self._meta[pair] = r if old_rows is None else np.concatenate([old_rows, r])
        for doc, rows in docs.items():
            r = np.asarray(rows, dtype=np.int32)
            old_rows = self._docs.get(doc)
            self._docs[doc] = r if old_rows is None else np.concatenate([old_rows, r])

    def _compact(self) -> None:
        """Drop removed rows from every array (after many re-ingests; no text is re-read)."""
        keep = np.flatnonzero(self._alive)
        where = np.full(self.rows, -1, dtype=np.int64)
        where[keep] = np.arange(keep.size)

        def remap(rows: np.ndarray) -> np.ndarray:
            kept: np.ndarray = where[rows[self._alive[rows]]].astype(np.int32)
            return kept

        postings = {}
        for term, (rows, tf) in self._postings.items():
            live = self._alive[rows]
            if live.any():
                postings[term] = (where[rows[live]].astype(np.int32), tf[live])
        self._postings = postings
        self._meta = {k: r for k, r in ((k, remap(v)) for k, v in self._meta.items()) if r.size}
        self._docs = {d: r for d, r in ((d, remap(v)) for d, v in self._docs.items()) if r.size}
        self.ids = [self.ids[i] for i in keep]
        self._position = {cid: row for row, cid in enumerate(self.ids)}
        self._doc_len, self._restricted = self._doc_len[keep], self._restricted[keep]
        self._alive = np.ones(keep.size, dtype=bool)
        self._dead = 0

    # -- saving and loading (storage.lexical_snapshot) -------------------------------------

    def state(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """The index as flat arrays (all postings in two, cut per term by `offsets`) and the
        small parts a header can hold; `from_state` reverses it."""
        terms = list(self._postings)
        sizes = np.fromiter((self._postings[t][0].size for t in terms), np.int64, len(terms))
        rows = [self._postings[t][0] for t in terms]
        tfs = [self._postings[t][1] for t in terms]
        arrays = {
            "rows": np.concatenate(rows) if rows else np.zeros(0, np.int32),
            "tf": np.concatenate(tfs) if tfs else np.zeros(0, np.float32),
            "offsets": np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
            "doc_len": self._doc_len,
            "restricted": self._restricted,
            "alive": self._alive,
        }
        header = {
            "k1": self.k1,
            "b": self.b,
            "terms": terms,
            "ids": self.ids,
            "meta": [[k, v, r.tolist()] for (k, v), r in self._meta.items()],
            "docs": {d: r.tolist() for d, r in self._docs.items()},
        }
        return arrays, header

    @classmethod
    def from_state(
        cls, arrays: Mapping[str, np.ndarray], header: Mapping[str, Any], tokenizer: Tokenizer
    ) -> Bm25Index:
        """An index over `state()`'s arrays, used as given (memory-mapped arrays stay so)."""
        index = cls((), tokenizer, k1=header["k1"], b=header["b"])
        rows, tf, offsets = arrays["rows"], arrays["tf"], arrays["offsets"]
        index._postings = {
            term: (rows[offsets[i] : offsets[i + 1]], tf[offsets[i] : offsets[i + 1]])
            for i, term in enumerate(header["terms"])
        }
        index.ids = list(header["ids"])
        index._doc_len = np.asarray(arrays["doc_len"])
        index._restricted = np.asarray(arrays["restricted"])
        index._alive = np.array(arrays["alive"], dtype=bool)
        index._n_alive = int(index._alive.sum())
        index._position = {index.ids[row]: row for row in np.flatnonzero(index._alive).tolist()}
        index._len_sum = float(index._doc_len[index._alive].sum())
        index._dead = index.rows - index._n_alive
        index._meta = {(k, v): np.asarray(r, dtype=np.int32) for k, v, r in header["meta"]}
        index._docs = {d: np.asarray(r, dtype=np.int32) for d, r in header["docs"].items()}
        return index

    # -- searching --------------------------------------------------------------------------

    def row_of(self, chunk_id: str) -> int | None:
        """The live row of a chunk (None: not in the index)."""
        return self._position.get(chunk_id)

    def document_ids(self, doc: str, cleared: bool) -> list[str]:
        """The live chunk ids of one document in reading order (rows are appended in the
        order the chunker cut them); none of a restricted one unless `cleared`."""
        rows = self._docs.get(doc)
        if rows is None:
            return []
        keep = self._alive[rows] if cleared else self._alive[rows] & ~self._restricted[rows]
        return [self.ids[row] for row in sorted(rows[keep].tolist())]

    def mask(self, cleared: bool, filters: Mapping[str, str] | None = None) -> np.ndarray:
        """Rows this chat may see under these metadata filters (retrieval.matches_filters)."""
        allowed = self._alive.copy() if cleared else self._alive & ~self._restricted
        for key, wanted in (filters or {}).items():
            hit = np.zeros(self.rows, dtype=bool)
            rows = self._meta.get((str(key), wanted))
            if rows is not None:
                hit[rows] = True
            allowed &= hit
        return allowed

    def _norms(self) -> np.ndarray:
        with self._lock:
            if self._norm is None:
                avgdl = self._len_sum / self._n_alive if self._n_alive else 1.0
                self._norm = self.k1 * (1.0 - self.b + self.b * self._doc_len / (avgdl or 1.0))
            return self._norm

    def _term(self, name: str) -> _Term | None:
        """A query term: its posting, IDF and bound (the bound is kept per index version in
        a small table apart from the weights, so pruning never needs a long list's weights)."""
        posting = self._postings.get(name)
        if posting is None:
            return None
        with self._lock:
            known = self._bounds.get(name)
        if known is None:
            rows = posting[0]
            df = float(rows.size if not self._dead else np.count_nonzero(self._alive[rows]))
            if df == 0:
                return None
            idf = guarded_idf(self._n_alive, df)
            known = (idf, float(self._weights_of(name, posting, idf)[1].max()))
            with self._lock:
                if len(self._bounds) >= _BOUNDS_KEPT:
                    self._bounds.clear()
                self._bounds[name] = known
        return _Term(name, posting[0], posting[1], known[0], known[1])

    def _weights_of(
        self, name: str, posting: tuple[np.ndarray, np.ndarray], idf: Any
    ) -> tuple[np.ndarray, np.ndarray]:
        """The term's rows (as intp: fancy indexing with them costs no conversion) and its
        BM25 weight in each (removed rows weigh nothing), remembered in a bounded LRU
        between queries."""
        with self._lock:
            cached = self._weight_cache.get(name)
            if cached is not None:
                self._weight_cache.move_to_end(name)
                return cached
        rows, tf = posting
        tf64 = tf.astype(np.float64)
        weight: np.ndarray = idf * tf64 * (self.k1 + 1.0) / (tf64 + self._norms()[rows])
        if self._dead:
            weight[~self._alive[rows]] = 0.0
        found = (rows.astype(np.intp), weight)
        with self._lock:
            if weight.size <= _WEIGHT_CACHE_POSTINGS and name not in self._weight_cache:
                self._weight_cache[name] = found
                self._cached += weight.size
                while self._cached > _WEIGHT_CACHE_POSTINGS:
                    _, (_, evicted) = self._weight_cache.popitem(last=False)
                    self._cached -= evicted.size
        return found

    def _weights(self, term: _Term) -> tuple[np.ndarray, np.ndarray]:
        return self._weights_of(term.name, (term.rows, term.tf), term.idf)

    def _weights_at(self, term: _Term, at: np.ndarray) -> np.ndarray:
        """The term's weights at these positions of its posting: from the LRU when it holds
        them, else computed for those positions only (the same expression, element by
        element, as `_weights_of`: the same floats)."""
        with self._lock:
            cached = self._weight_cache.get(term.name)
        if cached is not None:
            picked: np.ndarray = cached[1][at]
            return picked
        rows = term.rows[at]
        tf64 = term.tf[at].astype(np.float64)
        weight: np.ndarray = term.idf * tf64 * (self.k1 + 1.0) / (tf64 + self._norms()[rows])
        if self._dead:
            weight[~self._alive[rows]] = 0.0
        return weight

    def _query_terms(self, tokens: Sequence[str]) -> list[_Term]:
        """The query's terms found in the index, in the one order every score is summed in:
        largest bound first (ties by term; a repeated token stays, and counts twice). Both
        `scores` and the pruned `search` add in this order, so a chunk's score is the same
        float either way and their rankings are identical, ties included."""
        found = [t for name in tokens if (t := self._term(name)) is not None]
        found.sort(key=lambda t: (-t.bound, t.name))
        return found

    def scores(self, tokens: Sequence[str]) -> np.ndarray:
        """BM25 score of every row for these query tokens (a repeated token counts twice)."""
        out = np.zeros(self.rows, dtype=np.float64)
        for term in self._query_terms(tokens):
            rows, weight = self._weights(term)
            out[rows] += weight
        return out

    def search(
        self, tokens: Sequence[str], k: int, *, allowed: np.ndarray | None = None
    ) -> list[tuple[str, float]]:
        """Best `k` (chunk id, score) with a positive score, best first, ties by chunk id.

        `allowed` is a boolean mask over the index rows (`mask`); rows outside it are never
        returned.

        Exact MaxScore pruning (docs/scale.md): terms are added best bound first, and a
        lower bound on the k-th best score (`theta`, from the partial sums) is kept. Once the
        bounds of the terms left add up to less than it, no row they alone contain can reach
        the top k: those terms' long posting lists are not walked, only looked up for the rows
        that still can (binary search; postings are sorted by row). The result is the one
        exhaustive scoring gives (tests/test_lexical_pruning.py).
        """
        if k <= 0 or not self._postings:
            return []
        if self.rows < PRUNE_FROM_ROWS:  # small: adding every posting costs less than pruning
            scores = self.scores(tokens)
            if allowed is not None:
                scores *= allowed  # scores are never negative: a row outside weighs 0.0
            return self._finish((None, scores), k)
        terms = self._query_terms(tokens)
        if not terms:
            return []
        # partial scores; rows outside `allowed` start at -inf, so they never rank or count
        acc = np.zeros(self.rows) if allowed is None else np.where(allowed, 0.0, -np.inf)
        left = [*np.cumsum([t.bound for t in terms][::-1])[::-1].tolist(), 0.0]  # bounds to come
        theta = 0.0  # no fewer than k rows score at least this
        pool = np.zeros(0, dtype=np.int64)  # the best rows of each term added: theta's witnesses
        for i, term in enumerate(terms):
            if theta > 0.0 and left[i] < _safe(theta):
                return self._finish(self._candidates(acc, terms, i, left, theta), k)
            rows, weight = self._weights(term)
            acc[rows] += weight
            part = acc[rows]
            best = rows if part.size <= k else rows[np.argpartition(part, -k)[-k:]]
            pool = np.union1d(pool, best)
            if pool.size >= k:
                scored = acc[pool]
                theta = float(np.partition(scored, scored.size - k)[scored.size - k])
        return self._finish((None, acc), k)

    def _candidates(
        self, acc: np.ndarray, terms: list[_Term], first: int, left: list[float], theta: float
    ) -> tuple[np.ndarray, np.ndarray]:
        """Rows that can still reach the top k and their full scores: terms from `first` on
        are looked up for them only, in the same order as `scores` adds them, and rows drop
        out as soon as the terms left cannot lift them to `theta`. While the rows are many
        against a posting list, the list is added to every row instead (cheaper than a
        binary search per row; the sums are the same)."""
        rows = np.flatnonzero(acc >= _safe(theta) - left[first])
        score = acc[rows]
        for i in range(first, len(terms)):
            term = terms[i]
            if rows.size * _DENSE_BELOW > term.rows.size:
                acc[rows] = score
                term_rows, weight = self._weights(term)
                acc[term_rows] += weight
                score = acc[rows]
            else:
                at = np.minimum(np.searchsorted(term.rows, rows), term.rows.size - 1)
                hit = term.rows[at] == rows
                score[hit] += self._weights_at(term, at[hit])
            keep = score >= _safe(theta) - left[i + 1]
            rows, score = rows[keep], score[keep]
        return rows, score

    def _finish(
        self, found: tuple[np.ndarray | None, np.ndarray], k: int
    ) -> list[tuple[str, float]]:
        """The best `k` of these rows (None: every row) by score, then chunk id; only positive
        scores."""
        rows, scores = found
        # The k-th best score (one partition; cheaper than gathering the rows that matched
        # first, which are most of them for common words), then every row tied with it, so
        # the id tie-break sees all of them.
        kth = np.partition(scores, scores.size - k)[scores.size - k] if scores.size > k else 0.0
        hits = np.flatnonzero(scores >= kth) if kth > 0.0 else np.flatnonzero(scores > 0.0)
        if hits.size == 0:
            return []
        ids = self.ids
        where = hits if rows is None else rows[hits]
        best = sorted(zip((-scores[hits]).tolist(), (ids[r] for r in where.tolist()), strict=True))
        return [(cid, -neg) for neg, cid in best[:k]]


class _Term(NamedTuple):
    name: str
    rows: np.ndarray  # sorted row ids
    tf: np.ndarray  # the term's frequency in each
    idf: Any  # numpy float64, as `guarded_idf` returns it
    bound: float  # the largest weight: no row gains more from this term


def _safe(theta: float) -> float:
    """`theta` lowered by far more than the rounding of a sum of a few floats: a row is
    dropped only when its bound is below the k-th best score beyond doubt."""
    return theta * (1.0 - 1e-9)
