"""The inputs of an arithmetic answer and its result as a fact.

A `Cell` is one figure an arithmetic answer uses: a stored row (through
StructuredChannel.query_metric, which enforces clearance and normalisation) or a derived
metric computed exactly from its inputs (core.figures.derived), with the sources it rests on.
An `ArithmeticFact` is the computed result in the `ask --json` derived-fact shape: the op and
its inputs in `formula`, the input facts in `inputs`, and, when an input has no row, `missing`
naming each absent row (metric, entity, period, channel) and no number at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from core.contracts.types import FactResult, FactStatus, Period, PeriodType, Source
from core.figures.derived import DerivedFact, query_derived
from core.figures.disclosed import WITHHELD
from core.figures.step_context import ExecutionContext

MISSING_INPUT = "missing_input"
UNIT_MISMATCH = "unit_mismatch"
ZERO_BASE = "zero_denominator"
NOT_ADDITIVE = "not_additive"


@dataclass(frozen=True)
class Cell:
    """One input: its lookup result, and when found its exact value, unit and sources."""

    result: FactResult
    value: Decimal | None = None
    unit: str = ""
    sources: tuple[Source, ...] = ()

    @property
    def found(self) -> bool:
        return self.value is not None

    @property
    def unrecognized(self) -> bool:
        return self.result.status is FactStatus.UNRECOGNIZED


def lookup(ctx: ExecutionContext, metric: str, entity: str, channel: str, period: Period) -> Cell:
    """The figure of `metric` for entity/channel/period, stored or derived, as this chat may
    see it (`ctx`: core.planning.executors.ExecutionContext)."""
    if metric in ctx.glossary.derived:
        d = query_derived(ctx.structured, metric, entity, period, channel,
                          cleared=ctx.request.cleared, reference_date=ctx.request.reference)
        if isinstance(d, DerivedFact) and d.status is FactStatus.FOUND and d.value is not None:
            return Cell(d, d.value, d.unit, tuple(d.sources))
        if isinstance(d, DerivedFact) and d.reason == WITHHELD:  # kept: it says why
            return Cell(d)
        if isinstance(d, DerivedFact):  # an input missing: this figure is missing
            return Cell(FactResult(FactStatus.NOT_FOUND, metric=metric, entity=d.entity,
                                   period=d.period, channel=d.channel))
        return Cell(d)
    r: FactResult = ctx.structured.query_metric(metric, entity, period, channel,
                                                cleared=ctx.request.cleared,
                                                reference_date=ctx.request.reference)
    if r.fact is None:
        return Cell(r)
    return Cell(r, r.fact.value, r.fact.unit, (r.fact.source,))


@dataclass(frozen=True)
class ArithmeticFact(DerivedFact):
    """A sum, average, growth, share or growth comparison, computed in code from `inputs`.

    `period` is the span for a result over periods (Period FY "2021-2023"); `entity` the
    "+"-joined members for a result over members ("ORBIS_IT+ORBIS_HK")."""

    formula: dict[str, Any] | None = None
    missing_rows: tuple[FactResult, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        if self.status is not FactStatus.FOUND:
            out["missing"] = [_row(r) for r in self.missing_rows]
        return out


def _row(r: FactResult) -> dict[str, Any]:
    return {
        "metric_code": r.metric,
        "entity": r.entity,
        "period_type": r.period.type.value if r.period else None,
        "period": r.period.value if r.period else None,
        "channel": r.channel,
    }


def span(periods: list[Period]) -> Period:
    """The period field of a result over `periods`: "2021-2023" (FY), "2025Q1-2025Q4"."""
    first, last = periods[0], periods[-1]
    value = first.value if first == last else f"{first.value}-{last.value}"
    return Period(first.type if first.type is last.type else PeriodType.FY, value)


def input_facts(cells: list[Cell]) -> tuple[FactResult, ...]:
    """The inputs as facts for `inputs` in ask --json: a stored row, or a derived figure
    with its own inputs."""
    return tuple(c.result for c in cells if c.found)
