"""Growth of one period against the previous comparable one, and whether one member grew
faster than another, computed exactly from the fact rows.

The previous comparable period: a fiscal year against the year before; a half, a quarter or a
month against the same period one year earlier (year over year: H1 2025 vs H1 2024, Q3 2025 vs
Q3 2024), unless the question asks for the period just before ("QoQ", "sequential", "previous
quarter", "环比": Q3 2025 vs Q2 2025). A rate (a margin, a percentage) changes in percentage
points, not in percent. A missing year is named; no growth is shown without both figures.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from core.catalog.formats import number, percent
from core.catalog.lookup import say
from core.contracts.types import Assumption, FactStatus, Line, Period
from core.figures import arithmetic as ar
from core.figures.aggregate import (
    cite_numbers,
    first_entity,
    name_missing,
    one_period,
    one_unit,
    refuse_unrecognized,
    show,
    shown_decimals,
    subject_of,
)
from core.figures.cells import ZERO_BASE, ArithmeticFact, input_facts, lookup
from core.figures.step_context import ExecutionContext, asked_table
from core.figures.structured import TOTAL
from core.figures.table_parts import Built
from core.fiscal_calendar import PER_YEAR, shift_period
from core.question.period_labels import period_label

POINTS = "PP"  # the unit of a change in a rate: percentage points


def comparable(period: Period, basis: str) -> Period:
    """The period `period` is compared with: a year earlier, or just before (sequential)."""
    return shift_period(period, -1 if basis == "sequential" else -PER_YEAR[period.type])


@dataclass
class Growth:
    """One growth figure, or None as `fact` when it could not be computed (said in `out`)."""

    fact: ArithmeticFact | None
    sentence: str = ""
    shown_text: str = ""  # "+7.8%", "-1.7 pp"


def growth(out: Built, args: dict[str, Any], ctx: ExecutionContext) -> None:
    """"EBITDA growth for Italy last year", "净利润同比", "H1 2025 vs previous"."""
    metric = args["metric"]
    entity = first_entity(out, ctx)
    channel = args.get("channel") or TOTAL
    later = one_period(out, args, ctx)
    g = growth_of(out, ctx, metric, entity, channel, later, asked_table(ctx).measure)
    if g.fact is not None:
        out.results[:0] = [g.fact, *g.fact.inputs]
        out.segments.append(Line("derived", g.sentence))


def growth_comparison(out: Built, args: dict[str, Any], ctx: ExecutionContext) -> None:
    """"Did China grow faster than Italy in FY2024?": both growth rates, then the answer."""
    analysis = asked_table(ctx)
    gl, lang = ctx.glossary, ctx.request.language
    metric = args["metric"]
    period = one_period(out, args, ctx)
    if analysis.assumed_metric:
        out.assumptions.insert(0, Assumption("metric", gl.label("metric", metric, lang),
                                             "not named in the question"))
    if analysis.dimension == "channel":
        entity = first_entity(out, ctx)
        members = [c for c in ctx.intent.channels if c != TOTAL][:2]
        keys = [(entity, c) for c in members]
    else:
        channel = args.get("channel") or TOTAL
        members = list(ctx.intent.entities)[:2]
        keys = [(e, channel) for e in members]
    names = [gl.label(analysis.dimension, m, lang) for m in members]
    plabel = period_label(period, lang, ctx.glossary.fiscal_year_end)
    parts = []
    for key in keys:
        one = growth_of(out, ctx, metric, key[0], key[1], period, "yoy")
        if one.fact is None:
            return  # said: a missing year, an unknown name, a zero base
        parts.append(one)
    first, second = (p.fact for p in parts)
    assert first is not None and second is not None and first.value is not None
    assert second.value is not None
    difference = ar.exact_difference(first.value, second.value)
    faster = analysis.descending  # "faster" asked; False: "slower"
    verdict = difference > 0 if faster else difference < 0
    texts = {"a": names[0], "b": names[1], "period": plabel, "ga": parts[0].shown_text,
             "gb": parts[1].shown_text}
    if difference == 0:
        sentence = say("same_growth", lang, **texts)
    else:
        verdict_key = ("faster" if faster else "slower") + ("_yes" if verdict else "_no")
        sentence = say(verdict_key, lang, **texts)
    fact = ArithmeticFact(
        FactStatus.FOUND, metric=metric, entity="+".join(k[0] for k in keys), period=period,
        channel="+".join(k[1] for k in keys) if analysis.dimension == "channel" else keys[0][1],
        value=difference, shown=ar.rounded(difference, 1), unit=POINTS, decimals=1,
        formula={"op": "growth_comparison", "asked": "faster" if faster else "slower",
                 "answer": "yes" if verdict and difference != 0 else "no",
                 "first": first.formula, "second": second.formula},
        inputs=(first, second),
    )
    out.results[:0] = [fact, first, second, *first.inputs, *second.inputs]
    out.segments.append(Line("derived", sentence))
    out.segments += [Line("derived", f"• {p.sentence}") for p in parts]


def growth_of(out: Built, ctx: ExecutionContext, metric: str, entity: str, channel: str,
    later: Period,
              basis: str) -> Growth:
    """The growth of `metric` in `later` against its comparable period; on failure the
    reason is said in `out` and `fact` is None."""
    fye = ctx.glossary.fiscal_year_end
    gl, lang = ctx.glossary, ctx.request.language
    earlier = comparable(later, basis)
    cells = [lookup(ctx, metric, entity, channel, later),
             lookup(ctx, metric, entity, channel, earlier)]
    if refuse_unrecognized(out, cells, ctx):
        return Growth(None)
    subject = subject_of(gl, metric, entity, channel, lang, cells)
    labels = [period_label(later, lang, fye), period_label(earlier, lang, fye)]
    what = say("growth_what", lang, subject=subject, later=labels[0], earlier=labels[1])
    rate = ar.nature(gl, metric) == ar.RATE
    formula: dict[str, Any] = {"op": "growth", "from": earlier.code, "to": later.code,
                               "basis": basis, "in": "points" if rate else "percent"}
    common: dict[str, Any] = {"metric": metric, "entity": entity, "period": later,
                              "channel": channel, "formula": formula,
                              "inputs": input_facts(cells)}
    if name_missing(out, cells, [f"{subject} {label}" if lang != "zh" else f"{subject}{label}"
                                 for label in labels], what, common, ctx):
        return Growth(None)
    unit = one_unit(out, cells, what, common, ctx)
    if unit is None:
        return Growth(None)
    now, before = (c.value for c in cells)
    assert now is not None and before is not None
    delta = ar.exact_difference(now, before)
    formula["change"] = format(delta, "f")
    decimals = shown_decimals(gl, metric, [now, before])
    a, b = show(gl, now, unit, lang, decimals), show(gl, before, unit, lang, decimals)
    numbers = {"na": cite_numbers(out, cells[0]), "nb": cite_numbers(out, cells[1])}
    if rate:
        shown = ar.rounded(delta, decimals)
        text = say("points", lang, value=_signed(shown, lang))
        sentence = say("growth_points", lang, subject=subject, later=labels[0],
                       earlier=labels[1], value=text, a=a, b=b, **numbers)
        fact = ArithmeticFact(FactStatus.FOUND, value=ar.plain(delta) if delta else Decimal(0),
                              shown=shown, unit=POINTS, decimals=decimals, **common)
        return Growth(fact, sentence, text)
    value = ar.growth(now, before)
    if value is None:
        out.results[:0] = [ArithmeticFact(FactStatus.NOT_FOUND, reason=ZERO_BASE, **common)]
        out.segments.append(Line("not_found", say("zero_base", lang, what=what,
                                                  base=f"{subject} {labels[1]}")))
        return Growth(None)
    text = percent(value, lang)
    sentence = say("growth", lang, subject=subject, later=labels[0], earlier=labels[1],
                   value=text, a=a, b=b, **numbers)
    fact = ArithmeticFact(FactStatus.FOUND, value=value, shown=ar.rounded(value, 1), unit="PCT",
                          decimals=1, **common)
    return Growth(fact, sentence, text)


def _signed(value: Decimal, lang: str) -> str:
    return ("+" if value > 0 else "") + number(value, lang)
