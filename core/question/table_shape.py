"""The table a question asks for (a series, breakdown, ranking, comparison, aggregate or
count), as a value: what core.question.range_parse detects, what a follow-up keeps of it
(`Analysis.shape`, `from_shape`), and the sizes a chat can read. Apart from the detection, so
the figures and the conversation read the shape without loading the cue words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal

from core.contracts.types import Period

__all__ = ["MAX_COLUMNS", "MAX_SERIES", "Analysis", "from_shape"]

MAX_SERIES = 24  # more periods than this is not a table a chat can read
MAX_COLUMNS = 8  # a breakdown over more periods than this is too wide for a chat


@dataclass(frozen=True)
class Analysis:
    """The table a question asks for. `spans` are the cue words, which are not "why" cues."""

    kind: str  # series | breakdown | ranking | comparison
    periods: tuple[Period, ...] = ()  # series: every period, oldest first
    dimension: str = "entity"  # breakdown, ranking, comparison: entity | channel
    measure: str = "value"  # ranking: value | growth
    descending: bool = True
    assumed_metric: str = ""  # "which unit grew fastest?" names no metric: the first one
    assumed_period: bool = False  # no period named: the last complete fiscal year
    spans: tuple[tuple[int, int], ...] = field(default=(), compare=False)
    # a ranking over periods ("which quarter…"): the period type ranked (FY, HY, Q, M)
    grain: str = ""
    # a range written longer than a table holds ("FY1800–FY2024"): its two ends; `periods`
    # are then its most recent MAX_SERIES (core.figures.period_coverage clips to the data)
    asked: tuple[Period, ...] = ()
    # a count ("how many units had revenue above €100M"): the threshold as written, and
    # whether it carried a scale or currency (core.question.count_parse)
    threshold: Decimal | None = None
    scaled: bool = False

    def shape(self) -> str:
        """What a follow-up keeps of this table ("and FY2023?" after a breakdown by entity is
        that breakdown for FY2023): kind, dimension, measure and order, never its periods or
        members, which are the conversation's slots."""
        order = "desc" if self.descending else "asc"
        return f"{self.kind}:{self.dimension}:{self.measure}:{order}"


_SHAPE = re.compile(r"(series|breakdown|ranking|comparison):(entity|channel):(value|growth)"
                    r":(asc|desc)")


def from_shape(
    shape: str, periods: list[Period], *, entities: int, channels: int
) -> Analysis | None:
    """The table of `Analysis.shape` over a follow-up's resolved slots, or None when they no
    longer make that table (a series needs several periods, a ranking or a comparison one at
    most, a comparison two members) or the shape is not one this module writes."""
    m = _SHAPE.fullmatch(shape)
    if m is None:
        return None
    kind, dimension, measure, order = m.groups()
    if kind == "series":
        if not 2 <= len(periods) <= MAX_SERIES:
            return None
        return Analysis("series", periods=tuple(periods))
    if kind == "breakdown":
        if len(periods) > MAX_COLUMNS:
            return None
        over = tuple(periods) if len(periods) > 1 else ()
        return Analysis("breakdown", periods=over, dimension=dimension,
                        assumed_period=not periods)
    if len(periods) > 1:
        return None
    if kind == "comparison":
        if (entities if dimension == "entity" else channels) < 2:
            return None
        return Analysis("comparison", dimension=dimension, assumed_period=not periods)
    return Analysis("ranking", dimension=dimension, measure=measure,
                    descending=order == "desc", assumed_period=not periods)
