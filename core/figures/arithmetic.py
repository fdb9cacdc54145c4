"""Exact arithmetic over fact values: sums, averages, growth rates, shares, and additivity.

Pure functions on Decimals, no lookup: core.figures.aggregate and core.figures.change feed them
the fact rows. A sum keeps every digit; a quotient (average, growth, share) keeps `PRECISION`
significant digits, every digit when it terminates. Nothing here rounds for display: the
answer rounds the value it shows (`shown`), `ask --json` keeps the exact one.

Additivity decides what "total" may mean. A flow (revenue, EBITDA, orders: a currency or a
count over a period) adds up over periods and over members. A stock counted at a date
(headcount, FTE) adds up over members (two units' staff on the same day) but not over periods
(the staff of 2023 plus the staff of 2024 counts the same people twice). A rate (a percentage, a
ratio such as revenue per FTE) adds up over neither. The glossary may declare
`kind = "flow" | "stock" | "rate"` on a metric; without it the unit decides
(core.knowledge.metric_kind).
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation, localcontext

# `X as X`: re-exported (one definition, read here as `ar.plain`, `ar.RATE`, ...)
from core.knowledge.formulas import PRECISION, exponent
from core.knowledge.formulas import plain as plain
from core.knowledge.metric_kind import FLOW as FLOW
from core.knowledge.metric_kind import RATE as RATE
from core.knowledge.metric_kind import STOCK as STOCK
from core.knowledge.metric_kind import adds_over as adds_over
from core.knowledge.metric_kind import metric_kind
from core.knowledge.metric_kind import unit_nature as unit_nature

nature = metric_kind  # a metric's nature, FLOW, STOCK or RATE, by the name figures read


def default_additive(unit: str) -> bool:
    """Whether a metric in `unit` adds up over periods when the glossary does not say."""
    return unit_nature(unit) == FLOW


def exact_sum(values: Sequence[Decimal]) -> Decimal:
    """Every digit of the sum (the default context would round past 28 digits)."""
    if not values:
        return Decimal(0)
    top = max(v.adjusted() for v in values) + len(values).bit_length() + 1
    low = min(exponent(v) for v in values)
    with localcontext() as ctx:
        ctx.prec = max(ctx.prec, top - low + 2)
        total = Decimal(0)
        for v in values:
            total += v
        return total


def exact_difference(later: Decimal, earlier: Decimal) -> Decimal:
    return exact_sum([later, -earlier])


def quotient(numerator: Decimal, denominator: Decimal, scale: int = 1) -> Decimal | None:
    """numerator × scale ÷ denominator to PRECISION digits; None over zero."""
    if denominator == 0:
        return None
    with localcontext() as ctx:
        ctx.prec = max(PRECISION, len(numerator.as_tuple().digits) + 4)
        ctx.traps[InvalidOperation] = True
        top = numerator * scale
        ctx.prec = PRECISION
        return plain(top / denominator)


def average(values: Sequence[Decimal]) -> Decimal:
    """The arithmetic mean (unweighted)."""
    result = quotient(exact_sum(values), Decimal(len(values)))
    assert result is not None  # callers never average nothing
    return result


def growth(later: Decimal, earlier: Decimal) -> Decimal | None:
    """% change from `earlier` to `later` (over |earlier|: a loss shrinking is growth);
    None when `earlier` is zero."""
    return quotient(exact_difference(later, earlier), abs(earlier), 100)


def share(part: Decimal, whole: Decimal) -> Decimal | None:
    """`part` as a % of `whole`; None when the whole is zero."""
    return quotient(part, whole, 100)


def decimals_of(values: Sequence[Decimal]) -> int:
    """The most decimals any of `values` is written with (120.3 -> 1)."""
    return max((max(0, -exponent(v)) for v in values), default=0)


def rounded(value: Decimal, decimals: int) -> Decimal:
    """Half-up to `decimals` places, for display."""
    with localcontext() as ctx:
        ctx.prec = max(ctx.prec, value.adjusted() + decimals + 3)
        return value.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)


