"""Glossary-driven multi-query rewriting for retrieval.

A question says "Cina"; the documents say "China", "中国区" or "ORBIS_CN". Each variant replaces
one glossary name found in the question with another name of the same group, so BM25 finds
documents in other languages and spellings and the vector channel gets the same idea phrased
several ways. Deterministic: the same question and glossary always give the same list.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from core.knowledge.comparable import comparable, original_span

MAX_QUERIES = 5
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


@dataclass(frozen=True)
class _Match:
    start: int
    end: int
    group: int


def rewrite_queries(
    question: str, synonym_groups: Sequence[Sequence[str]], max_queries: int = MAX_QUERIES
) -> list[str]:
    """The question itself, then variants with the matched names swapped for synonyms/codes.

    Names are matched case-insensitively, longest first, on word boundaries (anywhere for
    Chinese), and a matched span is not matched again by a shorter name ("China" inside
    "Orbis China"). Variant i replaces every matched name by the i-th other name of its group
    (a group with fewer names keeps the question's own word), so four variants already carry
    four spellings of both the entity and the metric. At most `max_queries`, no two equal
    ignoring case.
    """
    question = question.strip()
    if not question or max_queries <= 0:
        return []
    matches = _find(question, synonym_groups)
    alternatives = []
    for match in matches:
        said = _norm(question[match.start : match.end])
        names = dict.fromkeys(n.strip() for n in synonym_groups[match.group] if n.strip())
        alternatives.append([n for n in names if _norm(n) != said])
    out = [question]
    seen = {_norm(question)}
    for i in range(max((len(a) for a in alternatives), default=0)):
        if len(out) >= max_queries:
            break
        text, cursor = "", 0
        for match, alts in zip(matches, alternatives, strict=True):
            text += question[cursor : match.start]
            name = alts[i] if i < len(alts) else question[match.start : match.end]
            text = _glue(text, name)
            cursor = match.end
        text = _glue(text, question[cursor:])
        if _norm(text) not in seen:
            seen.add(_norm(text))
            out.append(text)
    return out


def _find(question: str, groups: Sequence[Sequence[str]]) -> list[_Match]:
    """Non-overlapping glossary names in the question, longest name first, then by position.
    Compared in the comparable form (core.knowledge.comparable), as the gates and the parser compare
    them; spans are those of the question as written."""
    candidates = sorted(
        ((name, g) for g, names in enumerate(groups) for name in names if name.strip()),
        key=lambda item: (-len(item[0]), item[1], item[0]),
    )
    folded, offsets = comparable(question)
    taken = [False] * len(folded)
    found: list[_Match] = []
    matched_groups: set[int] = set()
    for name, group in candidates:
        if group in matched_groups:
            continue
        for m in _pattern(comparable(name)[0]).finditer(folded):
            if not any(taken[m.start() : m.end()]):
                taken[m.start() : m.end()] = [True] * (m.end() - m.start())
                start, end = original_span(offsets, m.start(), m.end())
                found.append(_Match(start, end, group))
                matched_groups.add(group)
                break
    return sorted(found, key=lambda m: m.start)


def _glue(left: str, right: str) -> str:
    """Concatenate, with a space where a Latin word would otherwise touch another word.

    Needed when a Latin name replaces a Chinese one: "中国区营收" -> "China revenue", not
    "Chinarevenue"; two Chinese words still join without a space.
    """
    if not left or not right or not (_word_char(left[-1]) and _word_char(right[0])):
        return left + right
    both_cjk = _CJK.match(left[-1]) and _CJK.match(right[0])
    return left + right if both_cjk else f"{left} {right}"


def _word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def _pattern(name: str) -> re.Pattern[str]:
    escaped = re.escape(name.strip())
    if _CJK.search(name):
        return re.compile(escaped, re.IGNORECASE)
    return re.compile(rf"(?<!\w){escaped}(?!\w)", re.IGNORECASE)


def _norm(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())
