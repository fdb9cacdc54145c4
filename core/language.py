"""Guess the language of a question (en, it, zh) so the answer comes back in it.

Any Chinese character wins (mixed questions like "ACME HK 去年 REVENUE 是多少" are Chinese).
Otherwise the whole question is weighed, in this order:

1. its *grammar words* ("what", "was", "the", "of" / "qual", "è", "il", "nel"), each counting
   once: they say which language the sentence is written in. Names people borrow across
   languages ("revenue", "fatturato", "Italia") do not count here, so "what was the fatturato
   of Italy in 2024?" is English and "Qual è stato il revenue dell'Italia?" Italian;
2. on a tie, a grammar word misspelt by one edit ("waht", "qaunto") counts as itself;
3. on a tie still, those borrowed names count;
4. a tie after that is no evidence: `question_language` returns None and the caller answers
   in the chat's language (its previous question's, else the default).
"""

from __future__ import annotations

import re

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
                       "headcount", "growth"])
_TYPO_MIN = 4  # a grammar word this long may be read through one edit ("waht")


def detect_language(text: str, fallback: str = "en") -> str:
    """The question's language; `fallback` on a tie (core.language.question_language)."""
    return question_language(text) or fallback


def question_language(text: str) -> str | None:
    """"zh", "it" or "en" as the whole question says; None when it says neither more."""
    if _CJK.search(text):
        return "zh"
    words = _WORD.findall(text.casefold())
    it = sum(w in _IT_GRAMMAR for w in words)
    en = sum(w in _EN_GRAMMAR for w in words)
    if it == en:
        it, en = _with_typos(words, it, en)
    if it == en:
        it += sum(w in _IT_NAMES for w in words)
        en += sum(w in _EN_NAMES for w in words)
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
