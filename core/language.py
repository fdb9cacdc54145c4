"""Guess the language of a question (en, it, zh) so the answer comes back in it.

Any Chinese character wins (mixed questions like "ACME HK 去年 REVENUE 是多少" are Chinese).
Otherwise the whole question is weighed, in this order:

1. its *grammar words* ("what", "was", "the", "of" / "qual", "è", "il", "nel"), each counting
   once: they say which language the sentence is written in. Names people borrow across
   languages ("revenue", "fatturato", "Italia") do not count here, so "what was the fatturato
   of Italy in 2024?" is English and "Qual è stato il revenue dell'Italia?" Italian;
2. on a tie, a grammar word misspelt by one edit ("waht", "qaunto") counts as itself;
3. on a tie still, those borrowed names count, and so do the scale words ("millions" /
   "milioni") and, given a company's `LanguageWords`, the words its glossary labels a metric
   with in one language only ("expenses" / "spese");
4. a tie after that is no evidence: `question_language` returns None and the caller answers
   in the chat's language (its previous question's, else the default).

A company's proper names (its units and competitors: "Alpina Italia", "Nuova Zelanda") are
taken out of the question first: a name says which unit is meant, not which language the
sentence is in, so "Alpina Italia marketing expenses FY2025 in millions" is English.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_WORD = re.compile(r"[a-zà-ÿ']+")
_IT_GRAMMAR = frozenset([
    "qual", "quale", "quali", "quanto", "quanta", "quanti", "quante", "è", "e'", "il", "lo",
    "gli", "di", "del", "della", "dello", "dei", "degli", "delle", "nel", "nella", "nell",
    "nei", "negli", "nelle", "perché", "perche", "cosa", "sono", "stato", "stata", "stati",
    "anno", "anni", "scorso", "scorsa", "dammi", "mostra", "mostrami", "dimmi", "trimestre",
    "semestre", "dell", "quest", "quest'anno", "l'anno", "ultimo", "ultimi", "ultime", "che",
    "ora", "oggi", "ieri", "domani", "mese", "settimana", "abbiamo", "hanno", "avuto", "dal",
    "la", "le", "dalla", "alla", "al", "tra", "fra", "con", "sul", "sulla", "qual'è", "com'è",
    "confronta", "elenca", "anche", "ciao", "buongiorno", "salve"
])
_IT_NAMES = frozenset([
    "fatturato", "ricavi", "vendite", "utile", "margine", "dipendenti", "italia", "cina",
    "totale", "media", "medio", "organico", "crescita"
])
_EN_GRAMMAR = frozenset([
    "what", "whats", "what's", "was", "is", "were", "the", "of", "for", "why", "how", "much",
    "many", "did", "does", "do", "show", "me", "tell", "year", "last", "this", "quarter",
    "half", "give", "which", "time", "today", "yesterday", "tomorrow", "week", "month", "about",
    "our", "we", "have", "had", "has", "from", "with", "between", "compare", "list", "and",
    "by", "at", "hello", "hi", "there", "please"
])
_EN_NAMES = frozenset(["revenue", "sales", "margin", "income", "profit", "total", "average",
                       "headcount", "growth", "thousand", "thousands", "million", "millions",
                       "billion", "billions", "expenses", "costs", "employees", "stores"])
_IT_NAMES = _IT_NAMES | frozenset(["migliaia", "mila", "milioni", "miliardi", "spese", "costi",
                                   "negozi"])
_TYPO_MIN = 4  # a grammar word this long may be read through one edit ("waht")


@dataclass(frozen=True)
class LanguageWords:
    """What one company's glossary says about languages: words of its metric labels found in
    one language only (tie-breakers, like the borrowed names) and its proper names (never
    evidence). core.question.language_words builds it from a glossary."""

    en: frozenset[str] = frozenset()
    it: frozenset[str] = frozenset()
    proper: tuple[str, ...] = ()  # casefolded, longest first

    @classmethod
    def of(cls, en: Iterable[str], it: Iterable[str], proper: Iterable[str]) -> LanguageWords:
        en_words = {w for t in en for w in _WORD.findall(t.casefold())}
        it_words = {w for t in it for w in _WORD.findall(t.casefold())}
        names = sorted({p.casefold().strip() for p in proper if p.strip()}, key=len,
                       reverse=True)
        return cls(frozenset(en_words - it_words - _IT_GRAMMAR),
                   frozenset(it_words - en_words - _EN_GRAMMAR), tuple(names))

    def without_names(self, text: str) -> str:
        """The text with the company's proper names blanked (whole words only)."""
        folded = text.casefold()
        for name in self.proper:
            if name in folded:
                folded = re.sub(rf"(?<![\w']){re.escape(name)}(?![\w'])", " ", folded)
        return folded


def detect_language(text: str, fallback: str = "en") -> str:
    """The question's language; `fallback` on a tie (core.language.question_language)."""
    return question_language(text) or fallback


def question_language(text: str, known: LanguageWords | None = None) -> str | None:
    """"zh", "it" or "en" as the whole question says; None when it says neither more.
    `known`: the company's words (its proper names are no evidence, its labels are)."""
    if _CJK.search(text):
        return "zh"
    folded = known.without_names(text) if known is not None else text.casefold()
    words = _WORD.findall(folded)
    it = sum(w in _IT_GRAMMAR for w in words)
    en = sum(w in _EN_GRAMMAR for w in words)
    if it == en:
        it, en = _with_typos(words, it, en)
    if it == en:
        it_names = _IT_NAMES | known.it if known is not None else _IT_NAMES
        en_names = _EN_NAMES | known.en if known is not None else _EN_NAMES
        it += sum(w in it_names for w in words)
        en += sum(w in en_names for w in words)
    if it == en:
        return None
    return "it" if it > en else "en"


def _with_typos(words: list[str], it: int, en: int) -> tuple[int, int]:
    """Counts with grammar words misspelt by one edit counted too ("waht", "qaunto")."""
    unknown = [w for w in words if len(w) >= _TYPO_MIN and w not in _IT_GRAMMAR
               and w not in _EN_GRAMMAR and w not in _IT_NAMES and w not in _EN_NAMES]
    if not unknown:
        return it, en
    from rapidfuzz.distance import OSA

    for w in unknown:
        it += any(len(g) >= _TYPO_MIN and OSA.distance(w, g, score_cutoff=1) <= 1
                  for g in _IT_GRAMMAR)
        en += any(len(g) >= _TYPO_MIN and OSA.distance(w, g, score_cutoff=1) <= 1
                  for g in _EN_GRAMMAR)
    return it, en


def has_cjk(text: str) -> bool:
    return _CJK.search(text) is not None
