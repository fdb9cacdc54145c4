"""Fiscal periods: find them in free text (en/it/zh); the calendar arithmetic is
core.fiscal_calendar.

Everything is a pure function of the text, the reference date and the fiscal year end ("MM-DD"),
so answers do not drift with the wall clock and tests can pin any day. Conventions:

- A fiscal year is named by the calendar year in which it ends: with "06-30", FY2024 runs
  2023-07-01..2024-06-30. Halves and quarters are 6- and 3-month blocks from the fiscal year
  start, named after their fiscal year (`2024H1`, `2024Q3`). Months are calendar months.
- A bare year (1990-2100) means that fiscal year. Two-digit years (FY24, Q3 '24, '24, 24年,
  1H25) pivot at 90: 90-99 -> 1990s, otherwise 2000s.
- A half, quarter or month named without a year ("Q3", "上半年", "primo semestre", "December")
  means the latest one that is over on the reference date, as "the last complete fiscal year"
  does; it is reported as relative and `latest`, so the answer can say which one it took.
  "Last half" / "lo scorso semestre" is the half-year before the current one, like "last
  quarter". A month alone must be named in full ("may" only after "in"); "3月" alone is no period.
- Split years are named by the year they end in ("fiscal 2024-25", "esercizio 2024/25" = FY2025);
  "the year ended 30 June 2024" is the fiscal year ending that day, and "as at 31 December 2023"
  the longest period ending that day; either is no period (None) when the calendar has none.
- "The last complete fiscal year" in words is consumed and not reported: it is the default the
  answer assumes anyway (core.figures.default_period), with its fallback to the latest year
  with a figure.
- Text that looks like a period but is not one ("Q5 2024", "2024H3", "FY20245", "2024年第五季度")
  is reported with `period=None`, so callers can say so instead of guessing; so is a weekday
  ("revenue on Monday": the table has no daily figures, and "Monday" is no company either).
- "Last month", "this week" are time windows (see core.question.arguments), not fiscal periods.

How it reads: "atoms" are found first (a year, a half/quarter/month, a complete code such as
2025H1, a relative expression), then adjacent atoms joined by a connector ("Q3" + " of " + "2023",
"去年" + "上半年") are merged into one period. Digit, code and Chinese atoms come from one compiled
alternation; Latin phrases ("the first half", "l'anno scorso") are tried only where a word that
can begin one starts, which keeps a typical question in the tens of microseconds. Quantifiers are
bounded or anchored, so time stays linear in the length of the text.
"""

from __future__ import annotations

import calendar
import functools
import re
from dataclasses import dataclass
from datetime import date

from core.contracts.types import Period, PeriodType
from core.fiscal_calendar import (
    PER_YEAR,
    fiscal_half_of,
    fiscal_quarter_of,
    fiscal_year_bounds,
    fiscal_year_of,
    parse_year_end,
    period_bounds,
    shift_period,
)

__all__ = [
    "MONTH_NAMES",
    "YTD_CJK",
    "PeriodMatch",
    "chinese_number",
    "find_periods",
    "month_number",
    "normalize_period",
]

MIN_YEAR, MAX_YEAR = 1990, 2100
_OLD_FY = 1000  # "FY1800" is a year, written as one


@dataclass(frozen=True)
class PeriodMatch:
    """One period expression found in a text, with its span."""

    start: int
    end: int
    raw: str
    period: Period | None  # None: looks like a period but is not a valid one
    relative: bool  # resolved against the reference date ("last year", 今年, "Q3" alone)
    latest: bool = False  # named without a year ("Q3", "December"): the latest complete one


