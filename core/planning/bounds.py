"""Bounded work per question: how much one question may look up, compute, say and store.

One question could name eight metrics, six units and channels and two centuries: 10,560
lookups, a 945,566-character answer stored whole in its turn (issue 26). Each bound here is a
setting (bot/settings/model.py) with a safe default; when one is reached the answer says so in the
reader's language, what was left out and how to narrow, and nothing is silently dropped:
- lookups per question: counted from the plan before anything runs;
- table cells: counted from the table the request asks for, before it is built;
- periods in a range: a range longer than the bound is said to be too long (never answered as
  its two ends, as it used to be), with a shorter range to ask instead;
- answer length: the parts past the bound are cut, and the answer says how many;
the turn stores the bounded answer. Messages per answer per chat are bounded by the adapters
(core.catalog.presentation.bound_messages).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from core.catalog.formats import number
from core.catalog.lookup import say
from core.contracts.types import Line, Period, PeriodType, Segment, Table
from core.fiscal_calendar import PER_YEAR, last_complete_fiscal_year, shift_period
from core.question.analysis_cues import AND_GAP, GRAIN, RANGE_BEFORE, RANGE_GAP
from core.question.period_labels import period_label
from core.question.periods import find_periods
from core.question.table_shape import MAX_SERIES

_YEARS = re.compile(r"(?<!\d)(\d{4})\s*(?:-|–|—|~|～|to|till|until|through|a|al|fino\s+al|至|到)"
                    r"\s*(\d{4})(?!\d)", re.IGNORECASE)


@dataclass(frozen=True)
class Bounds:
    """The bounds of one question (defaults: a question a person reads in a chat)."""

    max_lookups: int = 200  # fact lookups (a derived figure is two)
    max_table_cells: int = 400  # cells of one table, members x periods x metrics
    max_range_periods: int = MAX_SERIES  # periods in one range (at most MAX_SERIES)
    max_answer_chars: int = 12_000  # the answer's text; more is cut and said so
    max_messages: int = 4  # chat messages for one answer (adapters)


@dataclass(frozen=True)
class LongRange:
    first: str  # as the reader reads it: FY1900, Q1 2001
    last: str
    count: int
    narrower: str  # a range within the bound: "FY2002–FY2025"


def lookups_needed(plan: Any) -> int:
    """The fact lookups a plan's steps make: one per query_metric, two per derived metric."""
    count = 0
    for step in plan.steps:
        tool = step.get("tool")
        if tool == "query_metric":
            count += 1
        elif tool == "derived_metric":
            count += 2
    return count


def lookups_asked(intent: Any, glossary: Any) -> int:
    """The lookups a plain (non-table) request implies: one per metric, entity, channel and
    period combination, two for a derived metric; counted before any plan is made."""
    if getattr(intent, "analysis", None) is not None:
        return 0
    metrics = sum(2 if m in glossary.derived else 1 for m in intent.metrics) or 1
    return (metrics * max(1, len(intent.entities)) * max(1, len(intent.channels))
            * max(1, len(intent.periods)))


def table_cells(intent: Any, glossary: Any, cleared: bool) -> int:
    """The cells the table this request asks for would have (0: no table)."""
    analysis = getattr(intent, "analysis", None)
    if analysis is None:
        return 0
    if analysis.kind == "series":
        members = max(1, len(intent.entities)) * max(1, len(intent.channels))
        return len(analysis.periods) * members * max(1, len(intent.metrics))
    dimension = getattr(analysis, "dimension", "entity")
    members = (len(glossary.channels) if dimension == "channel"
               else len(glossary.visible_entities(cleared)))
    periods = max(1, len(analysis.periods))
    return members * periods * max(1, len(intent.metrics)) * (2 if analysis.measure == "growth"
                                                               else 1)


