"""The executor catalog: the tools a plan's steps name, and the loop that runs a plan.

Every argument is resolved against the *current* request before a tool sees it, so a cached
plan re-reads the fact table and re-retrieves documents: an answer is never stale. Access
control (restricted data) is enforced inside the tools with the requesting chat's clearance.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from core.catalog.formats import date as date_text
from core.catalog.lookup import say
from core.contracts.errors import Unresolvable
from core.contracts.ports import ScoredChunk
from core.contracts.types import (
    Assumption,
    FactResult,
    FactStatus,
    Line,
    Route,
    Segment,
    Source,
)
from core.figures.default_period import default_period
from core.figures.derived import DerivedFact, query_derived
from core.figures.disclosed import WithheldTotal
from core.figures.step_context import ExecutionContext
from core.figures.structured import TOTAL
from core.fiscal_calendar import last_complete_fiscal_year
from core.planning.plan import Plan, slot_ref
from core.question.subject import mentioned, not_known

if TYPE_CHECKING:  # the document, table and arithmetic tools import their modules when run
    from core.documents.narrative import NarrativeResult
    from core.figures.table_parts import Built


@dataclass
class ExecutionState:
    results: list[FactResult] = field(default_factory=list)
    snippets: list[ScoredChunk] = field(default_factory=list)
    narrative: NarrativeResult | None = None
    narrative_found: bool = False
    tool_text: str | None = None
    sources: list[Source] = field(default_factory=list)
    listed: list[Source] = field(default_factory=list)  # a tool's sources, shown as citations
    tables: list[Segment] = field(default_factory=list)  # a computed table and its lines
    table_sources: list[Source] = field(default_factory=list)  # the table's [n], in order
    assumptions: list[Assumption] = field(default_factory=list)  # what a table assumed


@dataclass(frozen=True)
class Executor:
    name: str
    run: Callable[[dict[str, Any], ExecutionContext, ExecutionState], None]
    cacheable: bool = True


def resolve(value: Any, ctx: ExecutionContext) -> Any:
    """A literal stays; a slot reference takes its value from the current request."""
    ref = slot_ref(value)
    if ref is None:
        return value
    kind, index, default = ref
    intent = ctx.intent
    if default == "default" and kind == "entity":
        return ctx.glossary.default_entity
    if default == "last_fy" and kind == "period":
        return last_complete_fiscal_year(ctx.request.reference, ctx.glossary.fiscal_year_end).code
    if default == "total" and kind == "channel":
        return TOTAL
    if kind == "query":
        return ctx.request.text
    lists = {
        "metric": intent.metrics,
        "entity": intent.entities,
        "channel": intent.channels,
        "period": [p.code for p in intent.periods],
    }
    if kind == "year" and intent.periods:
        return intent.periods[0].value[:4]
    if kind in lists:
        values = lists[kind]
        position = index or 0
        if position < len(values):
            return values[position]
    raise Unresolvable(f"the request has no {kind} for {value}")


def resolve_args(args: Mapping[str, Any], ctx: ExecutionContext) -> dict[str, Any]:
    """A step's arguments for this request; an assumed period is settled once the step's
    metric and entity are known, as it depends on which years have a figure."""
    resolved = {k: resolve(v, ctx) for k, v in args.items()}
    if slot_ref(args.get("period")) == ("period", None, "last_fy"):
        resolved["period"] = _default_period(resolved, ctx)
    return resolved


def _default_period(args: dict[str, Any], ctx: ExecutionContext) -> str:
    """The assumed period of a one-figure step: the last complete fiscal year, or the latest
    with a figure when that one has none yet (core.figures.default_period)."""
    if not isinstance(args.get("metric"), str) or not isinstance(args.get("entity"), str):
        return str(args["period"])
    chosen = default_period(
        ctx.structured, args["metric"], args["entity"], args.get("channel"),
        reference_date=ctx.request.reference, cleared=ctx.request.cleared,
    )
    return chosen.period.code


def _query_metric(args: dict[str, Any], ctx: ExecutionContext, state: ExecutionState) -> None:
    result = ctx.structured.query_metric(
        args["metric"],
        args["entity"],
        args["period"],
        args.get("channel"),
        cleared=ctx.request.cleared,
        reference_date=ctx.request.reference,
    )
    if (result.status is FactStatus.NOT_FOUND and not isinstance(result, WithheldTotal)
            and result.metric and result.entity and result.period is not None):
        # a flow's year with no row of its own, every quarter (or half, or month) stored
        from core.figures.period_parts import sum_of_parts

        summed = sum_of_parts(ctx, result.metric, result.entity, result.channel or TOTAL,
                              result.period)
        if summed is not None:
            state.results.append(summed)
            state.sources.extend(summed.sources)
            return
    state.results.append(result)
    if isinstance(result, WithheldTotal):  # its visible units' line cites each of them
        state.sources.extend(result.sources)
    elif result.fact is not None:
        state.sources.append(result.fact.source)


def _derived_metric(args: dict[str, Any], ctx: ExecutionContext, state: ExecutionState) -> None:
    """A derived metric (glossary [derived]): both inputs looked up, computed in code."""
    if args["metric"] not in ctx.glossary.derived:
        raise Unresolvable(f"{args['metric']} is a stored metric, not a derived one")
    result = query_derived(
        ctx.structured,
        args["metric"],
        args["entity"],
        args["period"],
        args.get("channel"),
        cleared=ctx.request.cleared,
        reference_date=ctx.request.reference,
    )
    state.results.append(result)
    if isinstance(result, DerivedFact):
        state.sources.extend(result.sources)


def _search_documents(args: dict[str, Any], ctx: ExecutionContext, state: ExecutionState) -> None:
    if ctx.narrative is None:
        return
    filters = {k: str(v) for k, v in args.items() if k in ("entity", "year") and v}
    # a replay may reuse the retrieval an identical search made on the same documents version
    narrative = ctx.narrative.get()
    again = getattr(narrative, "search_again", None) if ctx.replay else None
    search = again if again is not None else narrative.search
    state.snippets = search(args["query"], filters=filters, cleared=ctx.request.cleared)


def _compose_narrative(args: dict[str, Any], ctx: ExecutionContext, state: ExecutionState) -> None:
    from core.documents.narrative import empty_result  # loaded when a plan reads documents

    if ctx.narrative is None:
        language = ctx.request.language
        state.narrative = empty_result(say("no_documents", language), language)
        state.narrative_found = False
        return
    subject = ctx.intent.subject
    if subject and ctx.intent.route is Route.NARRATIVE and not mentioned(
        subject, (s.chunk.text for s in state.snippets)
    ):  # what it asks about is in no passage found: not known (core.question.subject)
        state.narrative = empty_result(not_known(ctx.request.language), ctx.request.language)
        state.narrative_found = False
        return
    result = ctx.narrative.get().compose(
        ctx.request.text,
        language=ctx.request.language,
        snippets=state.snippets,
        cleared=ctx.request.cleared,
        rerank=bool(args.get("rerank")),
        reuse=ctx.replay,
        entities=tuple(ctx.intent.entities),
    )
    state.narrative, state.narrative_found = result, result.mode != "empty"
    state.sources.extend(result.sources)


def _clock(args: dict[str, Any], ctx: ExecutionContext, state: ExecutionState) -> None:
    now = ctx.now
    state.tool_text = say(
        "clock",
        ctx.request.language,
        time=now.strftime("%H:%M"),
        date=date_text(now.date(), ctx.request.language),
        tz=now.tzname() or "",
    )


def _previous_sources(args: dict[str, Any], ctx: ExecutionContext, state: ExecutionState) -> None:
    """The sources of this chat's last answer that had any. Clearance is checked now, not when
    that answer was given: once a chat is no longer cleared, an answer it got while cleared
    (which may cite RESTRICTED documents) has its sources withheld."""
    previous = ctx.turn_lookup(ctx.request.chat) if ctx.turn_lookup else []
    for turn in previous:
        sources = (turn.answer or {}).get("sources") or []
        if sources:
            if getattr(turn, "restricted", False) and not ctx.request.cleared:
                state.tool_text = say("previous_sources_withheld", ctx.request.language)
                return
            state.sources = [Source(s["doc"], s.get("locator", "")) for s in sources]
            state.listed = list(state.sources)
            state.tool_text = say("previous_sources", ctx.request.language)
            return
    state.tool_text = say("no_previous_sources", ctx.request.language)


def _table(kind: str) -> Callable[[dict[str, Any], ExecutionContext, ExecutionState], None]:
    """A series/breakdown/ranking/comparison step (core.figures.tabulate); the request must still
    ask
    for that table, so a cached plan never draws one for a request that asks for another."""

    def run(args: dict[str, Any], ctx: ExecutionContext, state: ExecutionState) -> None:
        analysis = getattr(ctx.intent, "analysis", None)
        if analysis is None or analysis.kind != kind:
            raise Unresolvable(f"the request asks for no {kind} table")
        if kind == "ranking" and analysis.dimension == "period":  # "which year was highest"
            from core.figures.period_rank import rank_periods

            built = _arithmetic_built(rank_periods, args, ctx)
        else:
            from core.figures.tabulate import build as build_table

            built = build_table(kind, args, ctx)
        state.results += built.results
        for r in built.results:  # a derived cell's sources are its inputs'
            state.sources += r.sources if isinstance(r, DerivedFact) else built.sources_of(r)
        state.tables += built.segments
        state.table_sources += built.cited
        state.assumptions += built.assumptions

    return run


TABLE_TOOLS = ("series", "breakdown", "ranking", "comparison")
# arithmetic steps: tool name = analysis kind -> (module, function), imported when a plan runs
# one, so a plain figure question loads none of them
ARITHMETIC_TOOLS: Mapping[str, tuple[str, str]] = MappingProxyType({
    "aggregate": ("core.figures.aggregate", "aggregate"),
    "share": ("core.figures.aggregate", "share"),
    "growth": ("core.figures.change", "growth"),
    "growth_comparison": ("core.figures.change", "growth_comparison"),
    "count": ("core.figures.counts", "count"),
})


def _arithmetic_step(kind: str) -> Callable[[Built, dict[str, Any], Any], None]:
    module, name = ARITHMETIC_TOOLS[kind]
    step: Callable[[Built, dict[str, Any], Any], None] = getattr(
        importlib.import_module(module), name
    )
    return step


def _arithmetic_built(
    make: Callable[[Built, dict[str, Any], Any], None], args: dict[str, Any],
    ctx: ExecutionContext,
) -> Built:
    """What an arithmetic step adds, its assumptions said last, as a table's are."""
    from core.figures.table_parts import Built

    out = Built()
    make(out, args, ctx)
    if out.assumptions:
        items = "; ".join(
            say(f"assumed_{a.slot}", ctx.request.language, value=a.value) for a in out.assumptions
        )
        out.segments.append(Line("assumed", say("assumed", ctx.request.language, items=items)))
    return out


