"""Series, breakdowns, rankings and comparisons: one exact lookup per cell, arithmetic in code.

Every number in a table is a fact from the fact table (through StructuredChannel.query_metric,
which enforces clearance) or a Decimal computed here from them: a change, a % change, a share,
a growth rate. Each row cites its sources by number ([n] under the answer, the document's
title); a period or member with no figure is named once, in the table's notes, never guessed.

A restricted member (Orbis Labs) is a row only for a cleared chat; for any other chat it is
simply not a member, and nothing says it was left out. Competitors are never members: they are
not in the glossary's entities at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from core.catalog.formats import number, percent
from core.catalog.lookup import join_list, say
from core.contracts.types import (
    Assumption,
    Fact,
    FactResult,
    FactStatus,
    Line,
    Period,
    Segment,
    Source,
    Table,
)
from core.figures.derived import DerivedFact, query_derived, running_name
from core.figures.disclosed import WithheldTotal, together_label, withheld_note
from core.figures.levels import level_members
from core.figures.period_coverage import clip_to_data
from core.figures.plotted import plotted
from core.figures.structured import TOTAL, exact_difference
from core.fiscal_calendar import last_complete_fiscal_year, previous_period
from core.knowledge.currency_variants import currency_of_unit, other_currency
from core.knowledge.disclosure import hidden_members
from core.question.period_labels import period_label
from core.question.periods import normalize_period
from core.question.table_shape import Analysis

PCT = "PCT"  # a rate: its change is in percentage points, and it has no share of a total


@dataclass
class Built:
    """What a table step adds to the answer."""

    segments: list[Segment] = field(default_factory=list)
    results: list[FactResult] = field(default_factory=list)
    cited: list[Source] = field(default_factory=list)  # numbered [1], [2]... in this order
    assumptions: list[Assumption] = field(default_factory=list)
    # a derived cell (EBITDA margin) has no row of its own: it cites both inputs' rows
    inputs: dict[int, list[Source]] = field(default_factory=dict)
    # figures of units that report in another currency: named apart, never ranked with the
    # others (core.knowledge.currency_variants)
    apart: list[tuple[FactResult, str]] = field(default_factory=list)  # and the others' unit

    def sources_of(self, *results: FactResult | None) -> list[Source]:
        """The sources behind these cells: a stored figure's row, a derived one's inputs."""
        out: list[Source] = []
        for r in results:
            if r is not None and r.fact is not None:  # a protected total: its members' rows
                out += self.inputs.get(id(r), getattr(r, "sources", None) or [r.fact.source])
        return out

    def cite(self, *sources: Source) -> str:
        """"[2]" or "[1–4]": the numbers of these sources, each numbered once."""
        numbers = []
        for src in sources:
            if src not in self.cited:
                self.cited.append(src)
            numbers.append(self.cited.index(src) + 1)
        numbers = sorted(set(numbers))
        if not numbers:
            return ""
        if len(numbers) > 2 and numbers[-1] - numbers[0] == len(numbers) - 1:
            return f"[{numbers[0]}–{numbers[-1]}]"
        return "".join(f"[{n}]" for n in numbers)


def build(kind: str, args: dict[str, Any], ctx: Any) -> Built:
    """The table `kind` for the current request (`ctx`:
    core.planning.executors.ExecutionContext)."""
    analysis: Analysis = ctx.intent.analysis
    maker = {"series": _series, "breakdown": _breakdown, "ranking": _ranking,
             "comparison": _comparison}[kind]
    out = Built()
    maker(out, analysis, args, ctx)
    # a table with no row at all is one honest sentence, not an empty grid
    out.segments = [
        Line("not_found", say("not_found", ctx.language, subject=s.title))
        if isinstance(s, Table) and not s.rows else s
        for s in out.segments
    ]
    out.segments += disclosure_lines(out, kind, ctx)
    if out.assumptions:
        items = "; ".join(
            say(f"assumed_{a.slot}", ctx.language, value=a.value) for a in out.assumptions
        )
        out.segments.append(Line("assumed", say("assumed", ctx.language, items=items)))
    return out


# --------------------------------------------------------------------------- the four tables


def _series(out: Built, analysis: Analysis, args: dict[str, Any], ctx: Any) -> None:
    g, lang = ctx.glossary, ctx.language
    metrics = list(ctx.intent.metrics) or [args["metric"]]
    entities = list(ctx.intent.entities) or [_default_entity(out, ctx)]
    channels = list(ctx.intent.channels) or [args.get("channel") or TOTAL]
    # one column per (metric, entity, channel) the question names: "China and Italy",
    # "online and retail", "revenue and EBITDA"
    series = [(m, e, c) for m in metrics for e in entities for c in channels]
    if len(entities) == 1:  # one unit reporting in its own currency: its own series
        series = [(_own_currency(ctx, m, e, c), e, c) for m, e, c in series]
        metrics = list(dict.fromkeys(m for m, _, _ in series))
    periods = list(analysis.periods)
    if len(series) == 1 and analysis.asked:  # a range longer than a table: the data's part
        periods, coverage = clip_to_data(periods, analysis.asked, ctx, *series[0])
        out.segments += [coverage] if coverage is not None else []
    found: dict[tuple[tuple[str, str, str], Period], FactResult] = {}
    for key in series:
        for p in periods:
            looked = _lookup(out, ctx, key[0], key[1], key[2], p, alone=len(series) == 1)
            if looked.status is FactStatus.FOUND:
                found[(key, p)] = looked
    unit = _unit_of(g, metrics[0], list(found.values()))
    span = {"first": period_label(periods[0], lang), "last": period_label(periods[-1], lang)}
    rows: list[tuple[str, ...]] = []
    missing: list[str] = []
    if len(series) == 1:
        key = series[0]
        title = say("series_title", lang, subject=_subject(g, *key, lang), **span)
        columns: tuple[str, ...] = (
            say("col_period", lang), g.label("metric", key[0], lang), say("col_change", lang),
            say("col_pct_change", lang), say("col_source", lang),
        )
        before: FactResult | None = None
        points = []
        for p in periods:
            r = found.get((key, p))
            points.append((period_label(p, lang), _plot(g, r, lang)))
            if r is None or r.fact is None:
                missing.append(period_label(p, lang))
                before = None
                continue
            change, pct = _change(g, before, r, lang)
            rows.append((period_label(p, lang), _show(g, r, lang), change, pct,
                         out.cite(*out.sources_of(r))))
            before = r
        table_points = tuple(points)
    else:
        shared = (metrics[0] if len(metrics) == 1 else "",
                  entities[0] if len(entities) == 1 else None,
                  channels[0] if len(channels) == 1 else TOTAL)
        if shared[0]:
            subject = _subject(g, shared[0], shared[1], shared[2], lang)
        else:  # several metrics: the entity they are of
            subject = g.label("entity", shared[1], lang) if shared[1] else ""
        title = say("series_title", lang, subject=subject, **span).lstrip(", ，")
        labels = [_column_label(g, key, metrics, entities, channels, lang) for key in series]
        columns = (say("col_period", lang), *labels, say("col_source", lang))
        for p in periods:
            cells = [found.get((key, p)) for key in series]
            if not any(cells):
                missing.append(period_label(p, lang))
                continue
            for label, r in zip(labels, cells, strict=True):
                if r is None:
                    missing.append(f"{label} {period_label(p, lang)}")
            sources = out.sources_of(*cells)
            rows.append((period_label(p, lang),
                         *(_show(g, r, lang) if r else "–" for r in cells), out.cite(*sources)))
        table_points = ()
    out.segments.append(Table("series", title, columns, tuple(rows), table_points,
                              _unit_text(g, unit, lang), _notes(missing, lang, out, g)))


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


def _breakdown(out: Built, analysis: Analysis, args: dict[str, Any], ctx: Any) -> None:
    g, lang = ctx.glossary, ctx.language
    metric = args["metric"]
    periods = list(analysis.periods) or [_period(out, analysis, args, ctx)]
    if len(ctx.intent.metrics) > 1:
        _several_metrics(out, analysis, ctx, list(ctx.intent.metrics), periods[0], args)
        return
    dim = analysis.dimension
    entity = (ctx.intent.entities or [""])[0] if dim == "channel" else ""
    if dim == "channel" and not entity:
        entity = _default_entity(out, ctx)
    channel = (args.get("channel") or TOTAL) if dim == "entity" else TOTAL
    members, total_key = _members(ctx, dim, named=[], out=out)
    keys = [*members, total_key]
    cells = {p: dict(_member_results(out, ctx, metric, keys, dim, entity, channel, p))
             for p in periods}
    unit = _unit_of(g, metric, [r for by in cells.values() for r in by.values()])
    subject = _subject(g, metric, entity or None, channel, lang)
    by_dim = say(f"by_{dim}", lang)
    label = {code: g.label(dim, code, lang) for code in members}
    held = any(isinstance(cells[p][total_key], WithheldTotal) for p in periods)
    units = _visible_units(g, [r for by in cells.values() for r in by.values()], lang)
    if dim == "channel" and units is not None:
        # the entity's every channel is withheld: the breakdown is over its visible units,
        # and its title names them ("Revenue of Orbis China, … together by channel")
        subject = _subject(g, metric, None, TOTAL, lang)
        subject = f"{units}{subject}" if lang == "zh" else f"{subject} ({units})"
        for p in periods:
            for code in keys:
                cells[p][code] = _visible_sum(out, cells[p][code], None, g, lang)
        held = False
    label[total_key] = _total_label(g, dim, total_key, [cells[p][total_key] for p in periods],
                                    lang)
    for p in periods:  # a withheld total's row is its visible units' sum, named by them
        cells[p][total_key] = _visible_sum(out, cells[p][total_key], label[total_key], g, lang)
    if len(periods) == 1:
        _one_period(out, g, lang, metric, periods[0], members, total_key, cells[periods[0]],
                    label, unit, subject, by_dim, dim,
                    hidden=0 if held else len(hidden_members(g, dim, total_key,
                                                             cleared=ctx.cleared)))
        return
    columns = (say(f"dim_{dim}", lang), *(period_label(p, lang) for p in periods),
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
                missing.append(f"{label[code]} {period_label(p, lang)}")
        sources = out.sources_of(*results)
        rows.append((label[code], *(_show(g, r, lang) if r.fact else "–" for r in results),
                     out.cite(*sources)))
    title = say("breakdown_title", lang, subject=subject, by=by_dim,
                period=f"{period_label(periods[0], lang)}–{period_label(periods[-1], lang)}")
    # every period charted: one bar per member and period, grouped by member
    points = tuple((label[c], _plot(g, cells[p][c], lang)) for c in members for p in periods)
    groups = tuple(period_label(p, lang) for _ in members for p in periods)
    out.segments.append(Table("breakdown", title, columns, tuple(rows), points,
                              _unit_text(g, unit, lang), _notes(missing, lang, out, g), groups))


def _several_metrics(out: Built, analysis: Analysis, ctx: Any, metrics: list[str],
                     period: Period, args: dict[str, Any]) -> None:
    """"Revenue and EBITDA by entity, FY2024": a column per metric, a row per member and the
    total, each row citing the rows its cells come from. No shares and no chart: the columns
    are in different units."""
    g, lang, dim = ctx.glossary, ctx.language, analysis.dimension
    entity = (ctx.intent.entities or [""])[0] if dim == "channel" else ""
    if dim == "channel" and not entity:
        entity = _default_entity(out, ctx)
    channel = (args.get("channel") or TOTAL) if dim == "entity" else TOTAL
    members, total_key = _members(ctx, dim, named=[], out=out)
    by_metric = {m: dict(_member_results(out, ctx, m, [*members, total_key], dim, entity,
                                         channel, period)) for m in metrics}
    label = {code: g.label(dim, code, lang) for code in members}
    label[total_key] = _total_label(g, dim, total_key,
                                    [by_metric[m][total_key] for m in metrics], lang)
    together = any(isinstance(by_metric[m][total_key], WithheldTotal) for m in metrics)
    for m in metrics:  # one row, one set of units: each metric's visible units' sum, if any
        r = by_metric[m][total_key]
        if together and not isinstance(r, WithheldTotal):  # the total itself: not that row
            r = FactResult(FactStatus.NOT_FOUND, metric=m, entity=r.entity, period=r.period,
                           channel=r.channel)
        by_metric[m][total_key] = _visible_sum(out, r, label[total_key], g, lang)
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
        rows.append((label[code], *(_show(g, r, lang) if r.fact else "–" for r in cells),
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
                period=period_label(period, lang))
    columns = (say(f"dim_{dim}", lang), *names, say("col_source", lang))
    out.segments.append(Table("breakdown", title, columns, tuple(rows), (), "",
                              _notes(missing, lang, out, g)))


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
        points.append((label[code], _plot(g, r, lang)))
        if r.fact is None:
            missing.append(label[code])
            continue
        row = [label[code], _show(g, r, lang)]
        if share and total.fact is not None:
            row.append(percent_plain(r.fact.value * 100 / total.fact.value, lang))
        rows.append((*row, out.cite(*out.sources_of(r))))
    if total.fact is not None:
        row = [label[total_key], _show(g, total, lang)] + (["100%"] if share else [])
        rows.append((*row, out.cite(*out.sources_of(total))))
    title = say("breakdown_title", lang, subject=subject, by=by_dim,
                period=period_label(period, lang))
    notes = _notes(missing, lang, out, g)
    if share and hidden and total.fact is not None:
        # a member this chat does not see is in the total: its part is stated, never silent
        shown = sum(values, Decimal(0)) * 100 / total.fact.value
        notes += (say("share_of_total", lang, share=percent_plain(100 - shown, lang)),)
    out.segments.append(Table("breakdown", title, tuple(columns), tuple(rows), tuple(points),
                              _unit_text(g, unit, lang), notes))


def _ranking(out: Built, analysis: Analysis, args: dict[str, Any], ctx: Any) -> None:
    g, lang = ctx.glossary, ctx.language
    between = analysis.measure == "growth" and len(analysis.periods) == 2  # "between A and B"
    metric = args["metric"]
    period = analysis.periods[1] if between else _period(out, analysis, args, ctx)
    if analysis.assumed_metric:
        out.assumptions.append(
            Assumption("metric", g.label("metric", metric, lang), "not named in the question"))
    dim = analysis.dimension
    named = list(ctx.intent.entities if dim == "entity" else ctx.intent.channels)
    entity = (ctx.intent.entities or [""])[0] if dim == "channel" else ""
    if dim == "channel" and not entity:
        entity = _default_entity(out, ctx)
    channel = (args.get("channel") or TOTAL) if dim == "entity" else TOTAL
    members, _ = _members(ctx, dim, named=named if len(named) >= 2 else [], out=out)
    later = _member_results(out, ctx, metric, members, dim, entity, channel, period)
    unit = _unit_of(g, metric, [r for _, r in later])
    subject = _subject(g, metric, entity or None, channel, lang)
    by = say(f"by_{dim}", lang)
    missing: list[str] = []
    scored: list[tuple[Decimal, str, tuple[str, ...], list[Source]]] = []
    if analysis.measure == "growth":
        earlier_p = analysis.periods[0] if between else previous_period(period)
        earlier = dict(_member_results(out, ctx, metric, members, dim, entity, channel,
                                       earlier_p))
        for code, r in later:
            e = earlier[code]
            label = g.label(dim, code, lang)
            if r.fact is None or e.fact is None or e.fact.value == 0:
                missing.append(f"{label} {period_label(earlier_p if r.fact else period, lang)}")
                continue
            delta = exact_difference(r.fact.value, e.fact.value)
            growth = delta / abs(e.fact.value) * 100
            scored.append((growth, label, (percent(growth, lang), _show(g, e, lang),
                                           _show(g, r, lang)), out.sources_of(e, r)))
        columns: tuple[str, ...] = (
            say(f"dim_{dim}", lang), say("col_growth", lang), period_label(earlier_p, lang),
            period_label(period, lang), say("col_source", lang),
        )
        title = say("growth_title", lang, subject=subject, by=by,
                    later=period_label(period, lang), earlier=period_label(earlier_p, lang))
        plotted_unit = "%"
    else:
        for code, r in later:
            label = g.label(dim, code, lang)
            if r.fact is None:
                missing.append(label)
                continue
            scored.append((r.fact.value, label, (_show(g, r, lang),), out.sources_of(r)))
        columns = (say(f"dim_{dim}", lang),
                   g.label("metric", metric, lang), say("col_source", lang))
        title = say("ranking_title", lang, subject=subject, by=by,
                    period=period_label(period, lang))
        plotted_unit = _unit_text(g, unit, lang)
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
                              _notes(missing, lang, out, g)))


def _comparison(out: Built, analysis: Analysis, args: dict[str, Any], ctx: Any) -> None:
    g, lang = ctx.glossary, ctx.language
    metric, period = args["metric"], _period(out, analysis, args, ctx)
    dim = analysis.dimension
    members = list(ctx.intent.entities if dim == "entity" else ctx.intent.channels)
    entity = (ctx.intent.entities or [""])[0] if dim == "channel" else ""
    if dim == "channel" and not entity:
        entity = _default_entity(out, ctx)
    channel = (ctx.intent.channels or [TOTAL])[0] if dim == "entity" else TOTAL
    results = _member_results(out, ctx, metric, members, dim, entity, channel, period)
    unit = _unit_of(g, metric, [r for _, r in results])
    first = next((r for _, r in results if r.fact is not None), None)
    first_label = g.label(dim, members[0], lang)
    columns = (say(f"dim_{dim}", lang), g.label("metric", metric, lang),
               say("col_vs", lang, first=first_label), say("col_source", lang))
    rows, missing, points = [], [], []
    for code, r in results:
        label = g.label(dim, code, lang)
        points.append((label, _plot(g, r, lang)))
        if r.fact is None:
            missing.append(label)
            continue
        versus = ""
        if first is not None and r is not first and code != members[0]:
            versus = " ".join(_change(g, first, r, lang)).strip()
        rows.append((label, _show(g, r, lang), versus, out.cite(*out.sources_of(r))))
    subject = _subject(g, metric, entity or None, channel, lang)
    title = say("comparison_title", lang, subject=subject, period=period_label(period, lang))
    out.segments.append(Table("comparison", title, columns, tuple(rows), tuple(points),
                              _unit_text(g, unit, lang), _notes(missing, lang, out, g)))


# --------------------------------------------------------------------------- helpers


def disclosure_lines(out: Built, kind: str, ctx: Any) -> list[Line]:
    """Under a table: what a protected total is (core.figures.disclosed), or, where the policy
    discloses totals, that a member of the breakdown's total is not shown in this chat."""
    g, lang = ctx.glossary, ctx.language
    note = withheld_note(g, out.results, lang)
    if note is not None:
        return [note]
    if kind != "breakdown" or ctx.cleared:
        return []
    dim = ctx.intent.analysis.dimension
    total = g.default_entity if dim == "entity" else TOTAL
    hidden = hidden_members(g, dim, total, cleared=ctx.cleared)
    if not hidden or not any(r.fact is not None for r in out.results):
        return []
    name = g.label("entity", total, lang) if dim == "entity" else say("total_row", lang)
    if len(hidden) == 1:
        return [Line("disclosure", say("member_not_shown", lang, total=name))]
    return [Line("disclosure", say("members_not_shown", lang, total=name, count=len(hidden)))]