def overlong_range(text: str, reference: Any, fiscal_year_end: str, limit: int,
                   language: str, matches: Sequence[Any] | None = None) -> LongRange | None:
    """A range asked for ("from 2001 to 2024", "monthly from 2001 to 2024", "from 1900 to
    2100") with more periods than `limit`, or None. `matches`: the periods the parser already
    found in `text` (offsets kept), so the question is not parsed again; None: found here."""
    grain = next((kind for kind, pattern in GRAIN if pattern.search(text)), None)
    if matches is None:
        matches = find_periods(text, reference, fiscal_year_end)
    ends = _range_ends(text, matches)
    if ends is None:
        years = _YEARS.search(text)  # years outside what a period may be (1900) count too
        if years is None or int(years.group(2)) <= int(years.group(1)):
            return None
        ends = (Period(PeriodType.FY, years.group(1)), Period(PeriodType.FY, years.group(2)))
    first, last = ends
    if first.type is not last.type or last.value <= first.value:
        return None
    count = _distance(first, last) + 1
    unit = first.type
    if grain is not None and first.type is PeriodType.FY:
        unit = PeriodType(grain)
        count *= PER_YEAR[unit]
    if count <= limit:
        return None
    end = _last_of(last, unit)
    latest = _last_of(last_complete_fiscal_year(reference, fiscal_year_end), unit)
    if first.value[:4] <= latest.value[:4] < end.value[:4]:
        end = latest  # a suggestion with figures in it, not the far future
    start = shift_period(end, -(limit - 1))
    narrower = (f"{period_label(start, language, fiscal_year_end)}–"
                f"{period_label(end, language, fiscal_year_end)}")
    return LongRange(period_label(first, language, fiscal_year_end),
                     period_label(last, language, fiscal_year_end), count, narrower)


def _range_ends(text: str, matches: Sequence[Any]) -> tuple[Period, Period] | None:
    """The two periods a range connector joins ("from A to B", "A-B", "tra A e B")."""
    for a, b in itertools.pairwise(matches):
        if a.period is None or b.period is None:
            continue
        gap = text[a.end : b.start]
        before = text[max(0, a.start - 12) : a.start]
        joined = RANGE_GAP.fullmatch(gap) is not None or (
            AND_GAP.fullmatch(gap) is not None and RANGE_BEFORE.search(before) is not None)
        if joined:
            return a.period, b.period
    return None


def _distance(first: Period, last: Period) -> int:
    per = PER_YEAR[first.type]
    return (last.year - first.year) * per + (_index(last) - _index(first))


def _index(p: Period) -> int:
    if p.type is PeriodType.HY or p.type is PeriodType.Q:
        return int(p.value[-1]) - 1
    if p.type is PeriodType.M:
        return int(p.value[5:7]) - 1
    return 0


def _last_of(last: Period, unit: PeriodType) -> Period:
    """The last period of type `unit` inside `last` (a fiscal year's last month)."""
    if last.type is unit:
        return last
    year = last.value[:4]
    return {PeriodType.HY: Period(PeriodType.HY, f"{year}H2"),
            PeriodType.Q: Period(PeriodType.Q, f"{year}Q4"),
            PeriodType.M: Period(PeriodType.M, f"{year}-12")}.get(unit, last)


def too_much_lines(language: str, *, kind: str, asked: int, limit: int) -> list[Line]:
    """The reply to a question past a bound: what was asked, the bound, how to narrow."""
    return [Line("notice", say(f"bound_{kind}", language, asked=number(Decimal(asked), language),
                               limit=number(Decimal(limit), language))),
            Line("narrow", say("bound_narrow", language))]


def long_range_lines(language: str, long: LongRange, limit: int) -> list[Line]:
    return [Line("notice", say("bound_range", language, first=long.first, last=long.last,
                               count=number(Decimal(long.count), language),
                               limit=number(Decimal(limit), language),
                               narrower=long.narrower))]


def bound_segments(segments: list[Segment], room: int, language: str, *, limit: int
                   ) -> list[Segment]:
    """The parts of an answer that fit in `room` characters, whole, then a line saying the
    answer was cut at `limit` and how many parts were left out; a table too long is cut by
    rows, its notes saying how many are shown."""
    out: list[Segment] = []
    used = 0
    for i, seg in enumerate(segments):
        cost = _size(seg)
        if used + cost <= room:
            out.append(seg)
            used += cost
            continue
        if isinstance(seg, Table) and seg.rows:
            rows = list(seg.rows)
            while rows and used + _size(replace(seg, rows=tuple(rows))) > room:
                rows.pop()
            if rows:
                note = say("bound_rows", language, shown=len(rows), total=len(seg.rows))
                out.append(replace(seg, rows=tuple(rows), notes=(*seg.notes, note)))
        out.append(Line("notice", say("bound_cut", language,
                                      limit=number(Decimal(limit), language),
                                      parts=number(Decimal(len(segments) - i), language))))
        out.append(Line("narrow", say("bound_narrow", language)))
        return out
    return out


def _size(seg: Segment) -> int:
    if isinstance(seg, Table):
        return sum(len(" ".join(r)) + 1 for r in seg.rows) + len(seg.title) + 80
    return len(getattr(seg, "text", "")) + 1
