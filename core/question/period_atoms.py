"""One piece of a period expression, read: a year, a half/quarter/month, a complete code such
as 2025H1, a relative expression ("last year", 去年), or a day that ends a period ("the year ended
30 June 2024"). Each match of core.question.period_grammar's patterns becomes an Atom here;
core.question.periods then joins adjacent atoms ("Q3" + " of " + "2023") into periods.

Pure functions of the match, the reference date and the fiscal year end, like the rest of the
period reading.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date

from core.contracts.types import Period, PeriodType
from core.fiscal_calendar import (
    fiscal_half_of,
    fiscal_quarter_of,
    fiscal_year_bounds,
    fiscal_year_of,
    period_bounds,
    shift_period,
)
from core.question.period_grammar import (
    MONTH_BY_PREFIX,
    MONTH_NAMES,
    ORDINALS,
    REL_SUB_SHIFT,
    REL_YEAR_OFFSET,
)

__all__ = [
    "MAX_YEAR",
    "MIN_YEAR",
    "Atom",
    "AtomContext",
    "chinese_number",
    "month_number",
    "read_atom",
    "sub_period",
    "valid_year",
]

MIN_YEAR, MAX_YEAR = 1990, 2100


@dataclass(slots=True)
class AtomContext:
    ref: date
    fye: str
    _fy: int | None = None

    @property
    def current_fy(self) -> int:
        if self._fy is None:
            self._fy = fiscal_year_of(self.ref, self.fye)
        return self._fy


@dataclass(slots=True)
class Atom:
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
    return MONTH_BY_PREFIX.get(name[:3].lower())


def _two_digit(text: str) -> int:
    yy = int(text.lstrip("'’"))
    return 1900 + yy if yy >= 90 else 2000 + yy


def _ordinal(text: str) -> int | None:
    return ORDINALS.get(text.lower())


def read_atom(m: re.Match[str], ctx: AtomContext) -> Atom:
    kind = (m.lastgroup or "").split("__")[0]
    names = m.re.groupindex

    def g(name: str) -> str:  # "" for a group this kind's pattern does not have or did not fill
        return (m.group(name) or "") if name in names else ""

    s, e = m.start(), m.end()
    if kind == "skip":
        return Atom(s, e, "skip")
    if kind in ("zhfy", "zhfy2"):
        return Atom(s, e, "year", "zh", int(g(f"{kind}_y")))
    if kind == "zhyy":
        return Atom(s, e, "year", "zh", _two_digit(g("zhyy_y")))
    if kind == "year":
        return Atom(s, e, "year", "bare", int(g("yr_y")))
    if kind == "pend":
        key = next(k for k in ("pend", "pend2", "pend3") if g(f"{k}_d"))
        day = _end_date(g(f"{key}_d"))
        months = 3 if g(f"{key}_k").lower()[:1] in ("q", "t", "季", "三") else 6
        return Atom(s, e, "period", period=_block_ending(day, ctx.fye, months) if day else None)
    if kind in _ENDING:
        day = _end_date(g(f"{kind}_d"))
        read = _year_ended if _ENDING[kind] else _period_ending
        return Atom(s, e, "period", period=read(day, ctx.fye) if day else None)
    if kind == "fy":
        return _fy_atom(s, e, g("fy_y"), g("fy_y2") or None)
    if kind == "fis":
        key = "fis" if g("fis_y") else "fis2"
        atom = _fy_atom(s, e, g(f"{key}_y"), g(f"{key}_y2") or None)
        if atom.num is None and g(f"{key}_y2"):  # "fiscal 2023-2025": a range, not one year
            return _fy_atom(s, m.end(f"{key}_y"), g(f"{key}_y"), None)
        return atom
    if kind == "apos":
        return Atom(s, e, "year", "apos", _two_digit(g("ap_y")))
    if kind in REL_YEAR_OFFSET:
        return Atom(s, e, "year", "rel", REL_YEAR_OFFSET[kind])
    if kind in REL_SUB_SHIFT:
        months, shift = REL_SUB_SHIFT[kind]
        if months == 1:
            here = Period(PeriodType.M, f"{ctx.ref.year}-{ctx.ref.month:02d}")
        else:
            here = (fiscal_quarter_of if months == 3 else fiscal_half_of)(ctx.ref, ctx.fye)
        return Atom(s, e, "period", period=shift_period(here, shift), relative=True)
    if kind == "mcode":
        return Atom(s, e, "period", period=_year_month(int(g("mc_y")), g("mc_m")))
    if kind == "mycode":
        return Atom(s, e, "period", period=sub_period("M", int(g("my_m")), int(g("my_y"))))
    if kind in ("hpre", "qpre"):
        key = kind[0]
        raw_y = g(f"{key}p_y")
        y = int(raw_y) if len(raw_y) == 4 else _two_digit(raw_y)
        period = sub_period(key.upper(), int(g(f"{key}p_n")), y)
        return Atom(s, e, "period", period=period)
    if kind in ("qlast", "hlast"):
        return Atom(s, e, "sub", "Q" if kind == "qlast" else "H", 4 if kind == "qlast" else 2)
    if kind == "hword":
        return Atom(s, e, "sub", "H", _ordinal(g("hw_n") or g("hwi_n")))
    if kind == "qword":
        return Atom(s, e, "sub", "Q", _ordinal(g("qw_n") or g("qwi_n")))
    if kind == "hzh":
        return Atom(s, e, "sub", "H", 1 if g("hz_n") == "上" else 2)
    if kind == "qzh":
        return Atom(s, e, "sub", "Q", chinese_number(g("qz_n")))
    if kind == "mzh":
        return Atom(s, e, "sub", "M", chinese_number(g("mz_n")))
    if kind in ("hcode", "qcode", "tcode"):
        return Atom(s, e, "sub", {"h": "H", "q": "Q", "t": "T"}[kind[0]], int(g(f"{kind[0]}c_n")))
    if kind == "wday":
        return Atom(s, e, "period")  # reported as not a period: "revenue on Monday"
    if kind == "mname":
        return Atom(s, e, "sub", "M", month_number(g("mn_n")), latin=True)
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
    if not (valid_year(y) and 1 <= mo <= 12):
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


def _fy_atom(s: int, e: int, first: str, second: str | None) -> Atom:
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
    return Atom(s, e, "year", "fy", year)


def valid_year(year: int | None) -> bool:
    return year is not None and MIN_YEAR <= year <= MAX_YEAR


def _year_month(year: int, month_text: str) -> Period | None:
    month = int(month_text)
    if 1 <= month <= 12:
        return Period(PeriodType.M, f"{year}-{month:02d}") if valid_year(year) else None
    if month == (year + 1) % 100 and valid_year(year + 1):
        return Period(PeriodType.FY, str(year + 1))  # 2024-25: a split fiscal year
    return None


def sub_period(form: str, n: int | None, year: int | None) -> Period | None:
    """A half/quarter/month of `year`, or None when either part is out of range."""
    if not valid_year(year) or n is None:
        return None
    if form == "H":
        return Period(PeriodType.HY, f"{year}H{n}") if 1 <= n <= 2 else None
    if form in ("Q", "T"):
        return Period(PeriodType.Q, f"{year}Q{n}") if 1 <= n <= 4 else None
    return Period(PeriodType.M, f"{year}-{n:02d}") if 1 <= n <= 12 else None
