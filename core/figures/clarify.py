"""The clarification gate, deliberately asymmetric.

A missing metric is asked for first: guessing which number someone wants would be a substantive
error. A missing entity or period is filled with a stated assumption (the default entity, the
last complete fiscal year) and the answer offers one-tap options to narrow it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.catalog.lookup import say
from core.contracts.context import RequestContext
from core.contracts.types import Assumption, Option, Period, PeriodType
from core.figures.default_period import DefaultPeriod, default_period
from core.figures.structured import TOTAL, StructuredChannel
from core.fiscal_calendar import last_complete_fiscal_year
from core.knowledge.glossary import Glossary
from core.question.intent import Intent
from core.question.period_labels import period_label

MAX_OPTIONS_PER_SLOT = 6


@dataclass
class Slots:
    """The slots a structured answer will use, after assumptions."""

    metrics: list[str]
    entities: list[str]
    periods: list[Period]
    channels: list[str]
    assumptions: list[Assumption] = field(default_factory=list)
    options: list[Option] = field(default_factory=list)


def metric_options(
    glossary: Glossary, language: str, only: list[str] | None = None
) -> list[Option]:
    """A button per metric; `only`: the metrics a name fits about equally, the reader picks."""
    if only:
        return [Option(glossary.label("metric", c, language), "metric", c) for c in only]
    return [Option(t.label_for(language), "metric", code) for code, t in glossary.metrics.items()]


def fill_slots(
    intent: Intent,
    *,
    glossary: Glossary,
    structured: StructuredChannel,
    request: RequestContext,
) -> Slots:
    """Fill a missing entity/period with its default, recording why and what else could be
    asked: in the request's language, for what its chat may see, as of its reference date."""
    language, cleared = request.language, request.cleared
    slots = Slots(
        intent.metrics,
        list(intent.entities),
        list(intent.periods),
        list(intent.channels) or [TOTAL],
    )
    entity_assumed = not slots.entities and not intent.unknown_entities
    if entity_assumed:
        default = glossary.default_entity
        slots.entities = [default]
        slots.assumptions.append(
            Assumption("entity", glossary.label("entity", default, language), "default entity")
        )
    period_assumed = not slots.periods and not intent.bad_periods
    if period_assumed:
        slots.assumptions.append(_assume_period(slots, structured, request))
    slots.assumptions += _latest_readings(intent, slots, language, request.fiscal_year_end)
    if entity_assumed:
        slots.options += [
            Option(t.label_for(language), "entity", t.code)
            for t in glossary.visible_entities(cleared)
            if t.code != glossary.default_entity
        ][:MAX_OPTIONS_PER_SLOT]
    if period_assumed and slots.metrics and slots.entities:
        slots.options += _period_options(structured, slots, language)
    return slots


def _assume_period(slots: Slots, structured: StructuredChannel, request: RequestContext
                   ) -> Assumption:
    """The last complete fiscal year, or the latest with a figure when it has none yet (the
    same choice the plan's step made: core.figures.default_period)."""
    fye = request.fiscal_year_end
    if slots.metrics and slots.entities:
        chosen = default_period(
            structured, slots.metrics[0], slots.entities[0], slots.channels[0],
            reference_date=request.reference, cleared=request.cleared,
        )
    else:
        chosen = DefaultPeriod(last_complete_fiscal_year(request.reference, fye))
    slots.periods = [chosen.period]
    label = period_label(chosen.period, request.language, fye)
    if chosen.missing is None:
        return Assumption("period", label, "last complete fiscal year")
    missing = period_label(chosen.missing, request.language, fye)
    note = say("assumed_period_latest", request.language, value=label, missing=missing)
    reason = f"latest fiscal year with a figure ({chosen.missing.code} has none yet)"
    return Assumption("period", label, reason, note)


def _latest_readings(intent: Intent, slots: Slots, language: str, fiscal_year_end: str
                     ) -> list[Assumption]:
    """"Q3", "December" named without a year: which one was answered, and why."""
    out = []
    for raw, period in getattr(intent, "latest_periods", ()):
        if period in slots.periods:
            label = period_label(period, language, fiscal_year_end)
            out.append(Assumption("period", label, "the latest complete one",
                                  say("assumed_period_named", language, value=label, raw=raw)))
    return out


def _period_options(structured: StructuredChannel, slots: Slots, language: str) -> list[Option]:
    """Other periods that actually have a fact: recent fiscal years first, then halves/quarters."""
    assumed = slots.periods[0]
    available = [
        p
        for p in structured.available_periods(
            slots.metrics[0], slots.entities[0], slots.channels[0]
        )
        if p != assumed
    ]
    if not available:
        available = [Period(PeriodType.FY, str(assumed.year - i)) for i in (1, 2)]
    order = {PeriodType.FY: 0, PeriodType.HY: 1, PeriodType.Q: 2, PeriodType.M: 3}
    ranked = sorted(available, key=lambda p: (order[p.type], -p.year, p.value))
    fiscal = [p for p in ranked if p.type is PeriodType.FY][:3]
    finer = [
        p
        for p in sorted(available, key=lambda p: p.value, reverse=True)
        if p.type is not PeriodType.FY
    ][: MAX_OPTIONS_PER_SLOT - len(fiscal)]
    fye = structured.glossary.fiscal_year_end
    return [Option(period_label(p, language, fye), "period", p.code) for p in fiscal + finer]
