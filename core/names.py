"""Find glossary names inside a question, and normalise a single raw value to its code.

Names are matched longest first, case-insensitively, in one compiled pattern: Latin names only at
word boundaries ("HK" not inside "HKD"), CJK names anywhere (Chinese has no spaces). Normalisers
return None rather than guess, so an unknown value becomes `unrecognized_param`, never a wrong code.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from core.glossary import Glossary, Term


@dataclass(frozen=True)
class NameMatch:
    kind: str  # "metric" | "entity" | "channel"
    code: str
    start: int
    end: int
    raw: str


def fold(text: str) -> str:
    """The comparison form of any text: NFKC, casefolded, whitespace collapsed."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


class NameIndex:
    """All metric/entity/channel names of a glossary, compiled once."""

    KINDS = ("metric", "entity", "channel")

    def __init__(self, glossary: Glossary) -> None:
        self.glossary = glossary
        self._by_name: dict[str, tuple[str, str]] = {}
        tables = {
            "metric": glossary.metrics,
            "entity": glossary.entities,
            "channel": glossary.channels,
        }
        for kind in self.KINDS:
            for code, term in tables[kind].items():
                for name in (*term.names, code):
                    self._by_name.setdefault(fold(name), (kind, code))
        self._pattern = _compile(self._by_name)
        self._competitors = [c for c in (_squash(n) for n in glossary.competitors) if c]

    def find(self, text: str) -> list[NameMatch]:
        """Every glossary name in `text`, left to right, longest alternative first."""
        if self._pattern is None:
            return []
        out = []
        for m in self._pattern.finditer(text):
            hit = self._by_name.get(fold(m.group(0)))
            if hit:
                out.append(NameMatch(hit[0], hit[1], m.start(), m.end(), m.group(0)))
        return out

    def normalize(self, kind: str, raw: str) -> str | None:
        """A whole raw value (a name or a code) to its code of `kind`, or None."""
        hit = self._by_name.get(fold(raw))
        return hit[1] if hit and hit[0] == kind else None

    def competitor_spans(self, text: str) -> list[tuple[int, int]]:
        """Spans of competitor names, matched with whitespace removed ("V o r t e x" counts)."""
        if not self._competitors:
            return []
        squashed, index = [], []
        for i, ch in enumerate(text):
            if not ch.isspace():
                for c in unicodedata.normalize("NFKC", ch).casefold():
                    squashed.append(c)
                    index.append(i)
        flat = "".join(squashed)
        spans = []
        for name in self._competitors:
            start = flat.find(name)
            while start != -1:
                end = start + len(name) - 1
                spans.append((index[start], index[end] + 1))
                start = flat.find(name, start + 1)
        return sorted(spans)


def blank(text: str, spans: list[tuple[int, int]]) -> str:
    """Replace spans with spaces, keeping every other offset where it was."""
    if not spans:
        return text
    chars = list(text)
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def _squash(name: str) -> str:
    return "".join(unicodedata.normalize("NFKC", name).casefold().split())


_L = "0-9A-Za-z\u00c0-\u024f"
# "A Latin edge of a name is at a word boundary", written once for all names: before the name,
# the previous character is not Latin or the name does not start with a Latin character; after
# it, likewise. Per-name lookarounds meant the same but cost ~15 ms to compile at every start.
_STARTS = rf"(?:(?<![{_L}])|(?![{_L}]))"
_ENDS = rf"(?:(?![{_L}])|(?<![{_L}]))"


def _compile(names: dict[str, tuple[str, str]]) -> re.Pattern[str] | None:
    if not names:
        return None
    alternatives = (
        r"\s+".join(re.escape(w) for w in name.split())
        for name in sorted(names, key=lambda n: (-len(n), n))
    )
    # A failed end check backtracks into the alternation, so the next (shorter) name is tried.
    return re.compile(_STARTS + "(?:" + "|".join(alternatives) + ")" + _ENDS, re.IGNORECASE)


def term_names(term: Term) -> list[str]:
    """Names and code of a term, for query rewriting and tagging."""
    return [*term.names, term.code]
