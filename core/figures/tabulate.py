"""Series, breakdowns, rankings and comparisons: one exact lookup per cell, arithmetic in code.
This module builds a table for a step and lays out the series, the ranking and the comparison;
the breakdown is core.figures.breakdown, the parts all share core.figures.table_parts.

Every number in a table is a fact from the fact table (through StructuredChannel.query_metric,
which enforces clearance) or a Decimal computed here from them: a change, a % change, a share,
a growth rate. Each row cites its sources by number ([n] under the answer, the document's
title); a period or member with no figure is named once, in the table's notes, never guessed.

A restricted member (Orbis Labs) is a row only for a cleared chat; for any other chat it is
simply not a member, and nothing says it was left out. Competitors are never members: they are
not in the glossary's entities at all.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from core.catalog.formats import percent
from core.catalog.lookup import say
from core.contracts.types import (
    Assumption,
    FactResult,
    FactStatus,
    Line,
    Period,
    Source,
    Table,
)
from core.figures.breakdown import breakdown_table
from core.figures.period_coverage import clip_to_data
from core.figures.plotted import plotted
from core.figures.step_context import ExecutionContext, asked_table
from core.figures.structured import TOTAL, exact_difference
from core.figures.table_parts import (
    Built,
    change_columns,
    default_entity_of,
    disclosure_lines,
    lookup_cell,
    member_results,
    own_currency_metric,
    plotted_value,
    shown_value,
    subject_label,
    table_members,
    table_notes,
    table_period,
    unit_of,
    unit_text,
)
from core.fiscal_calendar import previous_period
from core.question.period_labels import period_label
from core.question.table_shape import Analysis


def build(kind: str, args: dict[str, Any], ctx: ExecutionContext) -> Built:
    """The table `kind` for the current request (`ctx`:
    core.planning.executors.ExecutionContext)."""
    analysis: Analysis = asked_table(ctx)
    maker = {"series": _series, "breakdown": breakdown_table, "ranking": _ranking,
             "comparison": _comparison}[kind]
    out = Built()
    maker(out, analysis, args, ctx)
    # a table with no row at all is one honest sentence, not an empty grid
    out.segments = [
        Line("not_found", say("not_found", ctx.request.language, subject=s.title))
        if isinstance(s, Table) and not s.rows else s
        for s in out.segments
    ]
    out.segments += disclosure_lines(out, kind, ctx)
    if out.assumptions:
        items = "; ".join(
            say(f"assumed_{a.slot}", ctx.request.language, value=a.value) for a in out.assumptions
        )
        out.segments.append(Line("assumed", say("assumed", ctx.request.language, items=items)))
    return out


# ------------------------------------------------------------- series, ranking, comparison




def _series(out: Built, analysis: Analysis, args: dict[str, Any], ctx: ExecutionContext) -> None:
    fye = ctx.glossary.fiscal_year_end
    g, lang = ctx.glossary, ctx.request.language
    metrics = list(ctx.intent.metrics) or [args["metric"]]
    entities = list(ctx.intent.entities) or [default_entity_of(out, ctx)]
    channels = list(ctx.intent.channels) or [args.get("channel") or TOTAL]
    # one column per (metric, entity, channel) the question names: "China and Italy",
    # "online and retail", "revenue and EBITDA"
    series = [(m, e, c) for m in metrics for e in entities for c in channels]
    if len(entities) == 1:  # one unit reporting in its own currency: its own series
        series = [(own_currency_metric(ctx, m, e, c), e, c) for m, e, c in series]
        metrics = list(dict.fromkeys(m for m, _, _ in series))
    periods = list(analysis.periods)
    if len(series) == 1 and analysis.asked:  # a range longer than a table: the data's part
        periods, coverage = clip_to_data(periods, analysis.asked, ctx, *series[0])
        out.segments += [coverage] if coverage is not None else []
    found: dict[tuple[tuple[str, str, str], Period], FactResult] = {}
    for key in series:
        for p in periods:
            looked = lookup_cell(out, ctx, key[0], key[1], key[2], p, alone=len(series) == 1)
            if looked.status is FactStatus.FOUND:
                found[(key, p)] = looked
    unit = unit_of(g, metrics[0], list(found.values()))
    span = {"first": period_label(periods[0], lang, fye),
            "last": period_label(periods[-1], lang, fye)}
    rows: list[tuple[str, ...]] = []
    missing: list[str] = []
    if len(series) == 1:
        key = series[0]
        title = say("series_title", lang, subject=subject_label(g, *key, lang), **span)
        columns: tuple[str, ...] = (
            say("col_period", lang), g.label("metric", key[0], lang), say("col_change", lang),
            say("col_pct_change", lang), say("col_source", lang),
        )
        before: FactResult | None = None
        points = []
        for p in periods:
            r = found.get((key, p))
            points.append((period_label(p, lang, fye), plotted_value(g, r, lang)))
            if r is None or r.fact is None:
                missing.append(period_label(p, lang, fye))
                before = None
                continue
            change, pct = change_columns(g, before, r, lang)
            rows.append((period_label(p, lang, fye), shown_value(g, r, lang), change, pct,
                         out.cite(*out.sources_of(r))))
            before = r
        table_points = tuple(points)
    else:
        shared = (metrics[0] if len(metrics) == 1 else "",
                  entities[0] if len(entities) == 1 else None,
                  channels[0] if len(channels) == 1 else TOTAL)
        if shared[0]:
            subject = subject_label(g, shared[0], shared[1], shared[2], lang)
        else:  # several metrics: the entity they are of
            subject = g.label("entity", shared[1], lang) if shared[1] else ""
        title = say("series_title", lang, subject=subject, **span).lstrip(", ，")
        labels = [_column_label(g, key, metrics, entities, channels, lang) for key in series]
        columns = (say("col_period", lang), *labels, say("col_source", lang))
        for p in periods:
            cells = [found.get((key, p)) for key in series]
            if not any(cells):
                missing.append(period_label(p, lang, fye))
                continue
            for label, r in zip(labels, cells, strict=True):
                if r is None:
                    missing.append(f"{label} {period_label(p, lang, fye)}")
            sources = out.sources_of(*cells)
            rows.append((period_label(p, lang, fye),
                         *(shown_value(g, r, lang) if r else "–" for r in cells),
                         out.cite(*sources)))
        table_points = ()
    out.segments.append(Table("series", title, columns, tuple(rows), table_points,
                              unit_text(g, unit, lang), table_notes(missing, lang, out, g)))


def _column_label(g: Any, key: tuple[str, str, str], metrics: list[str], entities: list[str],
                  channels: list[str], lang: str) -> str:
    """What tells this column from the others: the entity, the channel, the metric, or all."""
    parts = []
    if len(metrics) > 1:
        parts.append(g.label("metric", key[0], lang))
    if len(entities) > 1:
        parts.append(g.label("entity", key[1], lang))
    if len(channels) > 1:
        parts.append(g.label("channel", key[2], lang))
    return ("" if lang == "zh" else " ").join(parts)


def _ranking(out: Built, analysis: Analysis, args: dict[str, Any], ctx: ExecutionContext) -> None:
    fye = ctx.glossary.fiscal_year_end
    g, lang = ctx.glossary, ctx.request.language
    between = analysis.measure == "growth" and len(analysis.periods) == 2  # "between A and B"
    metric = args["metric"]
    period = analysis.periods[1] if between else table_period(out, analysis, args, ctx)
    if analysis.assumed_metric:
        out.assumptions.append(
            Assumption("metric", g.label("metric", metric, lang), "not named in the question"))
    dim = analysis.dimension
    named = list(ctx.intent.entities if dim == "entity" else ctx.intent.channels)
    entity = (ctx.intent.entities or [""])[0] if dim == "channel" else ""
    if dim == "channel" and not entity:
        entity = default_entity_of(out, ctx)
    channel = (args.get("channel") or TOTAL) if dim == "entity" else TOTAL
    members, _ = table_members(ctx, dim, named=named if len(named) >= 2 else [], out=out)
    later = member_results(out, ctx, metric, members, dim, entity, channel, period)
    unit = unit_of(g, metric, [r for _, r in later])
    subject = subject_label(g, metric, entity or None, channel, lang)
    by = say(f"by_{dim}", lang)
    missing: list[str] = []
    scored: list[tuple[Decimal, str, tuple[str, ...], list[Source]]] = []
    if analysis.measure == "growth":
        earlier_p = analysis.periods[0] if between else previous_period(period)
        earlier = dict(member_results(out, ctx, metric, members, dim, entity, channel,
                                       earlier_p))
        for code, r in later:
            e = earlier[code]
            label = g.label(dim, code, lang)
            if r.fact is None or e.fact is None or e.fact.value == 0:
                shown = earlier_p if r.fact else period
                missing.append(f"{label} {period_label(shown, lang, fye)}")
                continue
            delta = exact_difference(r.fact.value, e.fact.value)
            growth = delta / abs(e.fact.value) * 100
            scored.append((growth, label, (percent(growth, lang), shown_value(g, e, lang),
                                           shown_value(g, r, lang)), out.sources_of(e, r)))
        columns: tuple[str, ...] = (
            say(f"dim_{dim}", lang), say("col_growth", lang), period_label(earlier_p, lang, fye),
            period_label(period, lang, fye), say("col_source", lang),
        )
        title = say("growth_title", lang, subject=subject, by=by,
                    later=period_label(period, lang, fye),
                    earlier=period_label(earlier_p, lang, fye))
        plotted_unit = "%"
    else:
        for code, r in later:
            label = g.label(dim, code, lang)
            if r.fact is None:
                missing.append(label)
                continue
            scored.append((r.fact.value, label, (shown_value(g, r, lang),), out.sources_of(r)))
        columns = (say(f"dim_{dim}", lang),
                   g.label("metric", metric, lang), say("col_source", lang))
        title = say("ranking_title", lang, subject=subject, by=by,
                    period=period_label(period, lang, fye))
        plotted_unit = unit_text(g, unit, lang)
    scored.sort(key=lambda s: s[0], reverse=analysis.descending)
    # the place goes with the name ("1. Orbis Italia"): the first column is the one a grid
    # aligns left
    rows = tuple((f"{i}. {label}", *cells, out.cite(*sources))
                 for i, (_, label, cells, sources) in enumerate(scored, 1))
    if scored:
        key = "ranked_first" if analysis.descending else "ranked_last"
        out.segments.append(Line("fact", say(key, lang, member=scored[0][1],
                                             value=scored[0][2][0])))
    points = tuple((label, float(score) if analysis.measure == "growth"
                    else plotted(g, score, unit, lang)) for score, label, _, _ in scored)
    out.segments.append(Table("ranking", title, columns, rows, points, plotted_unit,
                              table_notes(missing, lang, out, g)))


def _comparison(out: Built, analysis: Analysis, args: dict[str, Any],
                ctx: ExecutionContext) -> None:
    fye = ctx.glossary.fiscal_year_end
    g, lang = ctx.glossary, ctx.request.language
    metric, period = args["metric"], table_period(out, analysis, args, ctx)
    dim = analysis.dimension
    members = list(ctx.intent.entities if dim == "entity" else ctx.intent.channels)
    entity = (ctx.intent.entities or [""])[0] if dim == "channel" else ""
    if dim == "channel" and not entity:
        entity = default_entity_of(out, ctx)
    channel = (ctx.intent.channels or [TOTAL])[0] if dim == "entity" else TOTAL
    results = member_results(out, ctx, metric, members, dim, entity, channel, period)
    unit = unit_of(g, metric, [r for _, r in results])
    first = next((r for _, r in results if r.fact is not None), None)
    first_label = g.label(dim, members[0], lang)
    columns = (say(f"dim_{dim}", lang), g.label("metric", metric, lang),
               say("col_vs", lang, first=first_label), say("col_source", lang))
    rows, missing, points = [], [], []
    for code, r in results:
        label = g.label(dim, code, lang)
        points.append((label, plotted_value(g, r, lang)))
        if r.fact is None:
            missing.append(label)
            continue
        versus = ""
        if first is not None and r is not first and code != members[0]:
            versus = " ".join(change_columns(g, first, r, lang)).strip()
        rows.append((label, shown_value(g, r, lang), versus, out.cite(*out.sources_of(r))))
    subject = subject_label(g, metric, entity or None, channel, lang)
    title = say("comparison_title", lang, subject=subject, period=period_label(period, lang, fye))
    out.segments.append(Table("comparison", title, columns, tuple(rows), tuple(points),
                              unit_text(g, unit, lang), table_notes(missing, lang, out, g)))
