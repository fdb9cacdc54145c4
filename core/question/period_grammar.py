"""The words and patterns that name a period (en/it/zh), compiled once: what
core.question.periods looks for, apart from how it reads what it finds (core.question.period_atoms)
and joins the pieces (core.question.periods).

Alternatives are grouped by what may start them, behind a cheap guard, so that most positions
of a sentence (the middle of a word, a space) are rejected after a few checks: digit, code and
Chinese atoms come from one compiled alternation; Latin phrases ("the first half", "l'anno
scorso") are tried only where a word that can begin one starts, which keeps a typical question
in the tens of microseconds. Quantifiers are bounded or anchored, so time stays linear in the
length of the text.
"""

from __future__ import annotations

import functools
import re

__all__ = [
    "ATOM_RE",
    "CJK",
    "FULLWIDTH",
    "FULLWIDTH_CHAR",
    "LIST_GAP",
    "MAX_GAP",
    "MONTH_BY_PREFIX",
    "MONTH_NAMES",
    "ORDINALS",
    "PHRASES",
    "REL_SUB_SHIFT",
    "REL_YEAR_OFFSET",
    "SUB_YEAR_GAP",
    "TOKEN",
    "YEAR_SUB_GAP",
    "YTD_CJK",
    "phrase_pattern",
]

_LAT = "0-9A-Za-z\u00c0-\u024f"
_AP = "['’]"
_ZHNUM = "零〇一二两三四五六七八九十"


# English and Italian month names; Italian abbreviations that are English words ("set",
# "ago") are left out, as they would turn "set 2025 targets" into a month.
MONTH_NAMES = (
    "january|february|march|april|june|july|august|september|october|november|december|"
    "gennaio|febbraio|marzo|aprile|maggio|giugno|luglio|agosto|settembre|ottobre|novembre|"
    "dicembre|sept|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|gen|mag|giu|lug|ott|dic"
)
MONTH_BY_PREFIX = {
    "jan": 1, "gen": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "mag": 5, "jun": 6, "giu": 6,
    "jul": 7, "lug": 7, "aug": 8, "ago": 8, "sep": 9, "set": 9, "oct": 10, "ott": 10,
    "nov": 11, "dec": 12, "dic": 12,
}  # fmt: skip
ORDINALS = {
    "first": 1, "1st": 1, "primo": 1, "1°": 1, "1º": 1, "i": 1,
    "second": 2, "2nd": 2, "secondo": 2, "2°": 2, "2º": 2, "ii": 2,
    "third": 3, "3rd": 3, "terzo": 3, "3°": 3, "3º": 3, "iii": 3,
    "fourth": 4, "4th": 4, "quarto": 4, "4°": 4, "4º": 4, "iv": 4,
    "fifth": 5, "5th": 5, "quinto": 5,
}  # fmt: skip
_ORD_RE = "first|second|third|fourth|fifth|1st|2nd|3rd|4th|5th"
_ORD_IT_RE = "primo|secondo|terzo|quarto|quinto|[1-5][°º]|iii|ii|iv|i"
_UNITS = (
    rf"(?:files?|documents?|docs|documenti|rows?|righe|lines?|pieces|pezzi|pcs|words|parole|"
    rf"characters|bytes|kb|mb|gb|eur|euros?|usd|dollars?|k|m|mln|millions?|milioni|bn|"
    rf"billions?|miliardi)(?![{_LAT}])|[个条份件次页元万亿名人%]"
)
_RB_CODE = "(?![0-9])(?![A-Za-z](?![0-9]))"  # "2023" in "2023Q3" yes, in "2020s" no