# --------------------------------------------------------------------------- the grammar

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
_MONTH_BY_PREFIX = {
    "jan": 1, "gen": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "mag": 5, "jun": 6, "giu": 6,
    "jul": 7, "lug": 7, "aug": 8, "ago": 8, "sep": 9, "set": 9, "oct": 10, "ott": 10,
    "nov": 11, "dec": 12, "dic": 12,
}  # fmt: skip
_ORDINALS = {
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
_REL_YEAR_OFFSET = {"ry3": -3, "ry2": -2, "ry1": -1, "ry0": 0, "ryn": 1}

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
_REL_SUB_SHIFT = {
    "rq1": (3, -1), "rq0": (3, 0), "rqn": (3, 1), "rh1": (6, -1), "rh0": (6, 0),
    "rm1": (1, -1), "rm0": (1, 0),
}  # fmt: skip
# "year to date": a span of months, read by core.question.range_parse (YTD), never as the year
_YTD_LATIN = (
    rf"(?:(?:this|the|current)\s+(?:fiscal\s+)?)?year[\s-]+to[\s-]+date|ytd|fytd|"
    rf"(?:da|dall{_AP}\s?)\s?inizio\s+(?:d(?:ell{_AP}\s?|el\s+)?)?(?:anno|esercizio)"
)
# the Chinese forms, shared with core.question.range_parse (which reads them as the span)
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

_TOKEN = re.compile(rf"[{_LAT}°º]+")
_FULLWIDTH_CHAR = re.compile("[\uff01-\uff5e\u3000]")


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


_ATOM_RE = _alternation(_GROUPS)


def _phrases_by_first_word() -> dict[str, tuple[tuple[str, str], ...]]:
    """For each word that can begin a Latin phrase, the phrases it can begin."""
    by_word: dict[str, list[tuple[str, str]]] = {}
    for words, name, pattern in _WORD_START:
        for word in words.split():
            by_word.setdefault(word, []).append((name, pattern))
    return {word: tuple(alts) for word, alts in by_word.items()}


@functools.cache
def _phrase_pattern(alts: tuple[tuple[str, str], ...]) -> re.Pattern[str]:
    """Compiled on first use: compiling them all at import cost tens of ms on every start."""
    return _alternation([("", list(alts))])


_PHRASES = _phrases_by_first_word()
_SUB_YEAR_GAP = re.compile(
    rf"\s{{0,3}}(?:(?:of|del|dell{_AP}|nel|in|di|,|-|/)\s{{0,3}})?(?:the\s{{1,3}})?"
    r"(?:(?:year|anno)\s{1,3})?",
    re.IGNORECASE,
)
_YEAR_SUB_GAP = re.compile(rf"\s{{0,3}}(?:[-/,的]\s{{0,3}})?|{_AP}s\s{{1,3}}", re.IGNORECASE)
_LIST_GAP = re.compile(r"\s{0,3}(?:[-–/,&和与]|and|or|e|o|vs\.?|to)?\s{0,3}", re.IGNORECASE)
_MAX_GAP = 16
_CJK = re.compile("[\u2e80-\u9fff]")
# full-width ASCII (ＦＹ２０２４) read as ASCII; one character each way, so spans still fit `text`
_FULLWIDTH = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}


# --------------------------------------------------------------------------- atoms


@dataclass(slots=True)
class _Atom:
    start: int
    end: int
    role: str  # "year" | "sub" | "period" | "skip"
    form: str = ""  # year: bare|zh|fy|apos|rel ; sub: H|Q|T|M
    num: int | None = None  # year, relative year offset, or sub index; None when unreadable
    latin: bool = False  # a Latin month name (never after the year)
    period: Period | None = None  # role "period" only
    relative: bool = False
    zh: bool = False  # written in Chinese (the year comes first)


def chinese_number(text: str) -> int | None:
    """0-99 written with digits or Chinese numerals (三, 十二, 两); None for anything else."""
    digits = "零一二三四五六七八九"
    if text.isdigit():
        return int(text)
    text = text.replace("两", "二").replace("〇", "零")
    if "十" not in text:
        return digits.index(text) if len(text) == 1 and text in digits else None
    tens, _, units = text.partition("十")
    if len(tens) > 1 or len(units) > 1 or not all(c in digits for c in tens + units):
        return None
    t = digits.index(tens) if tens else 1
    u = digits.index(units) if units else 0
    return t * 10 + u


