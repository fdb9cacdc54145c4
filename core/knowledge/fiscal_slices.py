"""The fact table in independent slices for the disclosure checks: one metric, one fiscal year.

Every relation the disclosure policy knows (core.knowledge.disclosure) stays inside one metric
and one fiscal year: a total and its members share the metric and the period, and a flow's year
is the sum of its own halves, quarters and months. So `protection`, `withheld_figures` and
`find_disclosures` give over each slice exactly what they give over the whole table, and a
table of ten million facts can be checked holding one slice at a time (the ingest report).

The facts come sorted by metric (all of a metric's together, in any order of metrics) and,
within a metric, by the first four characters of the period (its year as written). A month
belongs to the fiscal year in which it ends or the next one, a year, half or quarter to its
own, so once the written year reaches Y every fiscal year before Y is complete.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from core.contracts.types import Fact
from core.knowledge.period_relations import fiscal_year


def slice_order(fact: Fact) -> tuple[str, str]:
    """The order `fiscal_slices` reads facts in (what a store sorts by)."""
    return fact.metric, fact.period.value[:4]


def fiscal_slices(facts: Iterable[Fact], fiscal_year_end: str) -> Iterator[list[Fact]]:
    """The facts of each (metric, fiscal year), one list at a time, from facts in
    `slice_order` (each metric's facts together). Raises ValueError on facts out of that
    order: a slice cut short would make the checks silently wrong."""
    metric: str | None = None
    done: set[str] = set()
    prefix = ""
    open_years: dict[int, list[Fact]] = {}
    for fact in facts:
        if fact.metric != metric:
            yield from _flush(open_years, None)
            if fact.metric in done:
                raise ValueError(f"facts of {fact.metric} are not together: cannot slice them")
            if metric is not None:
                done.add(metric)
            metric, prefix = fact.metric, ""
        written = fact.period.value[:4]
        if written < prefix:
            raise ValueError(f"facts of {metric} are not in period order: cannot slice them")
        if written != prefix:
            prefix = written
            yield from _flush(open_years, int(written))
        open_years.setdefault(fiscal_year(fact.period, fiscal_year_end), []).append(fact)
    yield from _flush(open_years, None)


def _flush(open_years: dict[int, list[Fact]], before: int | None) -> Iterator[list[Fact]]:
    """The complete years (all of them when `before` is None), oldest first, let go of."""
    for year in sorted(open_years):
        if before is not None and year >= before:
            break
        yield open_years.pop(year)
