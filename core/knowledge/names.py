"""Find glossary names inside a question, and normalise a single raw value to its code.

Names are matched longest first, in one compiled pattern, on the comparable form of the text
(core.knowledge.comparable: case, width, invisible characters, look-alike letters and inner
punctuation do
not count): Latin names only at word boundaries ("HK" not inside "HKD"), CJK names anywhere
(Chinese has no spaces). Offsets of matches are those of the original text. Normalisers return
None rather than guess, so an unknown value becomes `unrecognized_param`, never a wrong code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.knowledge.comparable import (
    LATIN,
    comparable,
    name_pattern,
    original_span,
    squash,
    squash_with_offsets,
)
from core.knowledge.glossary import Glossary
from core.knowledge.glossary_terms import Term


@dataclass(frozen=True)
class NameMatch:
    kind: str  # "metric" | "entity" | "channel"
    code: str
    start: int
    end: int
    raw: str


class NameIndex:
    """All metric/entity/channel names of a glossary, compiled once."""

    KINDS = ("metric", "entity", "channel")

    def __init__(self, glossary: Glossary) -> None:
        self.glossary = glossary
        self._by_name: dict[str, tuple[str, str]] = {}  # squash(name) -> (kind, code)
        self._patterns: dict[str, int] = {}  # regex of a name -> its length, longest first
        tables = {
            # a derived metric is a metric to the question ("EBITDA margin"); being longer than
            # its inputs' names, it wins over "EBITDA" and "margin" in the longest-first match
            "metric": {**glossary.metrics, **{c: d.term for c, d in glossary.derived.items()}},
            "entity": glossary.entities,
            "channel": glossary.channels,
        }
        for kind in self.KINDS:
            for code, term in tables[kind].items():
                for name in (*term.names, *term.forms, code):
                    if key := squash(name):
                        self._by_name.setdefault(key, (kind, code))
                        self._patterns.setdefault(name_pattern(name), len(key))
        self._pattern = _compile(self._patterns)
        self._competitors = [c for c in (squash(n) for n in glossary.competitors) if c]

    def find(self, text: str) -> list[NameMatch]:
        """Every glossary name in `text`, left to right, longest alternative first."""
        if self._pattern is None:
            return []
        folded, offsets = comparable(text)
        out = []
        for m in self._pattern.finditer(folded):
            hit = self._by_name.get(squash(m.group(0)))
            if hit:
                start, end = original_span(offsets, m.start(), m.end())
                out.append(NameMatch(hit[0], hit[1], start, end, text[start:end]))
        return out

    def normalize(self, kind: str, raw: str) -> str | None:
        """A whole raw value (a name or a code) to its code of `kind`, or None."""
        hit = self._by_name.get(squash(raw))
        return hit[1] if hit and hit[0] == kind else None

    def competitor_spans(self, text: str) -> list[tuple[int, int]]:
        """Spans of competitor names, compared on letters and digits only ("V o r t e x",
        "N.i.m.b.u.s", a zero-width space or a Cyrillic look-alike inside all count)."""
        if not self._competitors:
            return []
        flat, index = squash_with_offsets(text)
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


_L = LATIN
# "A Latin edge of a name is at a word boundary", written once for all names: before the name,
# the previous character is not Latin or the name does not start with a Latin character; after
# it, likewise. Per-name lookarounds meant the same but cost ~15 ms to compile at every start.
_STARTS = rf"(?:(?<![{_L}])|(?![{_L}]))"
_ENDS = rf"(?:(?![{_L}])|(?<![{_L}]))"


def _compile(patterns: dict[str, int]) -> re.Pattern[str] | None:
    """One alternation of every name's pattern, longest name first (the text is folded, so
    no IGNORECASE)."""
    if not patterns:
        return None
    alternatives = sorted(patterns, key=lambda p: (-patterns[p], p))
    # A failed end check backtracks into the alternation, so the next (shorter) name is tried.
    return re.compile(_STARTS + "(?:" + "|".join(alternatives) + ")" + _ENDS)


def term_names(term: Term) -> list[str]:
    """Names and code of a term, for query rewriting and tagging."""
    return [*term.names, term.code]