def month_number(name: str) -> int | None:
    """1-12 for an English or Italian month name or abbreviation (as MONTH_NAMES matches)."""
    return _MONTH_BY_PREFIX.get(name[:3].lower())


def _two_digit(text: str) -> int:
    yy = int(text.lstrip("'’"))
    return 1900 + yy if yy >= 90 else 2000 + yy


def _ordinal(text: str) -> int | None:
    return _ORDINALS.get(text.lower())


def _atom(m: re.Match[str], ctx: _Context) -> _Atom:
    kind = (m.lastgroup or "").split("__")[0]
    names = m.re.groupindex

    def g(name: str) -> str:  # "" for a group this kind's pattern does not have or did not fill
        return (m.group(name) or "") if name in names else ""

    s, e = m.start(), m.end()
    if kind == "skip":
        return _Atom(s, e, "skip")
    if kind in ("zhfy", "zhfy2"):
        return _Atom(s, e, "year", "zh", int(g(f"{kind}_y")))
    if kind == "zhyy":
        return _Atom(s, e, "year", "zh", _two_digit(g("zhyy_y")))
    if kind == "year":
        return _Atom(s, e, "year", "bare", int(g("yr_y")))
    if kind == "pend":
        key = next(k for k in ("pend", "pend2", "pend3") if g(f"{k}_d"))
        day = _end_date(g(f"{key}_d"))
        months = 3 if g(f"{key}_k").lower()[:1] in ("q", "t", "季", "三") else 6
        return _Atom(s, e, "period", period=_block_ending(day, ctx.fye, months) if day else None)
    if kind in _ENDING:
        day = _end_date(g(f"{kind}_d"))
        read = _year_ended if _ENDING[kind] else _period_ending
        return _Atom(s, e, "period", period=read(day, ctx.fye) if day else None)
    if kind == "fy":
        return _fy_atom(s, e, g("fy_y"), g("fy_y2") or None)
    if kind == "fis":
        key = "fis" if g("fis_y") else "fis2"
        atom = _fy_atom(s, e, g(f"{key}_y"), g(f"{key}_y2") or None)
        if atom.num is None and g(f"{key}_y2"):  # "fiscal 2023-2025": a range, not one year
            return _fy_atom(s, m.end(f"{key}_y"), g(f"{key}_y"), None)
        return atom
    if kind == "apos":
        return _Atom(s, e, "year", "apos", _two_digit(g("ap_y")))
    if kind in _REL_YEAR_OFFSET:
        return _Atom(s, e, "year", "rel", _REL_YEAR_OFFSET[kind])
    if kind in _REL_SUB_SHIFT:
        months, shift = _REL_SUB_SHIFT[kind]
        if months == 1:
            here = Period(PeriodType.M, f"{ctx.ref.year}-{ctx.ref.month:02d}")
        else:
            here = (fiscal_quarter_of if months == 3 else fiscal_half_of)(ctx.ref, ctx.fye)
        return _Atom(s, e, "period", period=shift_period(here, shift), relative=True)
    if kind == "mcode":
        return _Atom(s, e, "period", period=_year_month(int(g("mc_y")), g("mc_m")))
    if kind == "mycode":
        return _Atom(s, e, "period", period=_sub_period("M", int(g("my_m")), int(g("my_y"))))
    if kind in ("hpre", "qpre"):
        key = kind[0]
        raw_y = g(f"{key}p_y")
        y = int(raw_y) if len(raw_y) == 4 else _two_digit(raw_y)
        period = _sub_period(key.upper(), int(g(f"{key}p_n")), y)
        return _Atom(s, e, "period", period=period)
    if kind in ("qlast", "hlast"):
        return _Atom(s, e, "sub", "Q" if kind == "qlast" else "H", 4 if kind == "qlast" else 2)
    if kind == "hword":
        return _Atom(s, e, "sub", "H", _ordinal(g("hw_n") or g("hwi_n")))
    if kind == "qword":
        return _Atom(s, e, "sub", "Q", _ordinal(g("qw_n") or g("qwi_n")))
    if kind == "hzh":
        return _Atom(s, e, "sub", "H", 1 if g("hz_n") == "上" else 2)
    if kind == "qzh":
        return _Atom(s, e, "sub", "Q", chinese_number(g("qz_n")))
    if kind == "mzh":
        return _Atom(s, e, "sub", "M", chinese_number(g("mz_n")))
    if kind in ("hcode", "qcode", "tcode"):
        return _Atom(s, e, "sub", {"h": "H", "q": "Q", "t": "T"}[kind[0]], int(g(f"{kind[0]}c_n")))
    if kind == "wday":
        return _Atom(s, e, "period")  # reported as not a period: "revenue on Monday"
    if kind == "mname":
        return _Atom(s, e, "sub", "M", month_number(g("mn_n")), latin=True)
    raise AssertionError(f"unhandled period atom {kind}")  # pragma: no cover