# Latin phrases meaning a year relative to the current fiscal year, and their Chinese spellings
_REL_YEAR = {
    "ry3": ("three 3 tre", r"(?:three|3)\s+years\s+ago|(?:tre|3)\s+anni\s+fa", "大前年"),
    "ry2": (
        "the year two 2 due l anno",
        r"(?:the\s+)?year\s+before\s+last(?:\s+year)?|(?:two|2)\s+years\s+ago|"
        r"(?:due|2)\s+anni\s+fa|"
        rf"(?:l{_AP}\s?)?anno\s+prima\s+(?:dello\s+scorso|di\s+quello\s+scorso|"
        rf"dell{_AP}\s?anno\s+scorso)",
        "前年",
    ),
    "ry1": (
        "last previous prior a one l anno lo scorso esercizio un 1",
        rf"(?:last|previous|prior)\s+(?:fiscal\s+)?year|(?:a|one)\s+year\s+ago|"
        rf"(?:l{_AP}\s?)?anno\s+(?:scorso|passato|precedente)|(?:lo\s+)?scorso\s+anno|"
        rf"(?:l{_AP}\s?)?esercizio\s+(?:precedente|scorso)|(?:lo\s+)?scorso\s+esercizio|"
        rf"(?:un|1)\s+anno\s+fa|(?:l{_AP}\s?)?anno\s+prima",
        "去年|上年度|上一年|上年|上一财年|上个财年|上财年",
    ),
    "ry0": (
        "this the current quest questo l anno esercizio",
        rf"this\s+(?:fiscal\s+)?year|(?:the\s+)?current\s+(?:fiscal\s+)?year|"
        rf"quest{_AP}\s?anno|questo\s+anno|(?:l{_AP}\s?)?(?:anno|esercizio)\s+(?:in\s+corso|corrente)",
        "今年度|今年|本年度|本年|本财年",
    ),
    "ryn": (
        "next l anno il prossimo",
        rf"next\s+(?:fiscal\s+)?year|(?:l{_AP}\s?)?anno\s+prossimo|(?:il\s+)?prossimo\s+anno",
        "明年|下一年|下年度",
    ),
}
REL_YEAR_OFFSET = {"ry3": -3, "ry2": -2, "ry1": -1, "ry0": 0, "ryn": 1}

# the quarter/half before, at or after the one containing the reference date
_REL_SUB = {
    "rq1": (
        "the last previous prior lo scorso il trimestre l ultimo",
        r"(?:the\s+)?(?:last|previous|prior)\s+(?:fiscal\s+)?quarter|(?:lo\s+)?scorso\s+trimestre|"
        rf"(?:il\s+)?trimestre\s+(?:scorso|precedente|passato)|(?:l{_AP}\s?)?ultimo\s+trimestre",
        "上个季度|上一个季度|上一季度|上季度",
    ),
    "rq0": (
        "this the current questo il trimestre",
        r"this\s+quarter|(?:the\s+)?current\s+quarter|questo\s+trimestre|"
        r"(?:il\s+)?trimestre\s+(?:corrente|in\s+corso)",
        "本季度|这个季度|这季度|本季",
    ),
    "rqn": (
        "next il prossimo",
        r"next\s+quarter|(?:il\s+)?prossimo\s+trimestre",
        "下个季度|下一季度|下季度",
    ),
    "rh1": (
        "the last previous prior lo scorso il semestre",
        r"(?:the\s+)?(?:last|previous|prior)\s+half(?:[\s-]year)?|(?:lo\s+)?scorso\s+semestre|"
        r"(?:il\s+)?semestre\s+(?:scorso|precedente)",
        "上个半年|上一个半年",
    ),
    "rh0": (
        "this the current questo il semestre",
        r"this\s+half(?:[\s-]year)?|(?:the\s+)?current\s+half(?:[\s-]year)?|questo\s+semestre|"
        r"(?:il\s+)?semestre\s+(?:corrente|in\s+corso)",
        "本半年|这半年",
    ),
    "rm1": (
        "the last previous prior lo scorso il mese",
        r"(?:the\s+)?(?:last|previous|prior)\s+month|(?:lo\s+)?scorso\s+mese|"
        r"(?:il\s+)?mese\s+(?:scorso|precedente|passato)",
        "上个月|上一个月|上月",
    ),
    "rm0": (
        "this the current questo il",
        r"this\s+month|(?:the\s+)?current\s+month|questo\s+mese|(?:il\s+)?mese\s+(?:corrente"
        r"|in\s+corso)",
        "本月|这个月",
    ),
}
REL_SUB_SHIFT = {
    "rq1": (3, -1), "rq0": (3, 0), "rqn": (3, 1), "rh1": (6, -1), "rh0": (6, 0),
    "rm1": (1, -1), "rm0": (1, 0),
}  # fmt: skip
# "year to date": a span of months, read by core.question.series_parse (YTD), never as the year
_YTD_LATIN = (
    rf"(?:(?:this|the|current)\s+(?:fiscal\s+)?)?year[\s-]+to[\s-]+date|ytd|fytd|"
    rf"(?:da|dall{_AP}\s?)\s?inizio\s+(?:d(?:ell{_AP}\s?|el\s+)?)?(?:anno|esercizio)"
)
# the Chinese forms, shared with core.question.analysis_cues (which reads them as the span)
YTD_CJK = ("今年以来|年初至今|本年迄今|今年迄今|本财年迄今|本财年至今|本财年以来|财年至今|本年至今"
           "|今年至今|本年度至今|年初以来")

