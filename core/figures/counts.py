"""Counts over members and periods, computed in code: "how many units had revenue above €100M
in FY2024?", "how many years did margin fall?", "quanti mesi le vendite hanno superato 10
milioni?", "有几个区域营收超过1亿？".

Every figure counted is an exact lookup (core.figures.cells), and the answer names each member
or period counted with its figure and source; the threshold is converted into the metric's unit
("€100M" against EUR_K is 100,000), never compared across dimensions. Periods not named are
every stored one of the grain asked, the most recent first within the lookup bound.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from core.catalog.formats import number
from core.catalog.lookup import join_list, say
from core.contracts.types import FactStatus, Line, Period, PeriodType
from core.figures.aggregate import (
    first_entity,
    one_period,
    refuse_unrecognized,
    show,
    shown_decimals,
    subject_of,
)
from core.figures.cells import ArithmeticFact, Cell, input_facts, lookup, span
from core.figures.disclosed import withheld_note
from core.figures.levels import level_members
from core.figures.step_context import ExecutionContext, asked_table
from core.figures.structured import TOTAL
from core.figures.table_parts import Built
from core.fiscal_calendar import shift_period
from core.question.period_labels import period_label

__all__ = ["count"]


def count(out: Built, args: dict[str, Any], ctx: ExecutionContext) -> None:
    analysis = asked_table(ctx)
    g, lang = ctx.glossary, ctx.request.language
    metric, channel = args["metric"], args.get("channel") or TOTAL
    unit = g.metrics[metric].unit if metric in g.metrics else ""
    threshold = _in_unit(g, analysis.threshold, analysis.scaled, unit)
    if analysis.dimension == "entity":
        period = one_period(out, args, ctx)
        members = _members(out, ctx)
        keys = [(m, period) for m in members]
        labels = [g.label("entity", m, lang) for m in members]
        where = period_label(period, lang, ctx.glossary.fiscal_year_end)
        subject = subject_of(g, metric, None, channel, lang)
        entity_field = "+".join(members)
        period_field: Period | None = period
    else:
        entity = first_entity(out, ctx)
        periods = list(analysis.periods) or _stored(ctx, metric, entity, channel,
                                                    analysis.grain or "FY")
        keys = [(entity, p) for p in periods]
        labels = [period_label(p, lang, ctx.glossary.fiscal_year_end) for p in periods]
        where = f"{labels[0]}–{labels[-1]}" if labels else ""
        subject = subject_of(g, metric, entity, channel, lang)
        entity_field, period_field = entity, span(periods) if periods else None
    cells = [lookup(ctx, metric, e, channel, p) for e, p in keys]
    if refuse_unrecognized(out, cells, ctx):
        return
    found = [(label, key, c) for label, key, c in zip(labels, keys, cells, strict=True)
             if c.value is not None]
    if not found:
        out.segments.append(Line("not_found", say("no_figure_for", lang, items=subject)))
        out.results += [c.result for c in cells]
        return
    decimals = shown_decimals(g, metric, [c.value for _, _, c in found if c.value is not None])
    counted, compared = _counted(analysis.measure, found, threshold)
    items = [_item(out, g, lang, decimals, entry) for entry in counted]
    test = analysis.measure
    fields: dict[str, Any] = {"subject": subject, "where": where,
                              "count": number(Decimal(len(counted)), lang),
                              "total": number(Decimal(compared), lang),
                              "items": join_list(items, lang) if items else say("count_none",
                                                                                   lang)}
    if threshold is not None:
        fields["threshold"] = g.show_value(threshold, unit, lang)
    out.segments.append(Line("derived", say(f"count_{test}", lang, **fields)))
    held = withheld_note(g, [c.result for c in cells], lang)
    if held is not None:  # a member withheld from this chat is not counted: said, not hidden
        out.segments.append(held)
    formula = {"op": "count", "over": analysis.dimension, "test": test, "n": str(compared)}
    if threshold is not None:
        formula["threshold"] = str(threshold)
    fact = ArithmeticFact(
        FactStatus.FOUND, value=Decimal(len(counted)), shown=Decimal(len(counted)),
        unit="COUNT", decimals=0, metric=metric, entity=entity_field, period=period_field,
        channel=channel, formula=formula, inputs=input_facts([c for _, _, c in found]))
    out.results[:0] = [fact, *[c.result for c in cells]]


def _members(out: Built, ctx: ExecutionContext) -> list[str]:
    """The entities counted: those of the level the question names ("how many regions …"),
    else the leaves of a deeper hierarchy (the reading stated), else the default entity's
    children; never a total beside its own members."""
    g = ctx.glossary
    visible = [t.code for t in g.visible_entities(ctx.request.cleared)
               if t.parent is not None and t.code != g.default_entity]
    levelled = level_members(g, visible, ctx.request.text, ctx.request.language)
    if levelled is not None:
        members, reading = levelled
        if reading is not None:
            out.assumptions.append(reading)
        return members
    children = [c for c in visible if g.entities[c].parent == g.default_entity]
    return children or visible


def _in_unit(g: Any, amount: Decimal | None, scaled: bool, unit: str) -> Decimal | None:
    """The threshold in the metric's unit: "€100M" (1e8 euros) against EUR_M is 100."""
    if amount is None or not scaled:
        return amount
    kind = g.unit_kinds.get(unit)
    return amount / kind.scale if kind is not None and kind.scale else amount


def _stored(ctx: ExecutionContext, metric: str, entity: str, channel: str,
            grain: str) -> list[Period]:
    stored = sorted(p for p in ctx.structured.available_periods(metric, entity, channel)
                    if p.type is PeriodType(grain))
    return stored[-max(1, getattr(ctx, "max_lookups", len(stored))):]


def _counted(test: str, found: list[tuple[str, Any, Cell]], threshold: Decimal | None
             ) -> tuple[list[tuple[str, Cell, Cell | None]], int]:
    """The entries that pass `test`, each with the figure it was compared with, and how many
    were compared."""
    if test in ("above", "below"):
        assert threshold is not None
        passed: list[tuple[str, Cell, Cell | None]] = [
            (label, c, None) for label, _, c in found
            if c.value is not None and ((c.value > threshold) if test == "above"
                                        else (c.value < threshold))
        ]
        return passed, len(found)
    by_period = {key[1]: (label, c) for label, key, c in found}
    passed, compared = [], 0
    for period, (label, c) in by_period.items():
        before = by_period.get(shift_period(period, -1))
        if before is None or c.value is None or before[1].value is None:
            continue
        compared += 1
        if (c.value < before[1].value) if test == "fell" else (c.value > before[1].value):
            passed.append((label, c, before[1]))
    return passed, compared


def _item(out: Built, g: Any, lang: str, decimals: int,
          entry: tuple[str, Cell, Cell | None]) -> str:
    label, c, before = entry
    text = f"{label} {show(g, c.value, c.unit, lang, decimals)} {out.cite(*c.sources)}"
    if before is not None:
        text += say("count_after", lang, value=show(g, before.value, before.unit, lang, decimals),
                    n=out.cite(*before.sources))
    return text
