"""Flow, stock or rate: what a metric's figures add up over (docs/units.md).

A flow (revenue, EBITDA, orders: a currency or a count over a period) adds up over periods and
over members: a fiscal year is the sum of its halves, quarters and months. A stock counted at a
date (headcount, FTE) adds up over members (two units' staff on the same day) but not over
periods. A rate (a percentage, a ratio such as revenue per FTE) adds up over neither.

The glossary says which with `kind = "flow" | "stock" | "rate"` on a metric (or the older
`additive = true|false`: true is a flow, false a stock or a rate by its unit); without either the
unit decides: currency and counts are flows, people (FTE) are stocks, PCT is a rate.

`adds_over_time` is the one question every sum over periods asks (a range's total, the
relations disclosure control protects), so that they agree.
"""

from __future__ import annotations

from typing import Any

FLOW, STOCK, RATE = "flow", "stock", "rate"
KINDS = (FLOW, STOCK, RATE)
# units counted at a date: people. A company may declare others (`kind = "stock"`)
_STOCK_UNITS = frozenset({"FTE", "HEADCOUNT", "EMPLOYEES", "PEOPLE", "HC"})
_RATE_UNITS = frozenset({"PCT", "PP", "BPS", "RATIO", "X", "PERCENT"})


def unit_nature(unit: str) -> str:
    """flow, stock or rate, from the unit code alone: PCT and "…_PER_…" units are rates, people
    (FTE) are a stock, every other unit (currency, counts: EUR_M, K_ORDERS) a flow."""
    code = unit.upper()
    if code in _RATE_UNITS or "_PER_" in f"_{code}_" or code.endswith("_RATIO"):
        return RATE
    if code in _STOCK_UNITS:
        return STOCK
    return FLOW


def metric_kind(glossary: Any, metric: str) -> str:
    """flow, stock or rate of a metric: the glossary's `kind`, else its `additive` (true: a
    flow; false: a stock unless its unit is a rate), else its unit; a derived ratio is a rate."""
    derived = glossary.derived.get(metric)
    if derived is not None:
        if derived.formula.op == "ratio":
            return RATE
        term = derived.term
    else:
        term = glossary.metrics.get(metric)
        if term is None:
            return RATE  # unknown: nothing adds up
    declared = getattr(term, "kind", None)
    if declared in KINDS:
        return str(declared)
    additive = getattr(term, "additive", None)
    by_unit = unit_nature(term.unit)
    if additive is True:
        return FLOW
    if additive is False:
        return RATE if by_unit == RATE else STOCK
    return by_unit


def adds_over_time(glossary: Any, metric: str) -> bool:
    """Whether `metric` over a fiscal year is the sum of its halves, quarters and months (a
    flow): a sum over periods is offered only then; an average is offered for every kind."""
    return metric_kind(glossary, metric) == FLOW


def adds_over(glossary: Any, metric: str, dimension: str) -> bool:
    """Whether summing `metric` over `dimension` ("period", "entity", "channel") means
    something: a flow always, a stock over members only, a rate never."""
    kind = metric_kind(glossary, metric)
    return kind == FLOW or (kind == STOCK and dimension != "period")
