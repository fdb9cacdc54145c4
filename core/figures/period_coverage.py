"""A range of periods partly outside the data: answered over the periods that exist, saying so.

"China revenue from FY1950 to FY2024", "average China revenue FY1800–FY2024": the fact table
starts in FY2022. The periods before the first stored one (and after the last) of that type are
left out, and a notice names the range actually used and the one asked; a gap inside the data
stays a missing figure, said as such (a sum over it is never shown as the sum asked for).
"""

from __future__ import annotations

from core.catalog.lookup import say
from core.contracts.types import Line, Period, PeriodType
from core.figures.step_context import ExecutionContext
from core.fiscal_calendar import period_bounds
from core.question.period_labels import period_label
from core.question.table_shape import MAX_SERIES

__all__ = ["clip_to_data", "coarser_grain"]


def clip_to_data(
    periods: list[Period], asked: tuple[Period, ...], ctx: ExecutionContext, metric: str,
    entity: str,
    channel: str,
) -> tuple[list[Period], Line | None]:
    """`periods` without those outside the stored span of `metric` for entity/channel, and the
    notice naming the range used (None when nothing was left out, or nothing would be left)."""
    fye = ctx.glossary.fiscal_year_end
    term = ctx.glossary.entities.get(entity)
    if not periods or (term is not None and term.restricted and not ctx.request.cleared):
        return periods, None  # what a restricted unit holds is not said to an uncleared chat
    kind = periods[0].type
    stored = [p for p in ctx.structured.available_periods(metric, entity, channel)
              if p.type is kind]
    if not stored:
        return periods, None
    low, high = min(stored, key=_order), max(stored, key=_order)
    used = [p for p in periods if _order(low) <= _order(p) <= _order(high)]
    first, last = asked if len(asked) == 2 else (periods[0], periods[-1])
    if not used or (used == periods and not asked):
        return periods, None
    lang = ctx.request.language
    notice = say("range_used", lang, first=period_label(used[0], lang, fye),
                 last=period_label(used[-1], lang, fye), asked_first=period_label(first, lang, fye),
                 asked_last=period_label(last, lang, fye), limit=MAX_SERIES)
    return used, Line("notice", notice)


def coarser_grain(
    periods: list[Period], ctx: ExecutionContext, metric: str, entity: str, channel: str,
) -> tuple[list[Period], Line | None]:
    """A sum over months the fact table does not hold at that grain ("year to date" for a
    company that reports by quarter): the stored quarters (else halves, else years) that lie
    wholly inside the months asked, and the notice naming what was used. Unchanged when any
    month asked has a figure, or no coarser period fits."""
    term = ctx.glossary.entities.get(entity)
    if (not periods or any(p.type is not PeriodType.M for p in periods)
            or (term is not None and term.restricted and not ctx.request.cleared)):
        return periods, None
    stored = ctx.structured.available_periods(metric, entity, channel)
    if set(periods) & set(stored):
        return periods, None
    fye = ctx.glossary.fiscal_year_end
    start, end = period_bounds(periods[0], fye)[0], period_bounds(periods[-1], fye)[1]
    for grain in (PeriodType.Q, PeriodType.HY, PeriodType.FY):
        inside = sorted((p for p in stored if p.type is grain
                         and start <= period_bounds(p, fye)[0]
                         and period_bounds(p, fye)[1] <= end),
                        key=lambda p: period_bounds(p, fye)[0])
        if inside:
            lang = ctx.request.language
            notice = say("grain_used", lang, first=period_label(inside[0], lang, fye),
                         last=period_label(inside[-1], lang, fye),
                         asked_first=period_label(periods[0], lang, fye),
                         asked_last=period_label(periods[-1], lang, fye))
            return inside, Line("notice", notice)
    return periods, None


def _order(p: Period) -> tuple[int, str]:
    """Periods of one type in time order ("999" before "2024" for far-back years)."""
    return len(p.value), p.value
