"""The fiscal calendar: which fiscal year, half or quarter a day falls in, and a period's days.

Pure arithmetic on a period code and the fiscal year end ("MM-DD"); no text is read here
(core.question.periods finds periods in text). A fiscal year is named by the calendar year in
which it ends: with "06-30", FY2024 runs 2023-07-01..2024-06-30. Halves and quarters are 6- and
3-month blocks from the fiscal year start, named after their fiscal year (`2024H1`, `2024Q3`);
months are calendar months. It sits below knowledge and question so both can use it.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, timedelta
from functools import lru_cache

from core.contracts.types import Period, PeriodType


@lru_cache(maxsize=64)
def parse_year_end(fiscal_year_end: str) -> tuple[int, int]:
    m = re.fullmatch(r"\s*(\d{1,2})-(\d{1,2})\s*", fiscal_year_end)
    if not m:
        raise ValueError(f"fiscal year end must be MM-DD, got {fiscal_year_end!r}")
    month, day = int(m.group(1)), int(m.group(2))
    if not 1 <= month <= 12 or not 1 <= day <= calendar.monthrange(2000, month)[1]:
        raise ValueError(f"fiscal year end is not a day of the year: {fiscal_year_end!r}")
    return month, day


def _year_end_date(year: int, fiscal_year_end: str) -> date:
    month, day = parse_year_end(fiscal_year_end)
    return date(year, month, min(day, calendar.monthrange(year, month)[1]))


def _add_months(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    return date(year, month + 1, min(day.day, calendar.monthrange(year, month + 1)[1]))


def fiscal_year_of(day: date, fiscal_year_end: str) -> int:
    """The fiscal year containing `day`, named by the calendar year in which it ends."""
    return day.year if day <= _year_end_date(day.year, fiscal_year_end) else day.year + 1


def fiscal_year_bounds(year: int, fiscal_year_end: str) -> tuple[date, date]:
    """First and last day of fiscal year `year`."""
    return _year_end_date(year - 1, fiscal_year_end) + timedelta(days=1), _year_end_date(
        year, fiscal_year_end
    )


def _block_of(day: date, fiscal_year_end: str, months: int) -> tuple[int, int]:
    year = fiscal_year_of(day, fiscal_year_end)
    start = fiscal_year_bounds(year, fiscal_year_end)[0]
    index = 1
    while index < 12 // months and _add_months(start, months * index) <= day:
        index += 1
    return year, index


def fiscal_quarter_of(day: date, fiscal_year_end: str) -> Period:
    """The fiscal quarter containing `day` (`2025Q3`)."""
    year, q = _block_of(day, fiscal_year_end, 3)
    return Period(PeriodType.Q, f"{year}Q{q}")


def fiscal_half_of(day: date, fiscal_year_end: str) -> Period:
    """The fiscal half-year containing `day` (`2025H1`)."""
    year, h = _block_of(day, fiscal_year_end, 6)
    return Period(PeriodType.HY, f"{year}H{h}")


def last_complete_fiscal_year(reference_date: date, fiscal_year_end: str) -> Period:
    """The fiscal year before the one containing the reference date (the default assumption)."""
    return Period(PeriodType.FY, str(fiscal_year_of(reference_date, fiscal_year_end) - 1))


PER_YEAR = {PeriodType.FY: 1, PeriodType.HY: 2, PeriodType.Q: 4, PeriodType.M: 12}


def _period_index(p: Period) -> tuple[int, int]:
    """(year, 0-based position inside the year) of a period code."""
    if p.type is PeriodType.FY:
        return int(p.value), 0
    if p.type is PeriodType.M:
        return int(p.value[:4]), int(p.value[5:7]) - 1
    return int(p.value[:4]), int(p.value[5:]) - 1


def _make_period(kind: PeriodType, year: int, pos: int) -> Period:
    if kind is PeriodType.FY:
        return Period(kind, str(year))
    if kind is PeriodType.HY:
        return Period(kind, f"{year}H{pos + 1}")
    if kind is PeriodType.Q:
        return Period(kind, f"{year}Q{pos + 1}")
    return Period(kind, f"{year}-{pos + 1:02d}")


def shift_period(p: Period, steps: int) -> Period:
    """The period `steps` periods of the same type later (negative: earlier)."""
    per_year = PER_YEAR[p.type]
    year, pos = _period_index(p)
    year, pos = divmod(year * per_year + pos + steps, per_year)
    return _make_period(p.type, year, pos)


def previous_period(p: Period) -> Period:
    """FY2025 -> FY2024, 2025H1 -> 2024H2, 2025Q1 -> 2024Q4, 2025-01 -> 2024-12."""
    return shift_period(p, -1)


def period_bounds(p: Period, fiscal_year_end: str) -> tuple[date, date]:
    """First and last day of a period (months are calendar months)."""
    year, pos = _period_index(p)
    if p.type is PeriodType.M:
        return date(year, pos + 1, 1), date(year, pos + 1, calendar.monthrange(year, pos + 1)[1])
    start = fiscal_year_bounds(year, fiscal_year_end)[0]
    months = 12 // PER_YEAR[p.type]
    first = _add_months(start, months * pos)
    return first, _add_months(start, months * (pos + 1)) - timedelta(days=1)
