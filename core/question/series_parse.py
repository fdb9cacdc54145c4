"""Which periods a series or a span asks for: "from FY2021 to FY2025", "2021-25", "between
2021 and 2025", "last 3 years", "2025 quarter by quarter", "revenue trend" (the last five fiscal
years), "year to date", "the last twelve months". Rules only, on the periods
core.question.periods found; core.question.range_parse decides the rest of the table.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re

from core.contracts.types import Period, PeriodType
from core.fiscal_calendar import (
    fiscal_half_of,
    fiscal_quarter_of,
    fiscal_year_bounds,
    fiscal_year_of,
    last_complete_fiscal_year,
    shift_period,
)
from core.question.analysis_cues import (
    AND_GAP,
    AVERAGE,
    GRAIN,
    LAST_N,
    LTM,
    NUM_WORDS,
    RANGE_BEFORE,
    RANGE_GAP,
    SPLIT_YEARS,
    TREND,
    UNIT_WORDS,
    YTD,
)
from core.question.period_atoms import chinese_number
from core.question.periods import PeriodMatch
from core.question.table_shape import MAX_SERIES, Analysis

__all__ = [
    "expand",
    "explicit_range",
    "months_span",
    "periods_within",
    "range_ends",
    "series_asked",
]

TREND_YEARS = 5  # "revenue trend" with no period: the last five fiscal years


def months_span(text: str, reference_date: dt.date, fye: str) -> Analysis | None:
    """"Revenue year to date", "ordini ultimi dodici mesi", "今年以来营收": the sum (an average
    when asked) over the months from the fiscal year's start, or the last twelve, to the last
    complete month; None when neither is asked, or a grain or trend word asks for a series."""
    ytd, ltm = YTD.search(text), LTM.search(text)
    cue = ytd or ltm
    if cue is None or TREND.search(text) or any(p.search(text) for _, p in GRAIN):
        return None
    last = reference_date.replace(day=1) - dt.timedelta(days=1)
    last_month = Period(PeriodType.M, f"{last.year}-{last.month:02d}")
    if ytd is not None:
        start = fiscal_year_bounds(fiscal_year_of(reference_date, fye), fye)[0]
        first = Period(PeriodType.M, f"{start.year}-{start.month:02d}")
        if first.value > last_month.value:  # the year's first month is not over yet
            last_month = first
        over = [first, *(expand(first, last_month) or [])[1:]]
    else:
        over = [shift_period(last_month, -i) for i in range(11, -1, -1)]
    mean = AVERAGE.search(text)
    spans = (cue.span(), *((mean.span(),) if mean else ()))
    return Analysis("aggregate", periods=tuple(over), dimension="period",
                    measure="average" if mean else "sum", spans=spans)


def series_asked(
    text: str, matches: list[PeriodMatch], reference_date: dt.date, fiscal_year_end: str
) -> Analysis | None:
    spans: list[tuple[int, int]] = []
    grain = None
    for kind, pattern in GRAIN:
        m = pattern.search(text)
        if m:
            grain, spans = kind, [m.span()]
            break
    trend = TREND.search(text)
    if trend:
        spans.append(trend.span())
    periods = explicit_range(text, matches)
    ends = _long_range(text, matches) if periods is None else None
    if ends is not None:
        periods = _tail(*ends)
    if periods is None:
        last_n = LAST_N.search(text)
        if last_n is not None:
            periods = _last_n(last_n, reference_date, fiscal_year_end)
            spans.append(last_n.span())
    if periods is None and (grain or trend):
        found = [m.period for m in matches if m.period is not None]
        if len(found) == 1 and found[0].type is PeriodType.FY:
            periods = [found[0]]
            grain = grain or "Q"  # "revenue trend in 2025": its quarters
        elif not found and not [m for m in matches if m.period is None]:
            last = last_complete_fiscal_year(reference_date, fiscal_year_end)
            periods = [shift_period(last, -i) for i in range(TREND_YEARS - 1, -1, -1)]
            if grain:
                periods = [last]
    if not periods:
        return None
    if grain:
        periods = [p for fy in periods for p in periods_within(fy, grain, fiscal_year_end)]
    if len(periods) < 2 or len(periods) > MAX_SERIES:
        return None
    return Analysis("series", periods=tuple(periods), spans=tuple(spans), asked=ends or ())


def explicit_range(text: str, matches: list[PeriodMatch]) -> list[Period] | None:
    """Every period from the first to the second of two joined by a range connector."""
    ends = range_ends(text, matches)
    return expand(*ends) if ends is not None else None


def _long_range(text: str, matches: list[PeriodMatch]) -> tuple[Period, Period] | None:
    """The two ends of a range too long for one table ("FY1800–FY2024"), else None."""
    ends = range_ends(text, matches)
    if ends is None or ends[0].type is not ends[1].type or ends[1].value <= ends[0].value:
        return None
    return ends if expand(*ends) is None else None


def _tail(first: Period, last: Period) -> list[Period]:
    """The most recent MAX_SERIES periods of first..last."""
    out = [last]
    while len(out) < MAX_SERIES and out[-1] != first:
        out.append(shift_period(out[-1], -1))
    return out[::-1]


def range_ends(text: str, matches: list[PeriodMatch]) -> tuple[Period, Period] | None:
    for m in matches:
        split = SPLIT_YEARS.fullmatch(m.raw) if m.period is None else None
        if split:  # "2021-25": a range the period grammar rejects as a split fiscal year
            first, last = int(split.group(1)), int(split.group(1)[:2] + split.group(2))
            if last > first:
                return Period(PeriodType.FY, str(first)), Period(PeriodType.FY, str(last))
    for a, b in itertools.pairwise(matches):
        if a.period is None or b.period is None or a.period.type is not b.period.type:
            continue
        gap = text[a.end : b.start]
        before = text[max(0, a.start - 24) : a.start]
        joined = RANGE_GAP.fullmatch(gap) is not None
        if not joined and AND_GAP.fullmatch(gap) and RANGE_BEFORE.search(before):
            joined = True  # "between 2021 and 2025"; "2021 and 2025" stays two periods
        if joined and RANGE_BEFORE.search(before) is None and gap.strip() in ("a", "al"):
            joined = False  # "a"/"al" alone ("Q1 al 2025"?) only after "da"/"dal"
        if joined:
            return a.period, b.period
    return None


def expand(first: Period, last: Period) -> list[Period] | None:
    """first..last inclusive (same type), or None when reversed or too long."""
    if first.type is not last.type or last.value <= first.value:
        return None
    out = [first]
    while out[-1] != last:
        if len(out) > MAX_SERIES:
            return None
        out.append(shift_period(out[-1], 1))
    return out if len(out) >= 2 else None


def _last_n(m: re.Match[str], reference_date: dt.date, fye: str) -> list[Period] | None:
    raw_n = (m.group(1) or m.group(3) or "").lower()
    n = NUM_WORDS.get(raw_n) or chinese_number(raw_n)
    unit = UNIT_WORDS.get(re.sub(r"\s+", " ", (m.group(2) or m.group(4) or "").lower()))
    if not n or unit is None or not 2 <= n <= MAX_SERIES:
        return None
    if unit == "FY":
        last = last_complete_fiscal_year(reference_date, fye)
    elif unit == "Q":
        last = shift_period(fiscal_quarter_of(reference_date, fye), -1)
    elif unit == "HY":
        last = shift_period(fiscal_half_of(reference_date, fye), -1)
    else:
        prev = reference_date.replace(day=1) - dt.timedelta(days=1)
        last = Period(PeriodType.M, f"{prev.year}-{prev.month:02d}")
    return [shift_period(last, -i) for i in range(n - 1, -1, -1)]


def periods_within(fy: Period, grain: str, fye: str) -> list[Period]:
    """The quarters, halves or months of a fiscal year (months: calendar months it spans)."""
    if fy.type is not PeriodType.FY or grain in ("FY", ""):  # "how many years …": years
        return [fy]
    year = fy.year
    if grain == "Q":
        return [Period(PeriodType.Q, f"{year}Q{i}") for i in range(1, 5)]
    if grain == "HY":
        return [Period(PeriodType.HY, f"{year}H{i}") for i in (1, 2)]
    start = fiscal_year_bounds(year, fye)[0]
    out = []
    for i in range(12):
        index = start.year * 12 + start.month - 1 + i
        out.append(Period(PeriodType.M, f"{index // 12}-{index % 12 + 1:02d}"))
    return out
