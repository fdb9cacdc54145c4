"""The period assumed when a question names none, or asks for "the last complete fiscal year".

It is the last complete fiscal year -- unless that year has no figure yet for the metric asked
(the annual report is not out), in which case a person means the latest year that has one, and
the answer says so ("FY2024: FY2025 has no figure yet"). Only fiscal years count: a half-year
is not what "the year" means. The fact store is asked which periods have a figure (the
`FactStore.periods` port, through the structured channel); a restricted entity in a chat not
cleared for it is never looked at, so the fallback cannot reveal that it has figures.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from core.contracts.types import Period, PeriodType
from core.figures.structured import TOTAL, StructuredChannel
from core.fiscal_calendar import last_complete_fiscal_year

__all__ = ["DefaultPeriod", "default_period"]


@dataclass(frozen=True)
class DefaultPeriod:
    period: Period  # what is answered
    missing: Period | None = None  # the last complete year, when it has no figure yet


def default_period(
    structured: StructuredChannel,
    metric: str,
    entity: str,
    channel: str | None,
    *,
    reference_date: dt.date,
    cleared: bool,
) -> DefaultPeriod:
    """The last complete fiscal year, or the latest earlier one with a figure for these slots."""
    glossary = structured.glossary
    assumed = last_complete_fiscal_year(reference_date, glossary.fiscal_year_end)
    term = glossary.entities.get(entity)
    known = metric in glossary.metrics or metric in glossary.derived
    if not known or term is None or (term.restricted and not cleared):
        return DefaultPeriod(assumed)
    available = structured.available_periods(metric, entity, channel or TOTAL)
    if assumed in available:
        return DefaultPeriod(assumed)
    years = [p for p in available if p.type is PeriodType.FY and p.year < assumed.year]
    if not years:
        return DefaultPeriod(assumed)  # nothing to fall back on: "no figure" for the assumed year
    return DefaultPeriod(max(years, key=lambda p: p.year), missing=assumed)