# A day that ends a period ("31 March 2024", "March 31, 2024", "June 2024", "2024-06-30"), for
# "the year ended ...", "as at ..."; read by _end_date. Chinese: "2024年6月30日", "2024年6月".
_DATE = (
    rf"\d{{1,2}}(?:st|nd|rd|th|°|º)?\s{{1,3}}(?:of\s{{1,3}})?(?:{MONTH_NAMES})\.?,?\s{{1,3}}\d{{4}}"
    rf"|(?:{MONTH_NAMES})\.?\s{{1,3}}(?:\d{{1,2}}(?:st|nd|rd|th)?,?\s{{1,3}})?\d{{4}}"
    r"|\d{4}-\d{1,2}-\d{1,2}"
)
_ZH_DATE = r"\d{4}\s?年\s?\d{1,2}\s?月(?:\s?\d{1,2}\s?[日号])?|\d{4}-\d{1,2}-\d{1,2}"
_ZH_YEAR_ENDED = r"\s?止?\s?的?\s?(?:(?:财政|会计)?年度|财年|(?:12|十二)个月)"
# the latest complete fiscal year, said in words: the default, read as if no period were named,
# so that it falls back to the latest year with a figure (core.figures.default_period)
_LAST_COMPLETE = (
    r"(?:the\s+)?(?:last|latest|most\s+recent)\s+(?:complete[d]?|full|closed|finished)\s+"
    r"(?:(?:fiscal|financial)\s+)?year|(?:the\s+)?(?:latest|most\s+recent)\s+(?:fiscal|financial)"
    rf"\s+year|(?:l{_AP}\s?)?ultimo\s+(?:esercizio|anno(?:\s+fiscale)?)(?:\s+fiscale)?"
    r"(?:\s+(?:completo|chiuso|concluso|intero))?"
)

