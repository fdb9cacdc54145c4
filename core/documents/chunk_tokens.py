"""The BM25 tokens of each chunk, made once at ingest and stored with it.

Why: tokenising is most of building the lexical index (jieba segmenting Chinese: ~75 s per
100,000 chunks on this project's busy two-core machine, docs/scale.md). A replica that starts
on an empty volume has no lexical snapshot to map, so it used to tokenise every chunk before
its first "why" answer: over two minutes projected at a million chunks. Stored tokens move that
work to the ingest, once per chunk, and every replica reads them instead.

Tokens depend on the tokenizer and, for CJK text, on the glossary names jieba keeps whole. So
each stored value carries a key: `FORMAT` alone for text without CJK characters (any glossary
gives the same tokens), `FORMAT` plus a hash of the CJK names otherwise. A reader uses stored
tokens only when the key fits its own; other chunks (ingested before tokens were stored, key
NULL, or with another glossary) are tokenised from their text as before, so nothing is lost.
Change `FORMAT` whenever `Tokenizer.tokenize` changes what it returns.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np

from core.contracts.ports import Chunk, IndexedChunk, StoredTokens
from core.documents.lexical import FlatTerms, Tokenizer, cjk_words, has_cjk

FORMAT = "t1"


def encode(tokens: Iterable[str]) -> str:
    """Term counts as "term count term count ..." (tokens never hold whitespace: they are word
    characters or pieces of a CJK run). Counts, not the token list: what BM25 needs, and
    shorter."""
    return " ".join(f"{term} {n}" for term, n in Counter(tokens).items())


def decode(text: str) -> dict[str, int]:
    """`encode`'s term counts back."""
    parts = text.split(" ") if text else []
    return dict(zip(parts[::2], map(int, parts[1::2]), strict=True))


def cjk_key(words: Sequence[str]) -> str:
    """The key of tokens made from CJK text with these glossary names."""
    digest = hashlib.sha256("\n".join(cjk_words(words)).encode("utf-8")).hexdigest()
    return f"{FORMAT}:{digest[:16]}"


class ChunkTokenizer:
    """Makes the tokens ingest stores (`stored`) and turns what the index reads into term
    counts (`counts`), tokenising only the chunks whose stored tokens do not fit.

    `words`: the glossary names, as the lexical index is given them. `tokenised` counts the
    chunks `counts` had to tokenise from their text (what a start on an empty volume costs)."""

    def __init__(self, words: Sequence[str], tokenizer: Tokenizer | None = None) -> None:
        self.words = tuple(words)
        self.tokenizer = tokenizer if tokenizer is not None else Tokenizer(self.words)
        self._cjk_key = cjk_key(self.words)
        self.tokenised = 0

    @property
    def usable(self) -> tuple[str, str]:
        """The keys of stored tokens this tokenizer takes as they are."""
        return (FORMAT, self._cjk_key)

    def key_of(self, text: str) -> str:
        return self._cjk_key if has_cjk(text) else FORMAT

    def stored(self, chunks: Sequence[Chunk]) -> list[StoredTokens]:
        """The tokens to store with each chunk, in order."""
        return [
            StoredTokens(encode(self.tokenizer.tokenize(c.text)), self.key_of(c.text))
            for c in chunks
        ]

    def flat(self, rows: Sequence[IndexedChunk]) -> FlatTerms:
        """`counts` of all these chunks in the flat form an index is built from in one sort
        (`Bm25Index._append_flat`): the stored text is split, not decoded chunk by chunk."""
        terms: list[str] = []
        tfs: list[str] = []
        sizes = np.empty(len(rows), dtype=np.int64)
        fits = (FORMAT, self._cjk_key)
        for i, row in enumerate(rows):
            if row.tokens is not None and row.key in fits:
                parts = row.tokens.split(" ") if row.tokens else []
                terms += parts[::2]
                tfs += parts[1::2]
                sizes[i] = len(parts) // 2
            else:
                self.tokenised += 1
                counts = Counter(self.tokenizer.tokenize(row.chunk.text))
                terms += counts.keys()
                tfs += map(str, counts.values())
                sizes[i] = len(counts)
        return FlatTerms(terms, np.array(tfs, dtype=np.float32), sizes)

    def counts(self, rows: Sequence[IndexedChunk]) -> list[dict[str, int]]:
        """Term counts of each chunk, in order: the stored ones where their key fits this
        glossary, the text tokenised otherwise."""
        out = []
        for row in rows:
            if row.tokens is not None and row.key in (FORMAT, self._cjk_key):
                out.append(decode(row.tokens))
            else:
                self.tokenised += 1
                out.append(Counter(self.tokenizer.tokenize(row.chunk.text)))
        return out
