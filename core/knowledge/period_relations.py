"""How a fiscal year's periods add up, for metrics that add up over time (flows).

With the company's fiscal year end, fiscal year Y is the sum of its two halves, its four
quarters and its twelve calendar months; a half is the sum of its two quarters and six months; a
quarter the sum of its three months. Disclosure control (core.knowledge.disclosure) counts these
relations beside the member ones: a withheld total must not come back as the sum of its
quarters, nor a quarter as the year minus the other three.
"""

from __future__ import annotations

from functools import lru_cache

from core.contracts.types import Period, PeriodType
from core.fiscal_calendar import fiscal_year_of, period_bounds

_HALVES = ((1, 2), (3, 4))  # the quarters of each half


def fiscal_year(period: Period, fiscal_year_end: str) -> int:
    """The fiscal year a period belongs to (a calendar month by its first day)."""
    if period.type is PeriodType.M:
        return fiscal_year_of(period_bounds(period, fiscal_year_end)[0], fiscal_year_end)
    return period.year


@lru_cache(maxsize=4096)
def year_periods(year: int, fiscal_year_end: str) -> tuple[Period, ...]:
    """Every period of fiscal year `year`: the year, its halves, quarters and months."""
    return (Period(PeriodType.FY, str(year)),
            *(Period(PeriodType.HY, f"{year}H{h}") for h in (1, 2)),
            *(Period(PeriodType.Q, f"{year}Q{q}") for q in (1, 2, 3, 4)),
            *_months(year, fiscal_year_end))


def related_periods(period: Period, fiscal_year_end: str) -> tuple[Period, ...]:
    """The other periods of `period`'s fiscal year: together with it, any of them can be
    worked out from the rest through `time_relations`."""
    return tuple(p for p in year_periods(fiscal_year(period, fiscal_year_end), fiscal_year_end)
                 if p != period)


@lru_cache(maxsize=4096)
def time_relations(year: int, fiscal_year_end: str) -> tuple[tuple[Period, tuple[Period, ...]],
                                                              ...]:
    """(total, parts) for every way fiscal year `year` and its halves and quarters add up."""
    fy = Period(PeriodType.FY, str(year))
    halves = tuple(Period(PeriodType.HY, f"{year}H{h}") for h in (1, 2))
    quarters = tuple(Period(PeriodType.Q, f"{year}Q{q}") for q in (1, 2, 3, 4))
    months = _months(year, fiscal_year_end)
    out: list[tuple[Period, tuple[Period, ...]]] = [(fy, halves), (fy, quarters), (fy, months)]
    for half, (a, b) in zip(halves, _HALVES, strict=True):
        out.append((half, (quarters[a - 1], quarters[b - 1])))
        out.append((half, months[(a - 1) * 3:b * 3]))
    for q, quarter in enumerate(quarters):
        out.append((quarter, months[q * 3:(q + 1) * 3]))
    return tuple(out)


def _months(year: int, fiscal_year_end: str) -> tuple[Period, ...]:
    start = period_bounds(Period(PeriodType.FY, str(year)), fiscal_year_end)[0]
    index = start.year * 12 + start.month - 1
    return tuple(Period(PeriodType.M, f"{(index + i) // 12}-{(index + i) % 12 + 1:02d}")
                 for i in range(12))
