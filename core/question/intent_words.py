"""The words around the names in a question (en/it/zh): the cues that ask for a figure
(strong: "how much"; weak: "what is", only with something structured named), for an
explanation ("why", "trend") or about a topic ("tell me about"); the words that start a sentence
and are never a company ("Show", "Dimmi"); and what is left once the glossary's names are
blanked: capitalised names it does not know, and the subject asked about ("NPS"). Read by
core.question.intent, which decides the route from them.
"""

from __future__ import annotations

import re

__all__ = [
    "NARRATIVE",
    "NOT_ENTITIES",
    "QUESTION",
    "STRONG_NUMERIC",
    "TOPIC",
    "TREND_ASKED",
    "WEAK_NUMERIC",
    "WORDS",
    "subject_terms",
    "unknown_names",
]

# Cues are matched on the casefolded text; Latin ones at word boundaries.
# Strong cues ask for a quantity even without a metric ("how much did we make?" -> which metric?);
# weak ones ("what is") only count when something structured (a metric, entity, period) is named,
# otherwise "what is Project Heron?" is a question for the documents.
_STRONG_NUMERIC_CUES = {
    "en": ["how much", "how many", "number of", "value of", "total", "figure", "figures"],
    "it": ["quanto", "quanta", "quanti", "quante", "a quanto", "valore"],
    "zh": ["多少", "几", "数字", "数据"],
}
_WEAK_NUMERIC_CUES = {
    "en": ["what is", "what's", "whats", "what was", "what were", "what are"],
    "it": ["qual è", "qual e", "qual era", "quale", "qual'è"],
    "zh": ["是什么"],
}
_NARRATIVE_CUES = {
    "en": [
        "why",
        "reason",
        "reasons",
        "driver",
        "drivers",
        "drove",
        "driven",
        "trend",
        "trends",
        "regulation",
        "regulations",
        "regulatory",
        "impact",
        "impacted",
        "explain",
        "cause",
        "caused",
        "causes",
        "what happened",
        "how come",
        "outlook",
        "strategy",
    ],
    "it": [
        "perché",
        "perche",
        "motivo",
        "motivi",
        "causa",
        "cause",
        "andamento",
        "tendenza",
        "regolamento",
        "regolamentazione",
        "normativa",
        "impatto",
        "spiega",
        "spiegami",
        "come mai",
        "strategia",
    ],
    "zh": ["为什么", "为何", "原因", "趋势", "监管", "影响", "怎么回事", "解释", "策略", "战略"],
}
_ENTITY_PREPOSITIONS = re.compile(
    r"\b(?:of|for|at|di|del|della|dello|dei|degli|delle|per)\s+([A-Z][\w&.-]*(?:\s+[A-Z][\w&.-]*)*)"
)
_LOOKBACK = 120  # characters: longer than any real entity name
_PARTIAL_WORD = re.compile(r"^\S+")
_LOWER = re.compile(r"[a-z\u00df-\u00ff]")
_CAPITALISED = re.compile(r"\b([A-Z][\w&.-]*(?:\s+[A-Z][\w&.-]*)*)\s+$")
# Words that start or fill a question, capitalised only because they come first ("Show …",
# "Please …", "Dimmi …", "Confronta …"): never a company name. Casefolded; en and it (Chinese
# has no capitals). Checked word by word, so "Please show Foobar revenue" still reports Foobar.
_SENTENCE_WORDS_EN = """
    i me my we us our you your they it this that these those the a an and or but also then now
    so just only again too hi hello hey thanks thank ok okay yes no sorry please kindly
    what which who whose how why when where whats is was are were be been do does did can
    could would will should may might must shall let lets need want like
    show tell give list compare display get find fetch report provide calculate compute check
    send share pull look see explain break remind update summarize summarise sum total overall
    current latest last next previous annual yearly quarterly monthly net gross same both all
    each every any some about regarding re summary breakdown quick exact exactly approximately
    roughly in for of on at by from to with during since between vs versus year quarter month
    fiscal fy
    yoy qoq ytd average avg mean combined cumulative growth share media medio crescita quota
    group company companies unit units business segment segments division
    january february march april june july august september october november december
    jan feb mar apr jun jul aug sep sept oct nov dec ended ending end twelve months
    sell sold people
"""
_SENTENCE_WORDS_IT = """
    il lo la l gli le un uno una e ed o ma anche poi ora allora ciao salve grazie si sì no
    per favore perfavore mostra mostrami dimmi dammi fammi elenca elencami confronta calcola
    trova cerca dai dici dicci vorrei voglio vogliamo puoi potresti può sai sapresti scusa
    qual quale quali quanto quanta quanti quante come cosa che chi dove quando perché perche
    mi ci ti vi ecco solo totale complessivo ultimo ultima ultimi ultime prossimo scorso
    anno trimestre mese esercizio nel nella nei del della dei di da in su con tra fra al alla
    riepilogo riassunto confronto dati valore
    gruppo società societa azienda unità unita divisione settore
    gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre novembre
    dicembre chiuso chiusura
"""
NOT_ENTITIES = frozenset((_SENTENCE_WORDS_EN + _SENTENCE_WORDS_IT).split())


