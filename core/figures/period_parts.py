"""A flow's year, half or quarter with no row of its own, as the exact sum of its parts.

A company that keeps quarterly figures asks for "fabric woven in 2025" and the fact table has
no FY2025 row: for a metric that adds up over time (a flow, core.knowledge.metric_kind), the
fiscal year is by definition the sum of its quarters (or halves, or months) on the company's
fiscal calendar, so the answer is that sum, computed in code, each part cited and the reading
said ("the sum of its four quarters"). Only when every part at one grain has a figure this chat
may see: a partial sum is never shown as the whole. Stocks and rates are never summed.
"""

from __future__ import annotations

from typing import Any

from core.catalog.lookup import say
from core.contracts.types import FactStatus, Period, PeriodType
from core.documents.source_titles import source_title
from core.figures.arithmetic import exact_sum
from core.figures.cells import ArithmeticFact, Cell, input_facts, lookup
from core.figures.derived import DerivedFact
from core.figures.step_context import ExecutionContext
from core.knowledge.metric_kind import adds_over_time
from core.knowledge.period_relations import fiscal_year, time_relations
from core.question.period_labels import period_label

__all__ = ["PARTS", "parts_sentence", "sum_of_parts"]

PARTS = "parts"  # formula["over"] of a period summed from its parts
_GRAIN = {PeriodType.HY: "halves", PeriodType.Q: "quarters", PeriodType.M: "months"}


def sum_of_parts(ctx: ExecutionContext, metric: str, entity: str, channel: str,
                 period: Period) -> ArithmeticFact | None:
    """`period` of a flow as the sum of its parts at the first grain where all have a figure
    (`ctx`: core.planning.executors.ExecutionContext), or None."""
    g = ctx.glossary
    if (period.type is PeriodType.M or metric in g.derived or metric not in g.metrics
            or not adds_over_time(g, metric)):
        return None
    fye = g.fiscal_year_end
    try:
        year = fiscal_year(period, fye)
    except ValueError:
        return None
    for total, parts in time_relations(year, fye):
        if total != period:
            continue
        cells = [lookup(ctx, metric, entity, channel, p) for p in parts]
        units = {c.unit for c in cells if c.found}
        if all(c.found for c in cells) and len(units) == 1:
            return _fact(metric, entity, channel, period, parts, cells, units.pop())
    return None


def _fact(metric: str, entity: str, channel: str, period: Period, parts: tuple[Period, ...],
          cells: list[Cell], unit: str) -> ArithmeticFact:
    values = [c.value for c in cells if c.value is not None]
    total = exact_sum(values)
    decimals = max((-int(v.as_tuple().exponent) for v in values), default=0)
    formula = {"op": "sum", "over": PARTS, "n": str(len(parts)),
               "grain": parts[0].type.value, "of": period.value}
    return ArithmeticFact(FactStatus.FOUND, metric=metric, entity=entity, period=period,
                          channel=channel, value=total, shown=total, unit=unit,
                          decimals=max(decimals, 0), formula=formula, inputs=input_facts(cells))


def parts_sentence(glossary: Any, r: DerivedFact, language: str, subject: str) -> str:
    """ "Tessaro Bradford fabric woven, FY2025: 1,324.5K m², the sum of its four quarters
    (Q1 2025 331.2K m² + …; source: …)"."""
    terms = []
    for inp in r.inputs:
        assert inp.fact is not None and inp.period is not None
        shown = glossary.show_value(inp.fact.value, inp.fact.unit, language)
        terms.append(f"{period_label(inp.period, language, glossary.fiscal_year_end)} {shown}")
    titles = list(dict.fromkeys(source_title(s, language, glossary.titles) for s in r.sources))
    assert r.period is not None and r.value is not None
    grain = _GRAIN[r.inputs[0].period.type] if r.inputs[0].period else "quarters"
    return say("sum_of_parts", language, subject=subject,
               value=glossary.show_value(r.value, r.unit, language),
               parts=say(f"parts_{grain}", language, n=len(r.inputs)),
               terms=" + ".join(terms),
               sources=say("derived_sources" if len(titles) > 1 else "derived_source",
                           language, titles=("；" if language == "zh" else "; ").join(titles)))