def _total_label(g: Any, dim: str, total_key: str, totals: list[FactResult], lang: str
                 ) -> str:
    """The total row: "Orbis Group", or, when this chat may not see the total, its visible
    units named ("Orbis China, Orbis Italia and Orbis Hong Kong together")."""
    held = next((r for r in totals if isinstance(r, WithheldTotal) and r.together is not None),
                None)
    if held is not None:
        return together_label(g, held, lang)
    if dim == "entity":
        return str(g.label("entity", total_key, lang))
    return say("total_row", lang)


def _visible_units(g: Any, results: list[FactResult], lang: str) -> str | None:
    """"Orbis China, Orbis Italia and Orbis Hong Kong together" when every one of `results` is
    a withheld total summed over those same visible units (a channel breakdown of the group),
    else None."""
    if not results or not all(isinstance(r, WithheldTotal) for r in results):
        return None
    held = [r for r in results if isinstance(r, WithheldTotal) and r.together is not None]
    if not held:
        return None
    sets = {tuple(dict.fromkeys(f.entity for f in r.members)) for r in held}
    if len(sets) != 1:
        return None
    names = [str(g.label("entity", e, lang)) for e in sets.pop()]
    return say("visible_together", lang, members=join_list(names, lang))


def _visible_sum(out: Built, r: FactResult, label: str | None, g: Any, lang: str
                 ) -> FactResult:
    """A withheld total's cell in a table: what its visible units add up to, when that is a
    sum and the row is named by those same units (`label`); never a fact of the total (the
    answer's facts keep the withheld total), keyed by the members' codes."""
    if not isinstance(r, WithheldTotal) or r.together is None or r.period is None:
        return r
    if label is not None and together_label(g, r, lang) != label:  # other units: not shown
        return FactResult(FactStatus.NOT_FOUND, metric=r.metric, entity=r.entity,
                          period=r.period, channel=r.channel)
    codes = "+".join(dict.fromkeys(f.entity for f in r.members))
    cell = FactResult(FactStatus.FOUND, fact=Fact(r.metric or "", codes, r.period,
                                                  r.channel or TOTAL, r.together, r.unit,
                                                  r.members[0].source))
    out.inputs[id(cell)] = r.sources
    return cell


