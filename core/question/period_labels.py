"""How a period reads in an answer, on the company's fiscal calendar (en/it/zh).

With a year ending in December a fiscal quarter is a calendar quarter, and labels stay as they
always were: "FY2024", "H1 2025", "Q3 2023" (zh "2025年上半年"). With any other year end, "Q3 2024"
would be misread as July-September 2024, so the label says which fiscal year it belongs to and
which months it covers: "Q3 FY2024 (Jan–Mar 2024)", "H1 FY2025 (Jul–Dec 2024)",
"FY2024 (Jul 2023–Jun 2024)"; zh "2024财年第三季度（2024年1月–3月）". Months are calendar months
and read the same on every calendar.

The year end is the knowledge base's (glossary `scope.fiscal_year_end`, carried by every
request's context): each caller passes the one it labels with, so a label never depends on
which request ran last on a thread.
"""

from __future__ import annotations

from core.catalog.formats import month_name
from core.contracts.types import Period, PeriodType
from core.fiscal_calendar import period_bounds

__all__ = [
    "period_label", "year_end_day",
]

_ZH_QUARTER = "一二三四"


def period_label(period: Period, language: str, fiscal_year_end: str) -> str:
    """The period as the reader reads it, on the company's fiscal calendar (year ending
    `fiscal_year_end`, "MM-DD"): "Q3 2023" on a December year end, "Q3 FY2024 (Jan–Mar 2024)"
    on a June one."""
    if period.type is PeriodType.M or fiscal_year_end == "12-31":
        return _calendar_label(period, language)
    year, tail = period.value[:4], period.value[4:]
    first, last = period_bounds(period, fiscal_year_end)
    if language == "zh":
        if first.year == last.year:
            months = f"{first.year}年{first.month}月–{last.month}月"
        else:
            months = f"{first.year}年{first.month}月–{last.year}年{last.month}月"
        name = f"{year}财年"
        if period.type is PeriodType.HY:
            name += "上半年" if tail == "H1" else "下半年"
        elif period.type is PeriodType.Q:
            name += f"第{_ZH_QUARTER[int(tail[-1]) - 1]}季度"
        return f"{name}（{months}）"
    start, end = month_name(first.month, language), month_name(last.month, language)
    if first.year == last.year:
        months = f"{start}–{end} {last.year}"
    else:
        months = f"{start} {first.year}–{end} {last.year}"
    head = "" if period.type is PeriodType.FY else f"{tail} "
    return f"{head}FY{year} ({months})"


def year_end_day(fiscal_year_end: str, language: str) -> str:
    """The last day of the fiscal year as a reader writes it: "30 June", "30 giugno", "6月30日"."""
    month, day = (int(x) for x in fiscal_year_end.split("-"))
    if language == "zh":
        return f"{month}月{day}日"
    return f"{day} {month_name(month, language, 'wide')}"


def _calendar_label(period: Period, language: str) -> str:
    if language != "zh":
        return period.label
    year, tail = period.value[:4], period.value[4:]
    if period.type is PeriodType.FY:
        return f"{year}财年"
    if period.type is PeriodType.HY:
        return f"{year}年{'上' if tail == 'H1' else '下'}半年"
    if period.type is PeriodType.Q:
        return f"{year}年第{_ZH_QUARTER[int(tail[-1]) - 1]}季度"
    return f"{year}年{int(period.value[5:7])}月"
