"""Questions about several figures at once: a series over periods, a breakdown over members,
a ranking, a comparison. Rules only, on the text the intent parser has already read. The
table is an Analysis (core.question.table_shape); the cue words are core.question.analysis_cues,
the periods of a series core.question.series_parse.

What is detected here decides the *shape* of the answer (a table), never a number: the numbers
are still exact lookups in the fact table (core.figures.tabulate). Forms:

- series: "from FY2021 to FY2025", "2021-2025", "between 2021 and 2025", "dal 2021 al 2025",
  "2021年至2025年", "last 3 years", "gli ultimi tre anni", "近三年", "2025 quarter by quarter",
  "monthly in 2025", "每季度", and "trend" on a metric ("China revenue trend": the last five
  fiscal years; "trend in 2025": its quarters). "2021 and 2025" stays two periods.
- breakdown: "by entity", "per unit", "per canale", "by channel", "各地区", "按渠道".
- ranking: "which unit grew fastest", "highest gross margin", "top channel by revenue".
- comparison: two named entities (or channels) with "vs", "compared with", "rispetto a", "对比".
- arithmetic (core.figures.aggregate, core.figures.change): a sum or an average over a range
  of periods or over named members ("total EBITDA FY2021-FY2023", "organico medio 2022-2024",
  "combined revenue of Italy and Hong Kong", "意大利和香港的营收合计"); the growth of one period
  against the previous comparable one ("EBITDA growth for Italy last year", "净利润同比"); one
  member's share of its whole ("how much of group revenue is Hong Kong", "香港占集团营收的比例");
  whether one member grew faster than another; and rankings over periods ("in which year was
  net income highest?", "哪一年净利润最高").
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from core.contracts.types import Period, PeriodType
from core.question.analysis_cues import (
    AVERAGE,
    BY_CHANNEL,
    BY_ENTITY,
    CHANNEL_WORD,
    COMPARATIVE,
    COMPARATIVE_LOW,
    COMPARE,
    EITHER,
    FASTER,
    GRAIN,
    GRAIN_WORDS,
    GREW_MORE,
    GROWTH,
    GROWTH_RANK,
    HINTS,
    LAST_N,
    LOW,
    MEMBER_WHICH,
    PERIOD_QUESTION,
    SEQUENTIAL,
    SHARE,
    SLOWER,
    SUM,
    TREND,
    VALUE_RANK,
)
from core.question.count_parse import detect_count
from core.question.periods import PeriodMatch
from core.question.series_parse import (
    explicit_range,
    months_span,
    periods_within,
    range_ends,
    series_asked,
)
from core.question.table_shape import MAX_COLUMNS, MAX_SERIES, Analysis

_TOTAL = "TOTAL"  # the total channel's code (core.figures.structured.TOTAL)
MAX_METRICS = 4  # a breakdown of more metrics than this is too wide for a chat

__all__ = ["detect_analysis"]


def detect_analysis(
    text: str,
    matches: list[PeriodMatch],
    *,
    metrics: list[str],
    entities: list[str],
    channels: list[str],
    reference_date: dt.date,
    fiscal_year_end: str,
    first_metric: str,
) -> Analysis | None:
    """The table `text` asks for, or None for a plain lookup. `text` has the glossary's names
    blanked (so "top line" or "Italia" cannot be read as a cue); `matches` are its periods."""
    # the total channel's own names ("total", "totale", "合计") are blanked out of `text`:
    # naming it is a sum cue ("total EBITDA FY2021-FY2023", "意大利和香港的营收合计")
    total_named = _TOTAL in channels
    if len(matches) < 2 and all(m.period is not None for m in matches) and not total_named:
        folded = text.casefold()
        if not any(hint in folded for hint in HINTS):
            return None
    periods = [m.period for m in matches if m.period is not None]
    count = detect_count(text, periods, metrics)
    if count is not None:
        return _count(count, text, matches, periods, reference_date, fiscal_year_end)
    months = months_span(text, reference_date, fiscal_year_end) if len(metrics) == 1 else None
    if months is not None:
        return months
    arithmetic = _arithmetic(
        text, matches, metrics=metrics, entities=entities, channels=channels, periods=periods,
        first_metric=first_metric, total_named=total_named, reference_date=reference_date,
        fiscal_year_end=fiscal_year_end,
    )
    if arithmetic is not None:
        return arithmetic
    ranking = _ranking(text, metrics, entities, channels, periods, first_metric)
    if ranking is not None:
        return ranking
    compare = COMPARE.search(text)
    if compare and len(periods) <= 1 and len(metrics) == 1:
        if len(entities) >= 2 or len(channels) >= 2:
            dimension = "entity" if len(entities) >= 2 else "channel"
            return Analysis("comparison", dimension=dimension, assumed_period=not periods,
                            spans=(compare.span(),))
        return None
    for pattern, dimension in ((BY_CHANNEL, "channel"), (BY_ENTITY, "entity")):
        by = pattern.search(text)
        if by and 1 <= len(metrics) <= MAX_METRICS:
            # over several periods ("by entity, 2021-2025", "for FY2024 and FY2025"): a column
            # per period; several metrics ("revenue and EBITDA by entity"): a column per metric,
            # for one period
            series = series_asked(text, matches, reference_date, fiscal_year_end)
            over = series.periods if series else tuple(periods) if len(periods) > 1 else ()
            if len(metrics) > 1 and over:
                break  # a column per metric and period: too wide; each metric's series
            if len(over) > MAX_COLUMNS:
                return None
            spans = (by.span(), *(series.spans if series else ()))
            return Analysis("breakdown", periods=over, dimension=dimension,
                            assumed_period=not periods and not over, spans=spans)
    if not metrics:
        # an explicit range without a metric ("and China from FY2021 to FY2024?" in a
        # conversation, "Orbis China 2021-2024" with the metric then tapped): the series of
        # the metric it gets, not the range's two ends
        explicit = explicit_range(text, matches)
        if explicit is None or not 2 <= len(explicit) <= MAX_SERIES:
            return None
        return Analysis("series", periods=tuple(explicit))
    return series_asked(text, matches, reference_date, fiscal_year_end)


def _arithmetic(
    text: str,
    matches: list[PeriodMatch],
    *,
    metrics: list[str],
    entities: list[str],
    channels: list[str],
    periods: list[Period],
    first_metric: str,
    total_named: bool,
    reference_date: dt.date,
    fiscal_year_end: str,
) -> Analysis | None:
    """A ranking over periods, a growth comparison, a share, a growth, a sum or an average;
    None when the question asks for none of them (or for one with the wrong slots)."""
    members = [c for c in channels if c != _TOTAL]
    growth = GROWTH.search(text)
    cue = VALUE_RANK.search(text) or GROWTH_RANK.search(text)
    asked = PERIOD_QUESTION.search(text)
    comparative = COMPARATIVE.search(text) if asked and not cue else None
    if asked and comparative and len(metrics) == 1 and len(entities) <= 1:
        cue = comparative
    if asked and cue and len(metrics) == 1 and len(entities) <= 1:
        # "in which year was net income highest?": the periods are what is ranked
        word = next(g for g in asked.groups() if g)
        series = series_asked(text, matches, reference_date, fiscal_year_end)
        over = series.periods if series else tuple(periods) if len(periods) > 1 else ()
        grain = GRAIN_WORDS.get(word.casefold(), "FY")
        if not over and len(periods) == 1 and grain != "FY":  # "which quarter of 2025"
            over = tuple(periods_within(periods[0], grain, fiscal_year_end))
        elif grain != "FY" and over and all(p.type is PeriodType.FY for p in over):
            # "which half, between FY2023 and FY2026": the halves of those years
            years = explicit_range(text, matches) or list(over)
            over = tuple(p for fy in years for p in periods_within(fy, grain, fiscal_year_end))
        low = COMPARATIVE_LOW.search(text) if comparative else LOW.search(text)
        return Analysis("ranking", periods=over, dimension="period", measure="value",
                        descending=low is None, grain=grain,
                        spans=(asked.span(), cue.span()))
    listed = len(periods) > 1 and range_ends(text, matches) is None
    if len(metrics) > 1 or (listed and not (SUM.search(text) or AVERAGE.search(text)
                                            or total_named)):
        return None  # "China revenue 2024 and 2025": two figures, as before
    dimension = "entity" if len(entities) >= 2 else "channel" if len(members) >= 2 else ""
    faster = FASTER.search(text)
    ranked = GROWTH_RANK.search(text) or GREW_MORE.search(text)
    either = EITHER.search(text)
    if ranked and either and dimension and len(periods) <= 1 and len(metrics) <= 1 \
            and len(entities if dimension == "entity" else members) == 2:
        # "è cresciuto di più l'utile dell'Italia o quello della Cina?": which of the two
        # named grew more is the comparison of those two, not a ranking of every unit
        slower = LOW.search(ranked.group(0)) or SLOWER.search(ranked.group(0))
        return Analysis("growth_comparison", dimension=dimension, measure="growth",
                        descending=slower is None,
                        assumed_metric="" if metrics else first_metric,
                        assumed_period=not periods, spans=(ranked.span(), either.span()))
    if growth and faster and dimension and len(periods) <= 1 and len(metrics) <= 1:
        # "did China grow faster than Italy in FY2024?"
        return Analysis("growth_comparison", dimension=dimension, measure="growth",
                        descending=SLOWER.search(faster.group(0)) is None,
                        assumed_metric="" if metrics else first_metric,
                        assumed_period=not periods, spans=(growth.span(), faster.span()))
    if len(metrics) != 1 or cue is not None:
        return None
    share = SHARE.search(text)
    if share and not growth and len(periods) <= 1 and (entities or members) \
            and len(entities) <= 2 and len(members) <= 1:
        # "how much of group revenue is Hong Kong", "share of online in China's revenue"
        return Analysis("share", dimension="channel" if members else "entity",
                        assumed_period=not periods, spans=(share.span(),))
    total = SUM.search(text)
    mean = AVERAGE.search(text)
    spans = tuple(m.span() for m in (total, mean) if m is not None)
    if (total or mean or total_named) and dimension and len(periods) <= 1 \
            and not COMPARE.search(text):
        # "combined revenue of Italy and Hong Kong", "意大利和香港的营收合计"
        return Analysis("aggregate", dimension=dimension,
                        measure="average" if mean else "sum", assumed_period=not periods,
                        spans=spans)
    if growth and len(periods) <= 1 and not dimension and not TREND.search(text) \
            and not any(p.search(text) for _, p in GRAIN) and not LAST_N.search(text):
        # "EBITDA growth for Italy last year", "净利润同比", "H1 2025 vs previous"
        sequential = SEQUENTIAL.search(text)
        return Analysis("growth", measure="sequential" if sequential else "yoy",
                        assumed_period=not periods,
                        spans=(growth.span(), *((sequential.span(),) if sequential else ())))
    if (total or mean or total_named) and not dimension and len(entities) <= 1 \
            and not BY_ENTITY.search(text) and not BY_CHANNEL.search(text) \
            and not TREND.search(text):
        # "total EBITDA FY2021-FY2023", "organico medio 2022-2024": over a range of periods
        series = series_asked(text, matches, reference_date, fiscal_year_end)
        over = series.periods if series else tuple(periods)
        if 2 <= len(over) <= MAX_SERIES:
            return Analysis("aggregate", periods=tuple(over), dimension="period",
                            measure="average" if mean else "sum",
                            spans=spans + (series.spans if series else ()),
                            asked=series.asked if series else ())
    return None


def _count(count: dict[str, Any], text: str, matches: list[PeriodMatch], periods: list[Period],
           reference_date: dt.date, fye: str) -> Analysis:
    """A count over members (for the question's period) or over periods (those of the named
    range or year, else every stored one of that grain, within the lookup bound)."""
    grain = count["grain"]
    over: tuple[Period, ...] = ()
    if count["over"] == "period":
        series = explicit_range(text, matches)
        if series:
            over = tuple(p for fy in series for p in periods_within(fy, grain, fye))
        elif len(periods) == 1 and periods[0].type is PeriodType.FY and grain != "FY":
            over = tuple(periods_within(periods[0], grain, fye))
    return Analysis("count", periods=over, dimension=count["over"], measure=count["test"],
                    grain=grain, threshold=count["amount"], scaled=count["scaled"],
                    assumed_period=count["over"] == "entity" and not periods,
                    spans=(count["span"],))


def _ranking(
    text: str,
    metrics: list[str],
    entities: list[str],
    channels: list[str],
    periods: list[Period],
    first_metric: str,
) -> Analysis | None:
    growth = GROWTH_RANK.search(text)
    value = None if growth else VALUE_RANK.search(text)
    comparative = None
    if growth is None and value is None and MEMBER_WHICH.search(text):
        value = comparative = COMPARATIVE.search(text)
    cue = growth or value
    between: tuple[Period, ...] = ()
    if growth and len(periods) == 2 and periods[0].type is periods[1].type \
            and periods[0] != periods[1]:
        # "which unit grew most between FY2022 and FY2024?": growth from the first to the last
        between = tuple(sorted(periods))
    if cue is None or (len(periods) > 1 and not between) or len(metrics) > 1:
        return None
    if value is not None and not metrics:
        return None  # "the highest what?": asked as a plain clarification
    channel_words = CHANNEL_WORD.search(text)
    dimension = "channel" if channel_words or len(channels) >= 2 else "entity"
    if len(entities) == 1 and dimension == "entity":
        return None  # "China's highest revenue": not a ranking of units
    low = COMPARATIVE_LOW.search(text) if comparative else LOW.search(text)
    spans = [cue.span()] + ([channel_words.span()] if channel_words else [])
    return Analysis(
        "ranking",
        periods=between,
        dimension=dimension,
        measure="growth" if growth else "value",
        descending=low is None,
        assumed_metric="" if metrics else first_metric,
        assumed_period=not periods,
        spans=tuple(spans),
    )