def _lookup(out: Built, ctx: Any, metric: str, entity: str, channel: str,
            period: Period, *, alone: bool = False) -> FactResult:
    """One cell as this chat may see it. `alone`: the only column (one unit's series), so a
    figure in the unit's own currency is shown in it, beside nothing of another currency."""
    if metric in ctx.glossary.derived:
        return _derived(out, ctx, metric, entity, channel, period)
    r: FactResult = ctx.structured.query_metric(
        metric, entity, period, channel, cleared=ctx.cleared, reference_date=ctx.reference_date
    )
    declared = ctx.glossary.metrics[metric].unit if metric in ctx.glossary.metrics else ""
    if r.fact is not None and declared and r.fact.unit not in ("", declared):
        # stored in a unit of another dimension (before units were checked at ingest), or a
        # unit's figure in its own currency: a table, ranking or share never puts it beside
        # the others; it is a named gap (a currency's figure: named apart, with its value)
        if other_currency(ctx.glossary, r.fact.unit, declared):
            if alone:
                out.results.append(r)
                return r
            out.apart.append((r, declared))
        r = FactResult(FactStatus.NOT_FOUND, metric=metric, entity=r.entity,
                       period=r.period, channel=r.channel)
    out.results.append(r)
    return r


def _derived(out: Built, ctx: Any, metric: str, entity: str, channel: str,
             period: Period) -> FactResult:
    """A derived metric's cell (EBITDA margin by entity): both inputs looked up exactly, the
    formula applied (core.figures.derived). The answer's facts get the computed figure with
    its inputs; the table gets the value as shown in a one-figure answer (the glossary's
    decimals: a change between two cells is what a reader recomputes from them), citing both
    inputs' rows. A missing input or a zero denominator is a missing cell."""
    d = query_derived(ctx.structured, metric, entity, period, channel, cleared=ctx.cleared,
                      reference_date=ctx.reference_date)
    out.results.append(d)
    if not isinstance(d, DerivedFact) or d.status is not FactStatus.FOUND or d.shown is None:
        return FactResult(FactStatus.NOT_FOUND, metric=metric, entity=entity, period=period,
                          channel=channel)
    sources = d.sources
    cell = FactResult(FactStatus.FOUND, fact=Fact(metric, entity, period, channel, d.shown,
                                                  d.unit, sources[0]))
    out.inputs[id(cell)] = sources
    return cell