def _cue_pattern(cues: dict[str, list[str]]) -> re.Pattern[str]:
    alts = []
    for cue in sorted({c for lst in cues.values() for c in lst}, key=len, reverse=True):
        body = re.escape(cue).replace(r"\ ", r"\s+")
        alts.append(rf"(?<!\w){body}(?!\w)" if cue[0].isascii() else body)
    return re.compile("|".join(alts), re.IGNORECASE)


# A question that names nothing structured is still a question for the documents.
QUESTION = re.compile(
    r"[?？]\s*$|^\W*(?:which|who|whose|what|when|where|how|does|did|is there|are there"
    r"|tell me about|chi|cosa|quale|quali|quando|dove|come|parlami)(?!\w)"
    r"|什么|哪|谁|何时|怎么|如何|[吗呢]\W*$",
    re.IGNORECASE,
)
WORDS = re.compile(r"[\u4e00-\u9fff]|[^\W\d_]{2,}")
STRONG_NUMERIC = _cue_pattern(_STRONG_NUMERIC_CUES)
WEAK_NUMERIC = _cue_pattern(_WEAK_NUMERIC_CUES)
NARRATIVE = _cue_pattern(_NARRATIVE_CUES)


TOPIC = re.compile(
    r"(?<!\w)(?:tell\s+me\s+about|what\s+about|news\s+(?:on|about|from)|update\s+on"
    r"|parlami|dimmi\s+(?:di|della|del|dello|degli|delle)|novit[aà]|cos['’]?\s*[eè]"
    r"|cosa\s+(?:è|e|succede|è\s+successo))(?!\w)|介绍|情况|怎么样|发生了什么|最新",
    re.IGNORECASE,
)
TREND_ASKED = re.compile(r"(?<!\w)(?:trends?|andamento|tendenza)(?!\w)|趋势|走势", re.IGNORECASE)
_ACRONYM = re.compile(r"(?<![A-Za-z0-9-])[A-Z][A-Z0-9]{1,5}(?![A-Za-z0-9-])")
_LONG_WORD = re.compile(r"[^\W\d_]{6,}")
# question words that name no subject (with the sentence words above and the cue words)
_QUESTION_WORDS = """
    happened happen happens happening going please whether should become became
    successo succede successa succedendo parlami informazioni notizie nuovo nuova
"""
_NOT_SUBJECT = frozenset(_QUESTION_WORDS.split())


def subject_terms(rest: str, *, named_any: bool) -> list[str]:
    """What the question asks about that no name covers: acronyms ("NPS", "KPI"); in a
    question naming nothing of the glossary, also its longer words ("magazzino")."""
    terms = [a for a in _ACRONYM.findall(rest) if a.casefold() not in NOT_ENTITIES]
    if not named_any:
        cues = NARRATIVE.pattern + STRONG_NUMERIC.pattern + WEAK_NUMERIC.pattern
        terms += [
            w
            for w in _LONG_WORD.findall(rest)
            if w.casefold() not in NOT_ENTITIES
            and w.casefold() not in _NOT_SUBJECT
            and w.casefold() not in cues
            and not w.isupper()
        ]
    return list(dict.fromkeys(terms))


def unknown_names(rest: str, has_metric: bool) -> list[str]:
    """Capitalised names in an entity position ("revenue of Acme", "Acme revenue") that the
    glossary does not know. Known names are already blanked out of `rest`. In text without
    lower-case letters ("SHOW REVENUE CHINA") capitals say nothing, so nothing is reported."""
    out: list[str] = []
    if not _LOWER.search(rest):
        return out
    for m in _ENTITY_PREPOSITIONS.finditer(rest):
        _add_candidate(out, m.group(1))
    if has_metric:
        # "What was Acme revenue": a capitalised word right before a blanked metric name
        # only a bounded look-back (cut at a word start): searching the whole head for every
        # gap made one 2,000-character question cost seconds
        for gap in re.finditer(r"\S\s{2,}", rest):
            start = max(0, gap.start() + 1 - _LOOKBACK)
            head = rest[start : gap.start() + 1]
            if start and not rest[start - 1].isspace():
                head = _PARTIAL_WORD.sub("", head)
            capitalised = _CAPITALISED.search(head + " ")
            if capitalised:
                _add_candidate(out, capitalised.group(1))
    return out


def _add_candidate(out: list[str], candidate: str) -> None:
    words = [w for w in candidate.split() if w.strip(".-&").casefold() not in NOT_ENTITIES]
    name = " ".join(words).strip(".-")
    if len(name) >= 2 and name not in out and not name.isdigit():
        out.append(name)