def _arithmetic(kind: str) -> Callable[[dict[str, Any], ExecutionContext, ExecutionState], None]:
    """A sum/average, share, growth or growth comparison step; like a table step, it runs
    only for a request that still asks for that arithmetic (its own measure, members and
    periods are read from the request at every run, so a cached plan replays correctly)."""

    def run(args: dict[str, Any], ctx: ExecutionContext, state: ExecutionState) -> None:
        analysis = getattr(ctx.intent, "analysis", None)
        if analysis is None or analysis.kind != kind:
            raise Unresolvable(f"the request asks for no {kind}")
        built = _arithmetic_built(_arithmetic_step(kind), args, ctx)
        state.results += built.results
        state.sources += [s for r in built.results if isinstance(r, DerivedFact)
                          for s in r.sources]
        state.tables += built.segments
        state.table_sources += built.cited
        state.assumptions += built.assumptions

    return run


BUILTIN: Mapping[str, Executor] = MappingProxyType(
    {
        e.name: e
        for e in (
            Executor("query_metric", _query_metric),
            Executor("derived_metric", _derived_metric),
            Executor("search_documents", _search_documents),
            Executor("compose_narrative", _compose_narrative),
            Executor("clock", _clock),
            Executor("previous_sources", _previous_sources, cacheable=False),
            *(Executor(f"{kind}_table", _table(kind)) for kind in TABLE_TOOLS),
            *(Executor(kind, _arithmetic(kind)) for kind in ARITHMETIC_TOOLS),
        )
    }
)
"""The built-in tools, read-only: an application's own catalog (core.planning.catalog.Catalog)
starts from these and adds its approved composite executors."""
CATALOG = BUILTIN  # the default when no catalog is passed in


def execute(
    plan: Plan, ctx: ExecutionContext, catalog: Mapping[str, Executor] | None = None
) -> ExecutionState:
    """Run every step with its arguments resolved now; Unresolvable if a slot is missing."""
    tools = catalog if catalog is not None else BUILTIN
    state = ExecutionState()
    resolved = []
    for step in plan.steps:
        executor = tools.get(step["tool"])
        if executor is None:
            raise Unresolvable(f"no executor named {step['tool']!r} in the catalog")
        resolved.append((executor, resolve_args(step.get("args", {}), ctx)))
    for executor, args in resolved:
        executor.run(args, ctx, state)
    return state


def cacheable(plan: Plan, catalog: Mapping[str, Executor] | None = None) -> bool:
    tools = catalog if catalog is not None else BUILTIN
    return all(tools.get(t) is not None and tools[t].cacheable for t in plan.tools)