# kinds that name a day: True for a year ending then, False for a point in time
_ENDING = {
    "yend": True, "yend2": True, "yend3": True, "yend4": True, "zhend": True, "zhend2": True,
    "point": False, "point2": False, "zhpoint": False,
}  # fmt: skip
_ZH_DAY = re.compile(r"(\d{4})\s?年\s?(\d{1,2})\s?月(?:\s?(\d{1,2}))?")
_ISO_DAY = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})")
_NAMED_DAY = re.compile(
    rf"(?:(\d{{1,2}})\D*?)?({MONTH_NAMES})\.?\s*(?:(\d{{1,2}})\D{{1,6}})?(\d{{4}})", re.IGNORECASE
)


def _end_date(text: str) -> date | None:
    """The day a period ends on, from "31 March 2024", "March 31, 2024", "2024-03-31",
    "2024年3月31日"; a month without a day ("June 2024", "2024年6月") is its last day."""
    m = _ISO_DAY.fullmatch(text.strip()) or _ZH_DAY.match(text)
    if m:
        y, mo, d = int(m.group(1)), int(m.group(2)), m.group(3)
    else:
        n = _NAMED_DAY.search(text)
        if n is None:
            return None
        y, mo, d = int(n.group(4)), month_number(n.group(2)) or 0, n.group(1) or n.group(3)
    if not (_valid_year(y) and 1 <= mo <= 12):
        return None
    last = calendar.monthrange(y, mo)[1]
    day = int(d) if d else last
    return date(y, mo, day) if 1 <= day <= last else None


def _year_ended(day: date, fiscal_year_end: str) -> Period | None:
    """The fiscal year ending on `day`; None when the company's year does not end then."""
    year = fiscal_year_of(day, fiscal_year_end)
    return Period(PeriodType.FY, str(year)) if fiscal_year_bounds(year, fiscal_year_end)[1] == day \
        else None


def _block_ending(day: date, fiscal_year_end: str, months: int) -> Period | None:
    """"The quarter to June 2025": the fiscal quarter (or half) ending that day; None when
    the company's quarters (halves) do not end then."""
    block = (fiscal_quarter_of if months == 3 else fiscal_half_of)(day, fiscal_year_end)
    return block if period_bounds(block, fiscal_year_end)[1] == day else None


def _period_ending(day: date, fiscal_year_end: str) -> Period | None:
    """"As at 31 December 2023": the longest period ending that day (a year, half, quarter or
    month); None for a day that ends none (a balance on 15 March is not in the table)."""
    for p in (Period(PeriodType.FY, str(fiscal_year_of(day, fiscal_year_end))),
              fiscal_half_of(day, fiscal_year_end), fiscal_quarter_of(day, fiscal_year_end),
              Period(PeriodType.M, f"{day.year}-{day.month:02d}")):
        if period_bounds(p, fiscal_year_end)[1] == day:
            return p
    return None