def _member_results(out: Built, ctx: Any, metric: str, members: list[str], dim: str,
                    entity: str, channel: str, period: Period) -> list[tuple[str, FactResult]]:
    return [(code, _lookup(out, ctx, metric, *_key(dim, code, entity, channel), period))
            for code in members]


def _key(dim: str, code: str, entity: str, channel: str) -> tuple[str, str]:
    """(entity, channel) of a member: an entity over `channel`, or a channel of `entity`."""
    return (code, channel) if dim == "entity" else (entity, code)


def _members(ctx: Any, dim: str, *, named: list[str], out: Built | None = None
             ) -> tuple[list[str], str]:
    """The members of a dimension this chat may see, in glossary order, and the total's code;
    entities of the level the question names, else the leaves of a deeper hierarchy, the
    reading stated in `out` (core.figures.levels)."""
    g = ctx.glossary
    if dim == "channel":  # a restricted channel is a member only for a cleared chat
        shown = [c for c in g.channels if c != TOTAL
                 and (ctx.cleared or not getattr(g.channels[c], "restricted", False))]
        return (named or shown), TOTAL
    visible = [t.code for t in g.visible_entities(ctx.cleared) if t.code != g.default_entity]
    if named:
        return [c for c in named if c in visible], g.default_entity
    levelled = level_members(g, visible, ctx.text, ctx.language)
    if levelled is not None:
        members, reading = levelled
        if reading is not None and out is not None:
            out.assumptions.append(reading)
        return members, g.default_entity
    children = [c for c in visible if getattr(g.entities[c], "parent", None) == g.default_entity]
    return (children or visible), g.default_entity


