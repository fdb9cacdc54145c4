"""What a plan's step may read about the request it runs for: the request's context (text,
language, clearance, reference date, calendar), its parse, the clock, the glossary and the
channels. Made once per run by the answerer (core.planning.answering) and handed to every
step; here, below planning, so the table and arithmetic steps in core.figures name its type.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.contracts.context import RequestContext
from core.contracts.errors import Unresolvable
from core.contracts.ports import TurnStore
from core.figures.structured import StructuredChannel
from core.knowledge.glossary import Glossary
from core.question.intent import Intent
from core.question.table_shape import Analysis

if TYPE_CHECKING:
    from core.contracts.deferred import Deferred
    from core.documents.narrative_tools import NarrativeTools


@dataclass
class ExecutionContext:
    """Everything a tool may read about the current request."""

    request: RequestContext
    intent: Intent
    now: dt.datetime
    glossary: Glossary  # the request's, shown in the scale it asked for ("in millions")
    structured: StructuredChannel
    narrative: Deferred[NarrativeTools] | None = None  # built by the first search
    turns: TurnStore | None = None
    turn_lookup: Callable[[str], list[Any]] | None = None  # chat -> recent turns, newest first
    replay: bool = False  # a cached plan: model work on identical inputs may be reused
    max_lookups: int = 200  # fact lookups one question may make (core.planning.bounds)


def asked_table(ctx: ExecutionContext) -> Analysis:
    """The table the question asks for. A table step runs on a plan made for one; a cached
    plan replayed on a question that asks for none does not fit it (Unresolvable: a miss)."""
    analysis = ctx.intent.analysis
    if analysis is None:
        raise Unresolvable("the question asks for no table")
    return analysis