def _fy_atom(s: int, e: int, first: str, second: str | None) -> _Atom:
    if len(first) == 2:
        year: int | None = _two_digit(first)
    elif len(first) == 4:
        year = int(first)
    else:
        year = None  # FY20245, FY1
    if second is not None and year is not None:
        # FY2024-25 / FY24/25: a split fiscal year is named by the year it ends
        nxt = int(second) if len(second) == 4 else _two_digit(second)
        year = nxt if nxt == year + 1 else None
    return _Atom(s, e, "year", "fy", year)


def _valid_year(year: int | None) -> bool:
    return year is not None and MIN_YEAR <= year <= MAX_YEAR


def _year_month(year: int, month_text: str) -> Period | None:
    month = int(month_text)
    if 1 <= month <= 12:
        return Period(PeriodType.M, f"{year}-{month:02d}") if _valid_year(year) else None
    if month == (year + 1) % 100 and _valid_year(year + 1):
        return Period(PeriodType.FY, str(year + 1))  # 2024-25: a split fiscal year
    return None


def _sub_period(form: str, n: int | None, year: int | None) -> Period | None:
    """A half/quarter/month of `year`, or None when either part is out of range."""
    if not _valid_year(year) or n is None:
        return None
    if form == "H":
        return Period(PeriodType.HY, f"{year}H{n}") if 1 <= n <= 2 else None
    if form in ("Q", "T"):
        return Period(PeriodType.Q, f"{year}Q{n}") if 1 <= n <= 4 else None
    return Period(PeriodType.M, f"{year}-{n:02d}") if 1 <= n <= 12 else None


# --------------------------------------------------------------------------- merging


@dataclass(slots=True)
class _Context:
    ref: date
    fye: str
    _fy: int | None = None

    @property
    def current_fy(self) -> int:
        if self._fy is None:
            self._fy = fiscal_year_of(self.ref, self.fye)
        return self._fy


def _year_for(year: _Atom, sub_form: str, ctx: _Context) -> int | None:
    """The year a sub-period belongs to: fiscal for halves/quarters, calendar for months."""
    if year.form == "rel":
        assert year.num is not None
        if sub_form == "M":
            return ctx.ref.year + year.num
        return ctx.current_fy + year.num
    return year.num


def _month_year(year: _Atom, month: int | None, ctx: _Context) -> int | None:
    y = _year_for(year, "M", ctx)
    if y is None or month is None or year.form != "fy":
        return y
    fye_month = parse_year_end(ctx.fye)[0]
    # "March FY2025" with a June year end is March 2025, "September FY2025" is September 2024
    return y - 1 if fye_month != 12 and month > fye_month else y


def _combine(year: _Atom, sub: _Atom, ctx: _Context) -> Period | None:
    if sub.form == "M":
        return _sub_period("M", sub.num, _month_year(year, sub.num, ctx))
    return _sub_period(sub.form, sub.num, _year_for(year, sub.form, ctx))


def _gap(text: str, left: _Atom, right: _Atom | None, gap_re: re.Pattern[str]) -> int | None:
    """Length of the connector between two atoms, or None when they do not belong together."""
    if right is None or right.start - left.end > _MAX_GAP:
        return None
    return right.start - left.end if gap_re.fullmatch(text, left.end, right.start) else None


def _sub_then_year(text: str, sub: _Atom, year: _Atom | None) -> int | None:
    # Chinese puts the year first (2025年上半年): "上半年 2025年" is two periods
    if year is None or year.role != "year" or sub.zh:
        return None
    return _gap(text, sub, year, _SUB_YEAR_GAP)