def _period(out: Built, analysis: Analysis, args: dict[str, Any], ctx: Any) -> Period:
    if ctx.intent.periods:
        first: Period = ctx.intent.periods[0]
        return first
    fye = ctx.glossary.fiscal_year_end
    period = normalize_period(str(args.get("period", "")), ctx.reference_date, fye)
    period = period or last_complete_fiscal_year(ctx.reference_date, fye)
    out.assumptions.append(
        Assumption("period", period_label(period, ctx.language), "last complete fiscal year"))
    return period


def _default_entity(out: Built, ctx: Any) -> str:
    code: str = ctx.glossary.default_entity
    out.assumptions.append(
        Assumption("entity", ctx.glossary.label("entity", code, ctx.language), "default entity"))
    return code


def _subject(g: Any, metric: str, entity: str | None, channel: str, lang: str) -> str:
    """"Orbis China revenue (online)" / "Ricavi Orbis Cina (online)" / "中国区营收（线上）"."""
    m = g.label("metric", metric, lang)
    e = g.label("entity", entity, lang) if entity else ""
    c = g.label("channel", channel, lang) if channel and channel != TOTAL else ""
    if lang == "zh":
        return f"{e}{m}" + (f"（{c}）" if c else "")
    if lang == "it":
        text = f"{m} {e}".strip()
    else:
        text = f"{e} {running_name(m, lang) if e else m}".strip()
    return text + (f" ({c})" if c else "")


