"""The canonical form of a question: what the L0 cache keys on.

NFKC, casefold, whitespace collapsed, trailing punctuation stripped, a short stopword list per
language dropped (Italian and English; none for Chinese), word order kept. Two questions that
differ only in those respects share a hash and therefore a cached plan.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

_STOPWORDS = {
    "en": frozenset(
        [
            "a",
            "an",
            "the",
            "of",
            "in",
            "on",
            "at",
            "to",
            "for",
            "is",
            "was",
            "are",
            "were",
            "be",
            "been",
            "do",
            "does",
            "did",
            "please",
            "me",
            "us",
            "our",
            "you",
            "your",
            "can",
            "could",
            "would",
            "tell",
            "show",
            "give",
        ]
    ),
    "it": frozenset(
        [
            "il",
            "lo",
            "la",
            "i",
            "gli",
            "le",
            "un",
            "uno",
            "una",
            "di",
            "del",
            "dello",
            "della",
            "dei",
            "degli",
            "delle",
            "nel",
            "nello",
            "nella",
            "nei",
            "negli",
            "nelle",
            "a",
            "al",
            "allo",
            "alla",
            "ai",
            "agli",
            "alle",
            "da",
            "dal",
            "in",
            "per",
            "è",
            "e'",
            "sono",
            "stato",
            "stata",
            "mi",
            "ci",
            "puoi",
            "potresti",
            "dimmi",
            "mostrami",
        ]
    ),
}
_TRAILING = re.compile(r"[\s\.,;:!?¿¡？！。，；：…]+$")
_WORD = re.compile(r"\S+")
_EDGE_PUNCT = re.compile(r"^[\"'“”‘’«»()\[\]]+|[\"'“”‘’«»()\[\],;:!?？！。，]+$")


def canonical_text(text: str, language: str) -> str:
    folded = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    folded = _TRAILING.sub("", folded)
    stop = _STOPWORDS.get(language, frozenset())
    words = []
    for raw in _WORD.findall(folded):
        word = _EDGE_PUNCT.sub("", raw)
        if word and word not in stop:
            words.append(word)
    return " ".join(words) or folded


def canonical_hash(canonical: str) -> str:
    """16 hex characters of sha256: plenty for a per-deployment cache. A lone surrogate (a byte
    that was not UTF-8, as Python decodes command-line arguments) is hashed, not an error."""
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def cache_key(
    text: str, language: str, fixed_slots: dict[str, str] | None = None
) -> tuple[str, str]:
    """(canonical text, hash) of a request; a tapped option's pinned slots are part of it, so
    "What was revenue?" and the same question narrowed to China never share an entry."""
    canonical = canonical_text(text, language)
    if fixed_slots:
        canonical += " | " + ",".join(f"{k}={v}" for k, v in sorted(fixed_slots.items()))
    return canonical, canonical_hash(canonical)
