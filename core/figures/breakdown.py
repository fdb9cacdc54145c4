"""A breakdown: one period's figure for each member (entity or channel) and the total, with
each member's share when shares add up; over several periods or several metrics, a column per
period or per metric. One exact lookup per cell (core.figures.table_parts); a restricted
member is a row only for a cleared chat.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from core.catalog.lookup import join_list, say
from core.contracts.types import (
    FactResult,
    FactStatus,
    Period,
    Table,
)
from core.figures.derived import running_name
from core.figures.disclosed import WithheldTotal
from core.figures.step_context import ExecutionContext
from core.figures.structured import TOTAL
from core.figures.table_parts import (
    PCT,
    Built,
    default_entity_of,
    member_results,
    percent_plain,
    plotted_value,
    shown_value,
    subject_label,
    table_members,
    table_notes,
    table_period,
    total_label,
    unit_of,
    unit_text,
    visible_sum,
    visible_units,
)
from core.knowledge.disclosure import hidden_members
from core.question.period_labels import period_label
from core.question.table_shape import Analysis


def breakdown_table(out: Built, analysis: Analysis, args: dict[str, Any],
                    ctx: ExecutionContext) -> None:
    fye = ctx.glossary.fiscal_year_end
    g, lang = ctx.glossary, ctx.request.language
    metric = args["metric"]
    periods = list(analysis.periods) or [table_period(out, analysis, args, ctx)]
    if len(ctx.intent.metrics) > 1:
        _several_metrics(out, analysis, ctx, list(ctx.intent.metrics), periods[0], args)
        return
    dim = analysis.dimension
    entity = (ctx.intent.entities or [""])[0] if dim == "channel" else ""
    if dim == "channel" and not entity:
        entity = default_entity_of(out, ctx)
    channel = (args.get("channel") or TOTAL) if dim == "entity" else TOTAL
    members, total_key = table_members(ctx, dim, named=[], out=out)
    keys = [*members, total_key]
    cells = {p: dict(member_results(out, ctx, metric, keys, dim, entity, channel, p))
             for p in periods}
    unit = unit_of(g, metric, [r for by in cells.values() for r in by.values()])
    subject = subject_label(g, metric, entity or None, channel, lang)
    by_dim = say(f"by_{dim}", lang)
    label = {code: g.label(dim, code, lang) for code in members}
    held = any(isinstance(cells[p][total_key], WithheldTotal) for p in periods)
    units = visible_units(g, [r for by in cells.values() for r in by.values()], lang)
    if dim == "channel" and units is not None:
        # the entity's every channel is withheld: the breakdown is over its visible units,
        # and its title names them ("Revenue of Orbis China, … together by channel")
        subject = subject_label(g, metric, None, TOTAL, lang)
        subject = f"{units}{subject}" if lang == "zh" else f"{subject} ({units})"
        for p in periods:
            for code in keys:
                cells[p][code] = visible_sum(out, cells[p][code], None, g, lang)
        held = False
    label[total_key] = total_label(g, dim, total_key, [cells[p][total_key] for p in periods],
                                    lang)
    for p in periods:  # a withheld total's row is its visible units' sum, named by them
        cells[p][total_key] = visible_sum(out, cells[p][total_key], label[total_key], g, lang)
    if len(periods) == 1:
        _one_period(out, g, lang, metric, periods[0], members, total_key, cells[periods[0]],
                    label, unit, subject, by_dim, dim,
                    hidden=0 if held else len(hidden_members(g, dim, total_key,
                                                             cleared=ctx.request.cleared)))
        return
    columns = (say(f"dim_{dim}", lang), *(period_label(p, lang, fye) for p in periods),
               say("col_source", lang))
    rows, missing = [], []
    for code in keys:
        results = [cells[p][code] for p in periods]
        if not any(r.fact for r in results):
            if code != total_key:
                missing.append(label[code])
            continue
        for p, r in zip(periods, results, strict=True):
            if r.fact is None:
                missing.append(f"{label[code]} {period_label(p, lang, fye)}")
        sources = out.sources_of(*results)
        rows.append((label[code], *(shown_value(g, r, lang) if r.fact else "–" for r in results),
                     out.cite(*sources)))
    title = say("breakdown_title", lang, subject=subject, by=by_dim,
                period=f"{period_label(periods[0], lang, fye)}–"
                       f"{period_label(periods[-1], lang, fye)}")
    # every period charted: one bar per member and period, grouped by member
    points = tuple((label[c], plotted_value(g, cells[p][c], lang))
                   for c in members for p in periods)
    groups = tuple(period_label(p, lang, fye) for _ in members for p in periods)
    out.segments.append(Table("breakdown", title, columns, tuple(rows), points,
                              unit_text(g, unit, lang), table_notes(missing, lang, out, g), groups))


def _several_metrics(out: Built, analysis: Analysis, ctx: ExecutionContext, metrics: list[str],
                     period: Period, args: dict[str, Any]) -> None:
    """"Revenue and EBITDA by entity, FY2024": a column per metric, a row per member and the
    total, each row citing the rows its cells come from. No shares and no chart: the columns
    are in different units."""
    g, lang, dim = ctx.glossary, ctx.request.language, analysis.dimension
    entity = (ctx.intent.entities or [""])[0] if dim == "channel" else ""
    if dim == "channel" and not entity:
        entity = default_entity_of(out, ctx)
    channel = (args.get("channel") or TOTAL) if dim == "entity" else TOTAL
    members, total_key = table_members(ctx, dim, named=[], out=out)
    by_metric = {m: dict(member_results(out, ctx, m, [*members, total_key], dim, entity,
                                         channel, period)) for m in metrics}
    label = {code: g.label(dim, code, lang) for code in members}
    label[total_key] = total_label(g, dim, total_key,
                                    [by_metric[m][total_key] for m in metrics], lang)
    together = any(isinstance(by_metric[m][total_key], WithheldTotal) for m in metrics)
    for m in metrics:  # one row, one set of units: each metric's visible units' sum, if any
        r = by_metric[m][total_key]
        if together and not isinstance(r, WithheldTotal):  # the total itself: not that row
            r = FactResult(FactStatus.NOT_FOUND, metric=m, entity=r.entity, period=r.period,
                           channel=r.channel)
        by_metric[m][total_key] = visible_sum(out, r, label[total_key], g, lang)
    names = [g.label("metric", m, lang) for m in metrics]
    rows, missing = [], []
    for code in [*members, total_key]:
        cells = [by_metric[m][code] for m in metrics]
        if not any(r.fact for r in cells):
            if code != total_key:
                missing.append(label[code])
            continue
        missing += [f"{label[code]} {running_name(n, lang)}"
                    for n, r in zip(names, cells, strict=True) if r.fact is None]
        rows.append((label[code], *(shown_value(g, r, lang) if r.fact else "–" for r in cells),
                     out.cite(*out.sources_of(*cells))))
    if not entity:
        subject = join_list(names, lang)
    elif lang == "en":  # "Orbis China revenue and EBITDA"
        running = join_list([running_name(n, lang) for n in names], lang)
        subject = f"{g.label('entity', entity, lang)} {running}"
    else:  # "Ricavi e EBITDA Orbis Cina", "中国区营收和EBITDA"
        entity_name = g.label("entity", entity, lang)
        subject = (f"{entity_name}{join_list(names, lang)}" if lang == "zh"
                   else f"{join_list(names, lang)} {entity_name}")
    title = say("breakdown_title", lang, subject=subject, by=say(f"by_{dim}", lang),
                period=period_label(period, lang, ctx.glossary.fiscal_year_end))
    columns = (say(f"dim_{dim}", lang), *names, say("col_source", lang))
    out.segments.append(Table("breakdown", title, columns, tuple(rows), (), "",
                              table_notes(missing, lang, out, g)))


def _one_period(out: Built, g: Any, lang: str, metric: str, period: Period, members: list[str],
                total_key: str, found: dict[str, FactResult], label: dict[str, str],
                unit: str, subject: str, by_dim: str, dim: str, hidden: int = 0) -> None:
    """Members, then the total, with each member's share of it when shares add up: an
    additive figure (revenue) has them; a rate, or members summing past the total (EBITDA
    after group costs), does not."""
    total = found[total_key]
    values = [fact.value for fact in (found[c].fact for c in members) if fact is not None]
    share = (total.fact is not None and unit != PCT and metric not in g.derived
             and total.fact.value > 0 and all(v >= 0 for v in values)
             and sum(values) <= total.fact.value)  # a ratio's members never add up
    columns = [say(f"dim_{dim}", lang), g.label("metric", metric, lang)]
    if share:
        columns.append(say("col_share", lang))
    columns.append(say("col_source", lang))
    rows, missing, points = [], [], []
    for code in members:
        r = found[code]
        points.append((label[code], plotted_value(g, r, lang)))
        if r.fact is None:
            missing.append(label[code])
            continue
        row = [label[code], shown_value(g, r, lang)]
        if share and total.fact is not None:
            row.append(percent_plain(r.fact.value * 100 / total.fact.value, lang))
        rows.append((*row, out.cite(*out.sources_of(r))))
    if total.fact is not None:
        row = [label[total_key], shown_value(g, total, lang)] + (["100%"] if share else [])
        rows.append((*row, out.cite(*out.sources_of(total))))
    title = say("breakdown_title", lang, subject=subject, by=by_dim,
                period=period_label(period, lang, g.fiscal_year_end))
    notes = table_notes(missing, lang, out, g)
    if share and hidden and total.fact is not None:
        # a member this chat does not see is in the total: its part is stated, never silent
        shown = sum(values, Decimal(0)) * 100 / total.fact.value
        notes += (say("share_of_total", lang, share=percent_plain(100 - shown, lang)),)
    out.segments.append(Table("breakdown", title, tuple(columns), tuple(rows), tuple(points),
                              unit_text(g, unit, lang), notes))
