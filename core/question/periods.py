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
2025H1, a relative expression), by the patterns of core.question.period_grammar, each read by
core.question.period_atoms; then adjacent atoms joined by a connector ("Q3" + " of " + "2023",
"去年" + "上半年") are merged into one period, here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

from core.contracts.types import Period, PeriodType
from core.fiscal_calendar import PER_YEAR, parse_year_end, period_bounds, shift_period
from core.question.period_atoms import (
    MIN_YEAR,
    Atom,
    AtomContext,
    read_atom,
    sub_period,
    valid_year,
)
from core.question.period_grammar import (
    ATOM_RE,
    CJK,
    FULLWIDTH,
    FULLWIDTH_CHAR,
    LIST_GAP,
    MAX_GAP,
    PHRASES,
    SUB_YEAR_GAP,
    TOKEN,
    YEAR_SUB_GAP,
    phrase_pattern,
)

__all__ = ["PeriodMatch", "find_periods", "normalize_period"]

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


def _year_for(year: Atom, sub_form: str, ctx: AtomContext) -> int | None:
    """The year a sub-period belongs to: fiscal for halves/quarters, calendar for months."""
    if year.form == "rel":
        assert year.num is not None
        if sub_form == "M":
            return ctx.ref.year + year.num
        return ctx.current_fy + year.num
    return year.num


def _month_year(year: Atom, month: int | None, ctx: AtomContext) -> int | None:
    y = _year_for(year, "M", ctx)
    if y is None or month is None or year.form != "fy":
        return y
    fye_month = parse_year_end(ctx.fye)[0]
    # "March FY2025" with a June year end is March 2025, "September FY2025" is September 2024
    return y - 1 if fye_month != 12 and month > fye_month else y


def _combine(year: Atom, sub: Atom, ctx: AtomContext) -> Period | None:
    if sub.form == "M":
        return sub_period("M", sub.num, _month_year(year, sub.num, ctx))
    return sub_period(sub.form, sub.num, _year_for(year, sub.form, ctx))


def _gap(text: str, left: Atom, right: Atom | None, gap_re: re.Pattern[str]) -> int | None:
    """Length of the connector between two atoms, or None when they do not belong together."""
    if right is None or right.start - left.end > MAX_GAP:
        return None
    return right.start - left.end if gap_re.fullmatch(text, left.end, right.start) else None


def _sub_then_year(text: str, sub: Atom, year: Atom | None) -> int | None:
    # Chinese puts the year first (2025年上半年): "上半年 2025年" is two periods
    if year is None or year.role != "year" or sub.zh:
        return None
    return _gap(text, sub, year, SUB_YEAR_GAP)


def _year_then_sub(text: str, year: Atom, sub: Atom | None) -> int | None:
    if sub is None or sub.role != "sub" or sub.latin or year.form == "apos":
        return None
    return _gap(text, year, sub, YEAR_SUB_GAP)


def _shared_year(text: str, sub: Atom, nxt: Atom | None, after: Atom | None) -> Atom | None:
    """The year of "Q2 2024" when `sub` is the "Q1" of "Q1 and Q2 2024", else None."""
    if nxt is None or nxt.role != "sub" or nxt.form != sub.form or sub.zh:
        return None
    if _gap(text, sub, nxt, LIST_GAP) is None or _sub_then_year(text, nxt, after) is None:
        return None
    return after


def _merge(text: str, atoms: list[Atom], ctx: AtomContext) -> list[PeriodMatch]:
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


def _single_year(a: Atom, ctx: AtomContext) -> tuple[Period | None, bool] | None:
    if a.form == "rel":
        assert a.num is not None
        return Period(PeriodType.FY, str(ctx.current_fy + a.num)), True
    if a.form == "bare" and not valid_year(a.num):
        return None  # "1320" is not a period
    if a.form == "fy" and a.num is not None and _OLD_FY <= a.num < MIN_YEAR:
        # "FY1950": written as a fiscal year, so one, if long before any data (a range
        # "FY1950 to FY2024" is then answered over the years that have figures)
        return Period(PeriodType.FY, str(a.num)), False
    return (Period(PeriodType.FY, str(a.num)) if valid_year(a.num) else None), False


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


def _alone_ok(text: str, a: Atom) -> bool:
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


def _latest_complete(form: str, n: int | None, ctx: AtomContext) -> Period | None:
    """Half/quarter `n` of the latest fiscal year in which it has ended by the reference date
    (a month: of the latest calendar year), as "the last complete fiscal year" is."""
    year = ctx.ref.year if form == "M" else ctx.current_fy
    period = sub_period(form, n, year)
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
    ctx = AtomContext(reference_date, fiscal_year_end)
    folded = text.translate(FULLWIDTH) if FULLWIDTH_CHAR.search(text) else text
    found = list(ATOM_RE.finditer(folded))
    phrase_end = 0
    for token in TOKEN.finditer(folded):
        alts = PHRASES.get(token.group().lower())
        phrases = phrase_pattern(alts) if alts else None
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
            atom = read_atom(m, ctx)
            last_end = atom.end  # may end before the match: "fiscal 2023" of "fiscal 2023-2025"
            if atom.role != "skip":
                atom.zh = CJK.search(m.group()) is not None
                atoms.append(atom)
    return _merge(text, atoms, ctx) if atoms else []


_TRAILING = " \t\r\n.,;:!?。，；：！？"


def normalize_period(
    text: str, reference_date: date, fiscal_year_end: str = "12-31"
) -> Period | None:
    """The period when the whole of `text` is one period expression or code, else None."""
    return _one_period(text, reference_date, fiscal_year_end)


@lru_cache(maxsize=1024)
def _one_period(text: str, reference_date: date, fiscal_year_end: str) -> Period | None:
    """Plans name periods by short codes (FY2024, 2025-Q3), a small vocabulary that every
    lookup reads again: each is read once per reference date and year end."""
    stripped = text.strip(_TRAILING)
    found = find_periods(stripped, reference_date, fiscal_year_end)
    if len(found) == 1 and found[0].start == 0 and found[0].end == len(stripped):
        return found[0].period
    return None
