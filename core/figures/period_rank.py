"""Rankings over periods: "in which year was net income highest?", "which quarter had the most
orders?", "哪一年净利润最高".

The periods ranked are the question's range when it gives one, else every period of the asked
type (years, quarters...) the fact table has for the metric, entity and channel. Each is an
exact lookup (core.figures.cells), cited; the answer names the period and its figure first, then
the whole ranking as a table.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from core.catalog.formats import number
from core.catalog.lookup import join_list, say
from core.contracts.types import Line, Period, PeriodType, Table
from core.figures.aggregate import (
    first_entity,
    refuse_unrecognized,
    show,
    shown_decimals,
    subject_of,
)
from core.figures.cells import Cell, lookup
from core.figures.disclosed import withheld_input
from core.figures.plotted import plotted
from core.figures.step_context import ExecutionContext, asked_table
from core.figures.structured import TOTAL
from core.figures.table_parts import Built
from core.question.period_labels import period_label
from core.question.table_shape import MAX_SERIES

MAX_ROWS = MAX_SERIES  # rows of the ranking shown; the headline is over every period ranked


def rank_periods(out: Built, args: dict[str, Any], ctx: ExecutionContext) -> None:
    fye = ctx.glossary.fiscal_year_end
    analysis = asked_table(ctx)
    g, lang = ctx.glossary, ctx.request.language
    metric = args["metric"]
    entity = first_entity(out, ctx)
    channel = args.get("channel") or TOTAL
    periods: list[Period] = list(analysis.periods)
    bounded: Line | None = None
    if not periods:
        grain = PeriodType(analysis.grain or "FY")
        stored = sorted(p for p in ctx.structured.available_periods(metric, entity, channel)
                        if p.type is grain)
        # every stored month of a century is 1,200 lookups: the most recent the bound allows
        limit = max(1, getattr(ctx, "max_lookups", len(stored)))
        periods = stored[-limit:]
        if len(stored) > limit:
            bounded = Line("notice", say(
                "period_rank_bounded", lang, n=number(Decimal(limit), lang),
                total=number(Decimal(len(stored)), lang),
                first=period_label(periods[0], lang, fye),
                last=period_label(periods[-1], lang, fye)))
    cells = [(p, lookup(ctx, metric, entity, channel, p)) for p in periods]
    if refuse_unrecognized(out, [c for _, c in cells], ctx):
        return
    subject = subject_of(g, metric, entity, channel, lang, [c for _, c in cells])
    held = [c for _, c in cells if c.value is None and withheld_input(c.result) is not None]
    if held:  # a ranking without a withheld period would misstate which one is first
        title = say("period_ranking_title", lang, subject=subject,
                    first=period_label(min(periods), lang, fye),
                    last=period_label(max(periods), lang, fye))
        out.segments.append(Line("not_found", say("derived_withheld", lang, subject=title)))
        out.results += [c.result for c in held]
        return
    found = [(p, c) for p, c in cells if c.value is not None]
    if not found:
        grain_word = say(f"grain_{analysis.grain or 'FY'}", lang)
        out.segments.append(Line("not_found", say("no_periods", lang, grain=grain_word,
                                                  subject=subject)))
        out.results += [c.result for _, c in cells]
        return
    ranked = sorted(found, key=_value, reverse=analysis.descending)
    if bounded is not None:
        out.segments.append(bounded)
    decimals = shown_decimals(g, metric, [c.value for _, c in found if c.value is not None])
    unit = ranked[0][1].unit
    rows = []
    for i, (p, c) in enumerate(ranked[:MAX_ROWS], 1):
        rows.append((f"{i}. {period_label(p, lang, fye)}", show(g, c.value, c.unit, lang, decimals),
                     out.cite(*c.sources)))
    top_period, top = ranked[0]
    out.segments.append(Line("fact", say(
        "period_highest" if analysis.descending else "period_lowest", lang, subject=subject,
        period=period_label(top_period, lang, fye), value=show(g, top.value, unit, lang, decimals),
        n=out.cite(*top.sources)[1:-1])))
    ordered = sorted(periods)
    title = say("period_ranking_title", lang, subject=subject,
                first=period_label(ordered[0], lang, fye),
                last=period_label(ordered[-1], lang, fye))
    columns = (say("col_period", lang), g.label("metric", metric, lang),
               say("col_source", lang))
    missing = [period_label(p, lang, fye) for p, c in cells if c.value is None]
    notes: tuple[str, ...] = (
        (say("no_figure_for", lang, items=join_list(missing, lang)),) if missing else ()
    )
    if len(ranked) > MAX_ROWS:
        notes += (say("bound_rows", lang, shown=MAX_ROWS, total=len(ranked)),)
    # drawn in the unit the axis label reads (亿欧元 plots 5.604 for €560.4M), as every chart
    points = tuple((period_label(p, lang, fye), plotted(g, c.value, c.unit, lang))
                   for p, c in ranked[:MAX_ROWS] if c.value is not None)
    out.segments.append(Table("ranking", title, columns, tuple(rows), points,
                              _unit_text(g, unit, lang), notes))
    out.results += [c.result for _, c in ranked] + [c.result for _, c in cells
                                                     if c.value is None]


def _value(pc: tuple[Period, Cell]) -> Decimal:
    return pc[1].value if pc[1].value is not None else Decimal(0)


def _unit_text(g: Any, unit: str, lang: str) -> str:
    """The unit as read without a number ("€M", "%"), for the chart's axis."""
    return re.sub(r"[\d.,\s-]+", "", str(g.show_value(Decimal(1), unit, lang))) or unit
