"""The structured channel: the only producer of numbers.

`query_metric` normalises every parameter through the glossary and looks the fact up exactly.
It answers `found`, `not_found` or `unrecognized_param` and never interpolates or guesses.
A fact stored in another unit of its metric's dimension (stored before the glossary changed the
metric's unit) is read in the metric's unit, converted exactly (core.knowledge.unit_kinds).
Several metrics/entities/periods become one deterministic query per combination.
A unit that holds a metric only in its own currency ("Revenue in CNY" for Meridian China,
core.knowledge.currency_variants) answers with that figure, under its own label and unit:
never converted.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace
from decimal import Decimal, localcontext

from core.contracts.ports import FactStore
from core.contracts.types import Fact, FactResult, FactStatus, Period
from core.figures.disclosed import withheld_total
from core.knowledge.currency_variants import currency_variants
from core.knowledge.disclosure import protects
from core.knowledge.names import NameIndex
from core.knowledge.unit_kinds import RowUnit
from core.question.periods import normalize_period

TOTAL = "TOTAL"


@dataclass(frozen=True)
class Difference:
    """Later minus earlier for the same metric/entity/channel, computed in code."""

    earlier: FactResult
    later: FactResult
    delta: Decimal
    pct: Decimal | None  # None when the earlier value is zero


class StructuredChannel:
    def __init__(self, *, names: NameIndex, facts: FactStore) -> None:
        self.names = names
        self.glossary = names.glossary
        self.facts = facts
        self.units = self.glossary.metric_units()
        self.variants = currency_variants(self.glossary)  # "Revenue" -> ("Revenue in CNY",)
        # whether a cell may have to be withheld is the glossary's say alone (its policy and
        # relations, core.knowledge.disclosure.protects), the same for every period of it: read
        # once per metric, entity, channel and clearance for this glossary (bounded by its size)
        self._protected: dict[tuple[str, str, str, bool], bool] = {}

    def query_metric(
        self,
        metric: str,
        entity: str,
        period: str | Period,
        channel: str | None = None,
        *,
        cleared: bool = False,
        reference_date: dt.date,
    ) -> FactResult:
        """Look up one fact; raw names and codes are both accepted for every parameter.
        `reference_date`: the day the request was asked at (the answerer's injected clock),
        which a relative period ("last year") is read against."""
        metric_code = self.names.normalize("metric", metric)
        if metric_code is None or metric_code not in self.glossary.metrics:
            # a derived metric has no row to look up: core.figures.derived computes it, never this
            return FactResult(FactStatus.UNRECOGNIZED, param="metric", raw=metric)
        entity_code = self.names.normalize("entity", entity)
        term = self.glossary.entities.get(entity_code or "")
        if entity_code is None or term is None or (term.restricted and not cleared):
            # a restricted entity is out of scope for this chat: indistinguishable from unknown
            return FactResult(FactStatus.UNRECOGNIZED, param="entity", raw=entity)
        channel_code = TOTAL if channel in (None, "") else self.names.normalize("channel", channel)
        if channel_code is None or (
            getattr(self.glossary.channels.get(channel_code), "restricted", False) and not cleared
        ):
            return FactResult(FactStatus.UNRECOGNIZED, param="channel", raw=str(channel))
        if isinstance(period, Period):
            period_value: Period | None = period
        else:
            period_value = normalize_period(period, reference_date, self.glossary.fiscal_year_end)
        if period_value is None:
            return FactResult(FactStatus.UNRECOGNIZED, param="period", raw=str(period))
        if self._protects(metric_code, entity_code, channel_code, cleared):
            # a total that would reveal a restricted member: withheld, with the reason
            held = withheld_total(self.glossary, self.facts, metric_code, entity_code,
                                  period_value, channel_code)
            if held is not None:
                return held
        fact = self.facts.lookup(metric_code, entity_code, period_value, channel_code)
        if fact is None:
            for variant in self.variants.get(metric_code, ()):  # its own currency's figure
                found = self.query_metric(variant, entity_code, period_value, channel_code,
                                          cleared=cleared, reference_date=reference_date)
                if found.status is FactStatus.FOUND:
                    return found
            return FactResult(
                FactStatus.NOT_FOUND,
                metric=metric_code,
                entity=entity_code,
                period=period_value,
                channel=channel_code,
            )
        return FactResult(
            FactStatus.FOUND,
            fact=self._in_metric_unit(fact),
            metric=metric_code,
            entity=entity_code,
            period=period_value,
            channel=channel_code,
        )

    def _protects(self, metric: str, entity: str, channel: str, cleared: bool) -> bool:
        key = (metric, entity, channel, cleared)
        known = self._protected.get(key)
        if known is None:
            known = self._protected[key] = protects(self.glossary, metric, entity, channel,
                                                    cleared=cleared)
        return known

    def _in_metric_unit(self, fact: Fact) -> Fact:
        """The fact in its metric's unit when it is stored in another of the same dimension;
        otherwise as stored (a table leaves it out: core.figures.tabulate)."""
        settled = self.units.settle(fact.metric, fact.unit, fact.value)
        if isinstance(settled, RowUnit) and settled.converted_from:
            return replace(fact, value=settled.value, unit=settled.unit)
        return fact

    def available_periods(self, metric: str, entity: str, channel: str) -> list[Period]:
        derived = self.glossary.derived.get(metric)
        if derived is not None:  # the periods both inputs have
            left, right = (self.facts.periods(m, entity, channel) for m in derived.formula.inputs)
            return [p for p in left if p in set(right)]
        return self.facts.periods(metric, entity, channel)


def two_period_difference(results: list[FactResult]) -> Difference | None:
    """For exactly two comparable found facts that differ only by period: later minus earlier."""
    found = [r for r in results if r.status is FactStatus.FOUND and r.fact is not None]
    if len(found) != 2 or len(results) != 2:
        return None
    a, b = sorted(found, key=lambda r: _period_order(r.period))
    fa, fb = a.fact, b.fact
    assert fa is not None and fb is not None
    same = (fa.metric, fa.entity, fa.channel, fa.unit) == (
        fb.metric,
        fb.entity,
        fb.channel,
        fb.unit,
    )
    if not same or fa.period == fb.period or fa.period.type != fb.period.type:
        return None
    delta = exact_difference(fb.value, fa.value)
    pct = None if fa.value == 0 else (delta / abs(fa.value) * 100)
    return Difference(earlier=a, later=b, delta=delta, pct=pct)


def exact_difference(later: Decimal, earlier: Decimal) -> Decimal:
    """`later - earlier` with every digit: the default context keeps 28 significant digits,
    which rounds the difference of two long values (or of a large and a very precise one)."""
    span = max(later.adjusted(), earlier.adjusted()) - min(
        int(later.as_tuple().exponent), int(earlier.as_tuple().exponent)
    )
    with localcontext() as ctx:
        ctx.prec = max(ctx.prec, span + 2)
        return later - earlier


def _period_order(period: Period | None) -> tuple[int, str]:
    return (period.year, period.value) if period else (0, "")