def _show(g: Any, r: FactResult, lang: str) -> str:
    assert r.fact is not None
    return str(g.show_value(r.fact.value, r.fact.unit, lang))


def _change(g: Any, before: FactResult | None, r: FactResult, lang: str) -> tuple[str, str]:
    """Change and % change from `before` to `r`, exact; a rate changes by points, not %."""
    if before is None or before.fact is None or r.fact is None:
        return "", ""
    delta = exact_difference(r.fact.value, before.fact.value)
    sign = "+" if delta > 0 else ""
    if r.fact.unit == PCT:
        return say("points", lang, value=sign + number(delta, lang)), ""
    pct = "" if before.fact.value == 0 else percent(delta / abs(before.fact.value) * 100, lang)
    return sign + str(g.show_value(delta, r.fact.unit, lang)), pct


def percent_plain(value: Decimal, lang: str) -> str:
    """A share: one decimal, no sign."""
    return percent(value, lang).lstrip("+")


def _plot(g: Any, r: FactResult | None, lang: str) -> float | None:
    """A cell's value as its chart draws it: in the unit the axis label reads
    (core.figures.plotted)."""
    if r is None or r.fact is None:
        return None
    return plotted(g, r.fact.value, r.fact.unit, lang)


def _unit_of(g: Any, metric: str, results: list[FactResult]) -> str:
    found = next((r.fact.unit for r in results if r.fact is not None), None)
    if found is not None:
        return found
    unit: str = g.derived[metric].term.unit if metric in g.derived else g.metrics[metric].unit
    return unit


