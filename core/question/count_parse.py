"""Counting questions: "how many units had revenue above €100M in FY2024?", "how many years did
margin fall?", "quanti mesi le vendite hanno superato 10 milioni?", "有几个区域营收超过1亿？".

Rules only; the count itself is computed in code (core.figures.counts). A threshold is read as
an amount with its scale ("€100M", "100 million", "100 milioni", "1亿", "5万"); the executor
converts it into the metric's unit, so "€100M" against a metric in EUR_K is 100,000.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

from core.contracts.types import Period

__all__ = ["detect_count", "read_amount"]

_COUNT = re.compile(
    r"(?<!\w)how\s+many\s+(?P<en>\w+(?:\s+units?)?)"
    r"|(?<!\w)(?:quant[ie])\s+(?P<it>\w+)"
    r"|(?:有|共有)?(?:几个|多少个|几)\s*(?P<zh>财年|年度|年|季度|个月|月|半年|区域|地区|市场|子公司"
    r"|部门|主体|单位|分部)",
    re.IGNORECASE,
)
_PERIOD_WORDS = {
    "year": "FY", "years": "FY", "fiscal years": "FY", "anni": "FY", "esercizi": "FY",
    "quarter": "Q", "quarters": "Q", "trimestri": "Q", "halves": "HY", "semestri": "HY",
    "month": "M", "months": "M", "mesi": "M",
    "财年": "FY", "年度": "FY", "年": "FY", "季度": "Q", "个月": "M", "月": "M", "半年": "HY",
}
# the Italian cue words apart: a threshold after them is written the Italian way ("2.500")
_ABOVE_IT = r"sopra|oltre|più\s+di|superato|superano|superior[ei]\s+a|almeno"
_BELOW_IT = r"sotto|meno\s+di|inferior[ei]\s+a"
_ABOVE = re.compile(
    r"(?<!\w)(?:above|over|more\s+than|greater\s+than|exceed(?:ed|s)?|at\s+least|higher\s+than"
    rf"|{_ABOVE_IT})(?!\w)|超过|高于|多于|以上|大于",
    re.IGNORECASE,
)
_BELOW = re.compile(
    rf"(?<!\w)(?:below|under|less\s+than|fewer\s+than|lower\s+than|{_BELOW_IT})"
    r"(?!\w)|低于|少于|不足|以下|小于",
    re.IGNORECASE,
)
_ITALIAN_CUE = re.compile(f"{_ABOVE_IT}|{_BELOW_IT}", re.IGNORECASE)
_FELL = re.compile(
    r"(?<!\w)(?:fall|fell|fallen|decline[ds]?|decrease[ds]?|drop(?:ped)?|shrink|shrank"
    r"|calat[oaie]|sceso|scesa|scesi|diminuit[oaie])(?!\w)|下降|下滑|减少|降低",
    re.IGNORECASE,
)
_ROSE = re.compile(
    r"(?<!\w)(?:rise|rose|risen|grow|grew|grown|increase[ds]?|improve[ds]?"
    r"|cresciut[oaie]|aumentat[oaie]|salit[oaie])(?!\w)|增长|上升|增加|提高",
    re.IGNORECASE,
)
# an amount: "€100M", "100 million", "100 milioni", "1.5bn", "1亿", "5万"
_AMOUNT = re.compile(
    r"(?P<cur>[€$£¥])?\s?(?P<num>\d[\d,.]*)\s?(?P<scale>billion|bn|miliardi|miliardo|million[s]?"
    r"|milioni|milione|mln|mio|thousand|mila|k|m|b|亿|万|千)?(?![A-Za-z])",
    re.IGNORECASE,
)
_SCALES = {
    "billion": "1e9", "bn": "1e9", "b": "1e9", "miliardi": "1e9", "miliardo": "1e9",
    "million": "1e6", "millions": "1e6", "milioni": "1e6", "milione": "1e6", "mln": "1e6",
    "mio": "1e6", "m": "1e6", "thousand": "1e3", "mila": "1e3", "k": "1e3", "亿": "1e8",
    "万": "1e4", "千": "1e3",
}


def read_amount(text: str, *, decimal_comma: bool = False) -> tuple[Decimal, bool] | None:
    """The first amount in `text` and whether it carried a scale or currency (then it is in
    base units: 1e8 for "100 million"; without one it is in the metric's own unit).
    `decimal_comma`: the words around it are Italian, where "2.500" is two thousand five
    hundred and "2,5" two and a half (English and Chinese: "2,500" and "2.5")."""
    for m in _AMOUNT.finditer(text):
        raw = m.group("num").rstrip(".,")
        if not raw:
            continue
        try:
            value = Decimal(_plain_digits(raw, decimal_comma))
        except InvalidOperation:
            continue
        scale = (m.group("scale") or "").lower()
        if scale:
            return value * Decimal(_SCALES[scale]), True
        return value, bool(m.group("cur"))
    return None


def _plain_digits(raw: str, decimal_comma: bool) -> str:
    """`raw` ("2,500", "2.500", "1.234,5", "2,5") as plain decimal digits. Both marks: the last
    is the decimal one. One mark used several times: grouping. One mark once: the language's
    decimal mark is decimal; the other mark is grouping when three digits follow it ("2,500" in
    English), else decimal ("2,5" written the Italian way in an English sentence)."""
    decimal, grouping = (",", ".") if decimal_comma else (".", ",")
    if "," in raw and "." in raw:
        decimal = "," if raw.rindex(",") > raw.rindex(".") else "."
        grouping = "." if decimal == "," else ","
    else:
        mark = "," if "," in raw else "." if "." in raw else ""
        if not mark:
            return raw
        if raw.count(mark) > 1 or (mark == grouping and len(raw) - raw.index(mark) - 1 == 3):
            return raw.replace(mark, "")
        return raw.replace(mark, ".")
    return raw.replace(grouping, "").replace(decimal, ".")


def detect_count(
    text: str, periods: list[Period], metrics: list[str]
) -> dict[str, Any] | None:
    """What a counting question counts: {"over": "entity"|"period", "grain": FY|Q|HY|M,
    "test": "above"|"below"|"fell"|"rose", "amount": Decimal|None, "scaled": bool,
    "span": (start, end)}; None for any other question. `text` has the glossary's names and
    the periods blanked."""
    m = _COUNT.search(text)
    if m is None or len(metrics) != 1:
        return None
    word = (m.group("en") or m.group("it") or m.group("zh") or "").casefold()
    grain = _PERIOD_WORDS.get(word)
    rest = text[m.end():]
    above, below = _ABOVE.search(rest), _BELOW.search(rest)
    if above or below:
        cue = above if above and (not below or above.start() < below.start()) else below
        assert cue is not None
        italian = bool(_ITALIAN_CUE.fullmatch(cue.group(0)))
        amount = (read_amount(rest[cue.end():], decimal_comma=italian)
                  or read_amount(rest[: cue.start()], decimal_comma=italian))
        if amount is None:
            return None
        test = "above" if cue is above else "below"
        value, scaled = amount
    elif _FELL.search(rest) or _ROSE.search(rest) or (m.group("zh") and (
            _FELL.search(text) or _ROSE.search(text))):  # "利润率下降了几年": the verb first
        if grain is None:
            return None  # "how many units fell": not a count this module knows
        said = rest if _FELL.search(rest) or _ROSE.search(rest) else text
        test, value, scaled = ("fell" if _FELL.search(said) else "rose"), None, False
    else:
        return None
    return {"over": "period" if grain else "entity", "grain": grain or "", "test": test,
            "amount": value, "scaled": scaled, "span": m.span()}
