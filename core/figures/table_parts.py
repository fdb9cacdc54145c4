"""What every table is made of: `Built` (what a table step adds to the answer, its sources
numbered once), one exact lookup per cell (stored or derived, in the unit's own currency), the
members a chat may see, labels, the change columns, units and notes. core.figures.tabulate and
core.figures.breakdown lay the tables out; the arithmetic steps (aggregate, change, counts,
period_rank) add to a Built too.
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
)
from core.figures.derived import DerivedFact, query_derived, running_name
from core.figures.disclosed import WithheldTotal, together_label, withheld_note
from core.figures.levels import level_members
from core.figures.plotted import plotted
from core.figures.step_context import ExecutionContext, asked_table
from core.figures.structured import TOTAL, exact_difference
from core.fiscal_calendar import last_complete_fiscal_year
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


def disclosure_lines(out: Built, kind: str, ctx: ExecutionContext) -> list[Line]:
    """Under a table: what a protected total is (core.figures.disclosed), or, where the policy
    discloses totals, that a member of the breakdown's total is not shown in this chat."""
    g, lang = ctx.glossary, ctx.request.language
    note = withheld_note(g, out.results, lang)
    if note is not None:
        return [note]
    if kind != "breakdown" or ctx.request.cleared:
        return []
    dim = asked_table(ctx).dimension
    total = g.default_entity if dim == "entity" else TOTAL
    hidden = hidden_members(g, dim, total, cleared=ctx.request.cleared)
    if not hidden or not any(r.fact is not None for r in out.results):
        return []
    name = g.label("entity", total, lang) if dim == "entity" else say("total_row", lang)
    if len(hidden) == 1:
        return [Line("disclosure", say("member_not_shown", lang, total=name))]
    return [Line("disclosure", say("members_not_shown", lang, total=name, count=len(hidden)))]