def _year_then_sub(text: str, year: _Atom, sub: _Atom | None) -> int | None:
    if sub is None or sub.role != "sub" or sub.latin or year.form == "apos":
        return None
    return _gap(text, year, sub, _YEAR_SUB_GAP)


def _shared_year(text: str, sub: _Atom, nxt: _Atom | None, after: _Atom | None) -> _Atom | None:
    """The year of "Q2 2024" when `sub` is the "Q1" of "Q1 and Q2 2024", else None."""
    if nxt is None or nxt.role != "sub" or nxt.form != sub.form or sub.zh:
        return None
    if _gap(text, sub, nxt, _LIST_GAP) is None or _sub_then_year(text, nxt, after) is None:
        return None
    return after


def _merge(text: str, atoms: list[_Atom], ctx: _Context) -> list[PeriodMatch]:
    out: list[PeriodMatch] = []
    i, n = 0, len(atoms)
    while i < n:
        a = atoms[i]
        nxt = atoms[i + 1] if i + 1 < n else None
        after = atoms[i + 2] if i + 2 < n else None
        if a.role == "sub":
            if nxt is not None and _sub_then_year(text, a, nxt) is not None:
                rel = nxt.form == "rel"
                out.append(_match(text, a.start, nxt.end, _combine(nxt, a, ctx), rel))
                i += 2
                continue
            shared = _shared_year(text, a, nxt, after)
            if shared is not None:  # "Q1 and Q2 2024", "H1-H2 2025": both take the year
                out.append(
                    _match(text, a.start, a.end, _combine(shared, a, ctx), shared.form == "rel")
                )
            elif _alone_ok(text, a):
                period = _latest_complete(a.form, a.num, ctx)
                if period is not None:  # "Q3" alone: the latest complete Q3; "Q7": not a period
                    out.append(_match(text, a.start, a.end, period, True, latest=True))
        elif a.role == "year":
            tight = _year_then_sub(text, a, nxt)
            if tight is not None and nxt is not None:
                # "2023 Q3 2024": the sub-period joins the closer year (ties: the one before)
                loose = _sub_then_year(text, nxt, after)
                if loose is None or tight <= loose:
                    period = _combine(a, nxt, ctx)
                    out.append(_match(text, a.start, nxt.end, period, a.form == "rel"))
                    i += 2
                    continue
            single = _single_year(a, ctx)
            if single is not None:
                out.append(_match(text, a.start, a.end, *single))
        else:
            out.append(_match(text, a.start, a.end, a.period, a.relative))
        i += 1
    return _same_year(out)


def _single_year(a: _Atom, ctx: _Context) -> tuple[Period | None, bool] | None:
    if a.form == "rel":
        assert a.num is not None
        return Period(PeriodType.FY, str(ctx.current_fy + a.num)), True
    if a.form == "bare" and not _valid_year(a.num):
        return None  # "1320" is not a period
    if a.form == "fy" and a.num is not None and _OLD_FY <= a.num < MIN_YEAR:
        # "FY1950": written as a fiscal year, so one, if long before any data (a range
        # "FY1950 to FY2024" is then answered over the years that have figures)
        return Period(PeriodType.FY, str(a.num)), False
    return (Period(PeriodType.FY, str(a.num)) if _valid_year(a.num) else None), False


def _match(
    text: str, start: int, end: int, period: Period | None, relative: bool, *, latest: bool = False
) -> PeriodMatch:
    return PeriodMatch(start, end, text[start:end], period, relative, latest)


# a month named alone must be written in full, and "may" only after a preposition ("in May"):
# "May I ask" and "mar" (the sea, in Italian) are not months
_MONTH_ALONE = frozenset((
    "january", "february", "march", "april", "june", "july", "august", "september", "october",
    "november", "december", "gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno",
    "luglio", "agosto", "settembre", "ottobre", "novembre", "dicembre",
))
_BEFORE_MAY = re.compile(r"(?:in|of|for|during|since|until|nel|di|a|del)\s+$", re.IGNORECASE)