# Alternatives are grouped by what may start them, behind a cheap guard, so that most positions
# of a sentence (the middle of a word, a space) are rejected after a few checks: this is what
# keeps find_periods in the tens of microseconds. Inside a group, order is priority at equal
# start ("skip" first, bare year last). "skip" spans are consumed and never reported.
_DIGIT_START = [
    ("skip", r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}(?!\d)"),  # dates are not periods
    ("skip", r"(?<![/.-])\d{1,2}[-/.]\d{1,2}[-/.]\d{4}(?!\d)"),
    ("zhend", rf"(?P<zhend_d>{_ZH_DATE}){_ZH_YEAR_ENDED}"),  # 2024年6月30日止年度
    ("skip", r"\d{4}\s?年\s?\d{1,2}\s?月\s?\d{1,2}\s?[日号]"),
    ("skip", rf"(?<![{_LAT}])\d{{1,2}}(?:st|nd|rd|th|°|º)?\s{{1,3}}(?:of\s{{1,3}})?"
     rf"(?:{MONTH_NAMES})\.?,?\s{{1,3}}\d{{4}}(?!\d)"),
    ("zhfy", r"(?P<zhfy_y>\d{4})\s?(?:财年|财政年度|会计年度|年度|年)"),
    # "24年营收": a two-digit year, but not "10年来", "5年内" (a number of years)
    ("zhyy", r"(?<![.,])(?P<zhyy_y>\d{2})\s?(?:财年|财政年度|会计年度|年度|年)"
     r"(?!\d|来|以来|前|后|内|间|多|左右|以上|以下)"),
    ("mcode", r"(?P<mc_y>\d{4})[-/](?P<mc_m>\d{1,2})(?!\d|[-/.]\d)"),
    ("mycode", r"(?<![/.-])(?P<my_m>\d{1,2})/(?P<my_y>\d{4})(?!\d)"),
    ("hpre", rf"(?<![{_LAT}])(?P<hp_n>[12])H\s?(?P<hp_y>\d{{4}}|{_AP}?\d{{2}})(?!\d)"),
    ("qpre", rf"(?<![{_LAT}])(?P<qp_n>[1-4])Q\s?(?P<qp_y>\d{{4}}|{_AP}?\d{{2}})(?!\d)"),
    ("qzh", rf"第?\s?(?P<qz_n>[{_ZHNUM}]{{1,2}}|\d{{1,2}})\s?(?:财季|季度)"),
    ("mzh", rf"(?P<mz_n>\d{{1,2}}|[{_ZHNUM}]{{1,3}})\s?月份?"
     rf"(?!\s?\d{{1,2}}\s?[日号]|[{_ZHNUM}]{{1,3}}[日号])"),
    ("year", rf"(?<![{_LAT}$€£¥#])(?<!\d[.,])(?P<yr_y>\d{{4}}){_RB_CODE}(?![.,]\d)"
     rf"(?!\s{{0,2}}(?:{_UNITS}))"),
]  # fmt: skip
# a day of the week is no fiscal period (the fact table has no daily figures), and no company
_WEEKDAYS = (
    "monday|tuesday|wednesday|thursday|friday|saturday|sunday|mondays|tuesdays|wednesdays|"
    "thursdays|fridays|saturdays|sundays|lunedì|martedì|mercoledì|giovedì|venerdì|lunedi|"
    "martedi|mercoledi|giovedi|venerdi|sabato|domenica"
)
_ORD_FIRST = "first second third fourth fifth 1st 2nd 3rd 4th 5th"
_ORD_IT_FIRST = "primo secondo terzo quarto quinto i ii iii iv 1° 2° 3° 4° 5° 1º 2º 3º 4º 5º"
# (words that can begin the phrase, kind, pattern): a phrase is only tried where one of its first
# words starts, so a sentence costs a set lookup per word instead of every phrase at every word
_WORD_START = [
    ("http https ftp www", "skip", r"(?:https?|ftp)://\S+|www\.\S*"),
    (MONTH_NAMES.replace("|", " "), "skip",
     rf"(?:{MONTH_NAMES})\.?\s{{1,3}}\d{{1,2}}(?:st|nd|rd|th)?,?\s{{1,3}}\d{{4}}(?!\d)"),
    ("top primi prime at al", "skip", r"(?:top|primi|prime|at\s+most|al\s+massimo)\s{0,3}\d+"),
    ("the last latest most", "skip", _LAST_COMPLETE),
    ("this the current year ytd fytd da dall", "skip", rf"(?:{_YTD_LATIN})(?![{_LAT}])"),
    ("the quarter half three six", "pend",
     rf"(?:the\s+)?(?P<pend_k>quarter|three\s+months|half(?:[\s-]year)?|six\s+months)\s+"
     rf"(?:ended|ending|to)\s+(?:on\s+)?(?P<pend_d>{_DATE})(?!\d)"),
    ("il trimestre semestre", "pend",
     rf"(?:il\s+)?(?P<pend2_k>trimestre|semestre)\s+(?:(?:chiuso|concluso|terminato)\s+)?"
     rf"(?:al|il)\s+(?P<pend2_d>{_DATE})(?!\d)"),
    ("l ultimo", "skip", _LAST_COMPLETE),
    ("the fiscal financial year fy", "yend",
     rf"(?:the\s+)?(?:(?:fiscal|financial)\s+year|fy|year)\s+(?:ended|ending|to)\s+(?:on\s+)?"
     rf"(?P<yend_d>{_DATE})(?!\d)"),
    ("the twelve 12", "yend2",
     rf"(?:the\s+)?(?:twelve|12)\s+months\s+(?:ended|ending|to)\s+(?:on\s+)?"
     rf"(?P<yend2_d>{_DATE})(?!\d)"),
    ("l esercizio anno", "yend3",
     rf"(?:l{_AP}\s?)?(?:esercizio|anno)(?:\s+fiscale)?\s+(?:chiuso|concluso|terminato|finito)"
     rf"\s+(?:al|il)\s+(?P<yend3_d>{_DATE})(?!\d)"),
    ("i dodici 12", "yend4",
     rf"(?:i\s+)?(?:dodici|12)\s+mesi\s+(?:(?:chiusi|terminati)\s+)?(?:al|a|fino\s+a)\s+"
     rf"(?P<yend4_d>{_DATE})(?!\d)"),
    ("as at", "point",
     rf"(?:as\s+(?:at|of)|at(?:\s+the\s+end\s+of)?)\s+(?:the\s+)?(?P<point_d>{_DATE})(?!\d)"),
    ("al alla a", "point2",
     rf"(?:al|alla\s+data\s+del|alla\s+fine\s+di|a\s+fine)\s+(?P<point2_d>{_DATE})(?!\d)"),
    ("fiscal", "fis", rf"fiscal(?:\s+year)?\s+{_AP}?(?P<fis_y>\d{{4}}|\d{{2}})"
     rf"(?:\s?[-/]\s?(?P<fis_y2>\d{{4}}|\d{{2}}))?(?!\d)"),
    ("anno esercizio", "fis",
     r"(?:anno\s+fiscale|esercizio(?:\s+fiscale)?)\s+(?:del\s+)?(?P<fis2_y>\d{4})"
     r"(?:\s?[-/]\s?(?P<fis2_y2>\d{4}|\d{2}))?(?!\d)"),
    *((first, name, rf"(?:{latin})(?![{_LAT}])") for name, (first, latin, _) in _REL_YEAR.items()),
    # "the last quarter of 2024" is Q4, while "last quarter" alone is relative
    ("the last final", "qlast",
     r"(?:the\s+)?(?:last|final)\s+(?:fiscal\s+)?quarter(?=\s{1,3}of\s)"),
    ("l ultimo", "qlast", rf"(?:l{_AP}\s?)?ultimo\s+trimestre(?=\s{{1,3}}(?:del|dell{_AP}))"),
    ("the last final latter", "hlast", r"(?:the\s+)?(?:last|final|latter)\s+half(?=\s{1,3}of\s)"),
    ("l ultimo", "hlast", rf"(?:l{_AP}\s?)?ultimo\s+semestre(?=\s{{1,3}}(?:del|dell{_AP}))"),
    *((first, name, rf"(?:{latin})(?![{_LAT}])") for name, (first, latin, _) in _REL_SUB.items()),
    (f"the {_ORD_FIRST}", "hword",
     rf"(?:the\s+)?(?P<hw_n>{_ORD_RE})\s+half(?:[\s-]year)?(?![{_LAT}])"),
    (f"il {_ORD_IT_FIRST}", "hword", rf"(?:il\s+)?(?P<hwi_n>{_ORD_IT_RE})\s+semestre(?![{_LAT}])"),
    (f"the {_ORD_FIRST}", "qword",
     rf"(?:the\s+)?(?P<qw_n>{_ORD_RE})\s+(?:fiscal\s+)?quarter(?![{_LAT}])"),
    (f"il {_ORD_IT_FIRST}", "qword", rf"(?:il\s+)?(?P<qwi_n>{_ORD_IT_RE})\s+trimestre(?![{_LAT}])"),
    (MONTH_NAMES.replace("|", " "), "mname", rf"(?P<mn_n>{MONTH_NAMES})\.?(?![{_LAT}])"),
    (_WEEKDAYS.replace("|", " "), "wday", rf"(?:{_WEEKDAYS})(?![{_LAT}])"),
]  # fmt: skip
_CODE_START = [  # may follow a digit: 2023Q3, FY2023Q3, Q3FY24
    ("fy", rf"FY\s?{_AP}?(?P<fy_y>\d+)(?:\s?[-/]\s?(?P<fy_y2>\d{{4}}|\d{{2}})(?!\d))?{_RB_CODE}"),
    ("hcode", r"H(?P<hc_n>\d)(?![0-9])(?!(?!fy)[A-Za-z])"),
    ("qcode", r"Q(?P<qc_n>\d)(?![0-9])(?!(?!fy)[A-Za-z])"),
    ("tcode", rf"T(?P<tc_n>[1-4])(?![{_LAT}])"),
]
_CJK_START = [
    ("skip", r"(?:最近|上)一?个?完整的?财年|最近一个财年|最近的?财年|最新一?个?财年"),
    ("skip", YTD_CJK),
    ("pend", rf"(?:截至|截止(?:到|至)?)\s?(?P<pend3_d>{_ZH_DATE})\s?止?\s?的?\s?"
             r"(?P<pend3_k>季度|三个月|半年度|半年|六个月)"),
    ("zhend2", rf"(?:截至|截止(?:到|至)?)\s?(?P<zhend2_d>{_ZH_DATE}){_ZH_YEAR_ENDED}"),
    ("zhpoint", rf"(?:截至|截止(?:到|至)?)\s?(?P<zhpoint_d>{_ZH_DATE})"),
    ("skip", r"(?:前|最多|至多)\s{0,3}\d+"),  # counts
    ("skip", r"前[一二两三四1-4]个?季度"),  # "the first three quarters" is not one quarter
    ("zhfy2", r"(?:财年|财政年度|会计年度)\s?(?P<zhfy2_y>\d{4})(?!\d)"),
    *((name, cjk) for name, (_, _, cjk) in _REL_YEAR.items()),
    *((name, cjk) for name, (_, _, cjk) in _REL_SUB.items()),
    ("hzh", r"(?P<hz_n>上|下)半(?:财)?年"),
]
_GROUPS = [
    (rf"(?<!\d)(?=[\d第{_ZHNUM}])", _DIGIT_START),
    (r"(?<![A-Za-z])(?=[FfHhQqTt])", _CODE_START),
    ("(?=[前最至财会大去上今本明下这截年])", _CJK_START),  # the first characters of _CJK_START
    (rf"(?={_AP})", [("apos", rf"{_AP}(?P<ap_y>\d{{2}})(?![\d{_LAT}])")]),
]