def _unit_text(g: Any, unit: str, lang: str) -> str:
    """The unit as the reader reads it without a number: "€M", "M€", "亿欧元", "%"."""
    return re.sub(r"[\d.,\s-]+", "", str(g.show_value(Decimal(1), unit, lang))) or unit


def _notes(missing: list[str], lang: str, out: Built, g: Any) -> tuple[str, ...]:
    """"No figure for …", and for a unit reporting in another currency its figure, apart:
    "Meridian China reports in CNY (CN¥2,129.2M [2]): not ranked, added or compared with
    figures in USD." """
    notes: list[str] = []
    held = {r.fact.unit for r in out.results if r.fact is not None}
    # a unit in its own currency beside units in the metric's (a table of stale figures all
    # in another unit, stored before the glossary changed, stays a list of gaps)
    named = {g.label("entity", r.entity, lang): (r, unit) for r, unit in out.apart
             if r.fact is not None and r.entity and unit in held}
    missing = [m for m in missing if not any(m == n or m.startswith(f"{n} ") for n in named)]
    if missing:
        notes.append(say("no_figure_for", lang, items=join_list(missing, lang)))
    for label, (r, unit) in named.items():
        assert r.fact is not None
        notes.append(say("currency_apart", lang, entity=label,
                         currency=currency_of_unit(g, r.fact.unit) or r.fact.unit,
                         value=g.show_value(r.fact.value, r.fact.unit, lang),
                         period=period_label(r.fact.period, lang),
                         cite=out.cite(r.fact.source), others=currency_of_unit(g, unit) or unit))
    return tuple(notes)


def _own_currency(ctx: Any, metric: str, entity: str, channel: str) -> str:
    """`metric`, or the metric holding it in the unit's own currency when the unit has no
    figure of its own ("China revenue FY2023–FY2026": Revenue in CNY)."""
    variants = ctx.structured.variants.get(metric, ())
    if not variants or ctx.structured.available_periods(metric, entity, channel):
        return metric
    return next((v for v in variants if ctx.structured.available_periods(v, entity, channel)),
                metric)