def _alone_ok(text: str, a: _Atom) -> bool:
    if a.num is None or a.form not in ("H", "Q", "M"):
        return False
    if a.form != "M":
        return True
    word = text[a.start : a.end].rstrip(".").lower()
    if word == "may":
        return a.latin and _BEFORE_MAY.search(text, max(0, a.start - 8), a.start) is not None
    return a.latin and word in _MONTH_ALONE


def _same_year(matches: list[PeriodMatch]) -> list[PeriodMatch]:
    """"Q1 and Q2", "H1 vs H2" named without a year are of one year: the latest in which all
    of them are over (on 15 June, Q1 alone is this year's, but with Q2 both are last year's).
    Months keep their own: "December vs March" is the latest of each."""
    alone: dict[PeriodType, int] = {}
    for m in matches:
        if m.latest and m.period is not None and m.period.type is not PeriodType.M:
            alone[m.period.type] = min(alone.get(m.period.type, m.period.year), m.period.year)
    if not alone:
        return matches
    out = []
    for m in matches:
        p = m.period
        if m.latest and p is not None and p.type in alone and p.year != alone[p.type]:
            per_year = PER_YEAR[p.type]
            p = shift_period(p, (alone[p.type] - p.year) * per_year)
            m = PeriodMatch(m.start, m.end, m.raw, p, m.relative, m.latest)
        out.append(m)
    return out


def _latest_complete(form: str, n: int | None, ctx: _Context) -> Period | None:
    """Half/quarter `n` of the latest fiscal year in which it has ended by the reference date
    (a month: of the latest calendar year), as "the last complete fiscal year" is."""
    year = ctx.ref.year if form == "M" else ctx.current_fy
    period = _sub_period(form, n, year)
    steps = {"H": -2, "Q": -4, "M": -12}[form]
    while period is not None and period_bounds(period, ctx.fye)[1] >= ctx.ref:
        period = shift_period(period, steps)
    return period


# --------------------------------------------------------------------------- public


def find_periods(
    text: str, reference_date: date, fiscal_year_end: str = "12-31"
) -> list[PeriodMatch]:
    """Every period expression in `text`, left to right, never overlapping."""
    parse_year_end(fiscal_year_end)
    ctx = _Context(reference_date, fiscal_year_end)
    folded = text.translate(_FULLWIDTH) if _FULLWIDTH_CHAR.search(text) else text
    found = list(_ATOM_RE.finditer(folded))
    phrase_end = 0
    for token in _TOKEN.finditer(folded):
        alts = _PHRASES.get(token.group().lower())
        phrases = _phrase_pattern(alts) if alts else None
        if phrases is not None and token.start() >= phrase_end:
            m = phrases.match(folded, token.start())
            if m is not None:
                found.append(m)
                phrase_end = m.end()
    if not found:
        return []
    found.sort(key=lambda m: (m.start(), -m.end()))
    atoms, last_end = [], 0
    for m in found:
        # earliest first, then longest; a "skip" span hides whatever it covers
        if m.start() >= last_end:
            atom = _atom(m, ctx)
            last_end = atom.end  # may end before the match: "fiscal 2023" of "fiscal 2023-2025"
            if atom.role != "skip":
                atom.zh = _CJK.search(m.group()) is not None
                atoms.append(atom)
    return _merge(text, atoms, ctx) if atoms else []


_TRAILING = " \t\r\n.,;:!?。，；：！？"


def normalize_period(
    text: str, reference_date: date, fiscal_year_end: str = "12-31"
) -> Period | None:
    """The period when the whole of `text` is one period expression or code, else None."""
    stripped = text.strip(_TRAILING)
    found = find_periods(stripped, reference_date, fiscal_year_end)
    if len(found) == 1 and found[0].start == 0 and found[0].end == len(stripped):
        return found[0].period
    return None