TOKEN = re.compile(rf"[{_LAT}°º]+")
FULLWIDTH_CHAR = re.compile("[\uff01-\uff5e\u3000]")


def _alternation(groups: list[tuple[str, list[tuple[str, str]]]]) -> re.Pattern[str]:
    """One pattern; each alternative is a named group whose name (minus `__n`) is its kind."""
    seen: dict[str, int] = {}
    out = []
    for guard, alternatives in groups:
        parts = []
        for name, pattern in alternatives:
            seen[name] = seen.get(name, 0) + 1
            group = name if seen[name] == 1 else f"{name}__{seen[name]}"
            parts.append(f"(?P<{group}>{pattern})")
        out.append(f"{guard}(?:{'|'.join(parts)})")
    return re.compile("|".join(out), re.IGNORECASE)


ATOM_RE = _alternation(_GROUPS)


def _phrases_by_first_word() -> dict[str, tuple[tuple[str, str], ...]]:
    """For each word that can begin a Latin phrase, the phrases it can begin."""
    by_word: dict[str, list[tuple[str, str]]] = {}
    for words, name, pattern in _WORD_START:
        for word in words.split():
            by_word.setdefault(word, []).append((name, pattern))
    return {word: tuple(alts) for word, alts in by_word.items()}


@functools.cache
def phrase_pattern(alts: tuple[tuple[str, str], ...]) -> re.Pattern[str]:
    """Compiled on first use: compiling them all at import cost tens of ms on every start."""
    return _alternation([("", list(alts))])


PHRASES = _phrases_by_first_word()
SUB_YEAR_GAP = re.compile(
    rf"\s{{0,3}}(?:(?:of|del|dell{_AP}|nel|in|di|,|-|/)\s{{0,3}})?(?:the\s{{1,3}})?"
    r"(?:(?:year|anno)\s{1,3})?",
    re.IGNORECASE,
)
YEAR_SUB_GAP = re.compile(rf"\s{{0,3}}(?:[-/,的]\s{{0,3}})?|{_AP}s\s{{1,3}}", re.IGNORECASE)
LIST_GAP = re.compile(r"\s{0,3}(?:[-–/,&和与]|and|or|e|o|vs\.?|to)?\s{0,3}", re.IGNORECASE)
MAX_GAP = 16
CJK = re.compile("[\u2e80-\u9fff]")
# full-width ASCII (ＦＹ２０２４) read as ASCII; one character each way, so spans still fit `text`
FULLWIDTH = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}
