"""Guess the language of a question (en, it, zh) so the answer comes back in it.

Any Chinese character wins (mixed questions like "ACME HK 去年 REVENUE 是多少" are Chinese);
otherwise Italian and English marker words are counted. Ties go to English.
"""

from __future__ import annotations

import re

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_WORD = re.compile(r"[a-zà-ÿ']+")
_IT = frozenset(
    [
        "qual",
        "quale",
        "quali",
        "quanto",
        "quanta",
        "quanti",
        "quante",
        "è",
        "e'",
        "il",
        "lo",
        "la",
        "gli",
        "le",
        "di",
        "del",
        "della",
        "dello",
        "dei",
        "degli",
        "delle",
        "nel",
        "nella",
        "nell",
        "nei",
        "per",
        "perché",
        "perche",
        "cosa",
        "come",
        "sono",
        "stato",
        "stata",
        "anno",
        "anni",
        "scorso",
        "scorsa",
        "fatturato",
        "ricavi",
        "vendite",
        "utile",
        "margine",
        "dipendenti",
        "dammi",
        "mostra",
        "dimmi",
        "trimestre",
        "semestre",
        "dell",
        "quest",
        "quest'anno",
        "l'anno",
        "ultimo",
        "ultimi",
        "ultime",
        "che",
        "ora",
        "oggi",
        "ieri",
        "domani",
        "mese",
        "settimana",
        "italia",
        "cina",
    ]
)
_EN = frozenset(
    [
        "what",
        "whats",
        "what's",
        "was",
        "is",
        "were",
        "the",
        "of",
        "in",
        "for",
        "why",
        "how",
        "much",
        "many",
        "did",
        "does",
        "do",
        "show",
        "me",
        "tell",
        "revenue",
        "sales",
        "year",
        "last",
        "this",
        "quarter",
        "half",
        "margin",
        "income",
        "profit",
        "give",
        "which",
        "time",
        "today",
        "yesterday",
        "tomorrow",
        "week",
        "month",
        "about",
    ]
)


def detect_language(text: str) -> str:
    if _CJK.search(text):
        return "zh"
    words = _WORD.findall(text.casefold())
    it = sum(w in _IT for w in words)
    en = sum(w in _EN for w in words)
    return "it" if it > en else "en"


def has_cjk(text: str) -> bool:
    return _CJK.search(text) is not None