def total_label(g: Any, dim: str, total_key: str, totals: list[FactResult], lang: str
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


def visible_units(g: Any, results: list[FactResult], lang: str) -> str | None:
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


def visible_sum(out: Built, r: FactResult, label: str | None, g: Any, lang: str
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


def lookup_cell(out: Built, ctx: ExecutionContext, metric: str, entity: str, channel: str,
                period: Period, *, alone: bool = False) -> FactResult:
    """One cell as this chat may see it. `alone`: the only column (one unit's series), so a
    figure in the unit's own currency is shown in it, beside nothing of another currency."""
    if metric in ctx.glossary.derived:
        return derived_cell(out, ctx, metric, entity, channel, period)
    r: FactResult = ctx.structured.query_metric(
        metric, entity, period, channel, cleared=ctx.request.cleared,
        reference_date=ctx.request.reference
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


def derived_cell(out: Built, ctx: ExecutionContext, metric: str, entity: str, channel: str,
                 period: Period) -> FactResult:
    """A derived metric's cell (EBITDA margin by entity): both inputs looked up exactly, the
    formula applied (core.figures.derived). The answer's facts get the computed figure with
    its inputs; the table gets the value as shown in a one-figure answer (the glossary's
    decimals: a change between two cells is what a reader recomputes from them), citing both
    inputs' rows. A missing input or a zero denominator is a missing cell."""
    d = query_derived(ctx.structured, metric, entity, period, channel, cleared=ctx.request.cleared,
                      reference_date=ctx.request.reference)
    out.results.append(d)
    if not isinstance(d, DerivedFact) or d.status is not FactStatus.FOUND or d.shown is None:
        return FactResult(FactStatus.NOT_FOUND, metric=metric, entity=entity, period=period,
                          channel=channel)
    sources = d.sources
    cell = FactResult(FactStatus.FOUND, fact=Fact(metric, entity, period, channel, d.shown,
                                                  d.unit, sources[0]))
    out.inputs[id(cell)] = sources
    return cell


def member_results(out: Built, ctx: ExecutionContext, metric: str, members: list[str], dim: str,
                    entity: str, channel: str, period: Period) -> list[tuple[str, FactResult]]:
    return [(code, lookup_cell(out, ctx, metric, *member_key(dim, code, entity, channel), period))
            for code in members]


def member_key(dim: str, code: str, entity: str, channel: str) -> tuple[str, str]:
    """(entity, channel) of a member: an entity over `channel`, or a channel of `entity`."""
    return (code, channel) if dim == "entity" else (entity, code)


def table_members(ctx: ExecutionContext, dim: str, *, named: list[str], out: Built | None = None
             ) -> tuple[list[str], str]:
    """The members of a dimension this chat may see, in glossary order, and the total's code;
    entities of the level the question names, else the leaves of a deeper hierarchy, the
    reading stated in `out` (core.figures.levels)."""
    g = ctx.glossary
    if dim == "channel":  # a restricted channel is a member only for a cleared chat
        shown = [c for c in g.channels if c != TOTAL
                 and (ctx.request.cleared or not getattr(g.channels[c], "restricted", False))]
        return (named or shown), TOTAL
    cleared = ctx.request.cleared
    visible = [t.code for t in g.visible_entities(cleared) if t.code != g.default_entity]
    if named:
        return [c for c in named if c in visible], g.default_entity
    levelled = level_members(g, visible, ctx.request.text, ctx.request.language)
    if levelled is not None:
        members, reading = levelled
        if reading is not None and out is not None:
            out.assumptions.append(reading)
        return members, g.default_entity
    children = [c for c in visible if getattr(g.entities[c], "parent", None) == g.default_entity]
    return (children or visible), g.default_entity


def table_period(out: Built, analysis: Analysis, args: dict[str, Any],
                 ctx: ExecutionContext) -> Period:
    if ctx.intent.periods:
        first: Period = ctx.intent.periods[0]
        return first
    fye = ctx.glossary.fiscal_year_end
    period = normalize_period(str(args.get("period", "")), ctx.request.reference, fye)
    period = period or last_complete_fiscal_year(ctx.request.reference, fye)
    out.assumptions.append(
        Assumption("period", period_label(period, ctx.request.language, fye),
                "last complete fiscal year"))
    return period


def default_entity_of(out: Built, ctx: ExecutionContext) -> str:
    code: str = ctx.glossary.default_entity
    out.assumptions.append(
        Assumption("entity", ctx.glossary.label("entity", code, ctx.request.language),
                "default entity"))
    return code


def subject_label(g: Any, metric: str, entity: str | None, channel: str, lang: str) -> str:
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


def shown_value(g: Any, r: FactResult, lang: str) -> str:
    assert r.fact is not None
    return str(g.show_value(r.fact.value, r.fact.unit, lang))


def change_columns(g: Any, before: FactResult | None, r: FactResult, lang: str) -> tuple[str, str]:
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


def plotted_value(g: Any, r: FactResult | None, lang: str) -> float | None:
    """A cell's value as its chart draws it: in the unit the axis label reads
    (core.figures.plotted)."""
    if r is None or r.fact is None:
        return None
    return plotted(g, r.fact.value, r.fact.unit, lang)


def unit_of(g: Any, metric: str, results: list[FactResult]) -> str:
    found = next((r.fact.unit for r in results if r.fact is not None), None)
    if found is not None:
        return found
    unit: str = g.derived[metric].term.unit if metric in g.derived else g.metrics[metric].unit
    return unit


def unit_text(g: Any, unit: str, lang: str) -> str:
    """The unit as the reader reads it without a number: "€M", "M€", "亿欧元", "%"."""
    return re.sub(r"[\d.,\s-]+", "", str(g.show_value(Decimal(1), unit, lang))) or unit


def table_notes(missing: list[str], lang: str, out: Built, g: Any) -> tuple[str, ...]:
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
                         period=period_label(r.fact.period, lang, g.fiscal_year_end),
                         cite=out.cite(r.fact.source), others=currency_of_unit(g, unit) or unit))
    return tuple(notes)


def own_currency_metric(ctx: ExecutionContext, metric: str, entity: str, channel: str) -> str:
    """`metric`, or the metric holding it in the unit's own currency when the unit has no
    figure of its own ("China revenue FY2023–FY2026": Revenue in CNY)."""
    variants = ctx.structured.variants.get(metric, ())
    if not variants or ctx.structured.available_periods(metric, entity, channel):
        return metric
    return next((v for v in variants if ctx.structured.available_periods(v, entity, channel)),
                metric)
