"""Build the plan for a parsed request: the planner's half of the dual-channel agent.

Every value the question states becomes a slot reference, never a literal, so the plan fits
any request of the same shape. Literals copied from the question (a proper name the glossary
does not know, an absolute date, a URL) make the plan query-specific: exact-hash reuse only.
"""

from __future__ import annotations

import itertools
import re

from core.contracts.types import Route
from core.knowledge.names import NameIndex, blank
from core.planning.plan import Plan
from core.question.argument_scan import Arguments
from core.question.intent import Intent
from core.question.tool_intents import CLOCK

ARITHMETIC = ("aggregate", "share", "growth", "growth_comparison",  # core.planning.executors
              "count")
_PROPER_NAME = re.compile(r"(?<=\S\s)[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*")


def plan_for(
    intent: Intent,
    *,
    tool: str | None,
    text: str,
    arguments: Arguments | None,
    rerank: bool,
    names: NameIndex,
) -> Plan:
    """The plan for a request that will be answered (not refused, not a clarification)."""
    if tool is not None:
        return Plan(route="tool", steps=[{"tool": tool, "args": {}}], intent=f"tool:{tool}")
    shape = {
        "metric": len(intent.metrics),
        "entity": len(intent.entities),
        "period": len(intent.periods),
        "channel": len(intent.channels),
    }
    if intent.analysis is not None and intent.route is Route.STRUCTURED:
        return _table_plan(intent, shape)
    if intent.analysis is not None and intent.route is Route.COMPOSITE:
        # a growth and why it moved: the arithmetic step, then the documents' reasons
        table = _table_plan(intent, shape)
        return Plan(route=Route.COMPOSITE.value,
                    steps=[*table.steps, *_search_steps(intent, arguments, rerank, shape)],
                    shape=shape, assumed=table.assumed,
                    query_specific=_query_specific(intent, text, arguments, names),
                    intent=f"composite:{','.join(intent.metrics)}:{intent.analysis.kind}")
    steps: list[dict[str, object]] = []
    assumed: list[str] = []
    route = intent.route
    if route in (Route.STRUCTURED, Route.COMPOSITE):
        entity_refs = [f"${{entity[{i}]}}" for i in range(shape["entity"])]
        if not entity_refs and not intent.unknown_entities:
            entity_refs, assumed = ["${entity:default}"], [*assumed, "entity"]
        period_refs = [f"${{period[{i}]}}" for i in range(shape["period"])]
        if not period_refs and not intent.bad_periods:
            period_refs, assumed = ["${period:last_fy}"], [*assumed, "period"]
        channel_refs = [f"${{channel[{i}]}}" for i in range(shape["channel"])] or [
            "${channel:total}"
        ]
        if _clause_channels(intent, intent.read_text or text, names) is not None:
            channel_refs.append("${channel:total}")  # for a part that names no channel
        metric_refs = [f"${{metric[{i}]}}" for i in range(shape["metric"])]
        # a derived metric is computed, not looked up: its own tool, so the plan's framework
        # (and a cached plan's fit) tells "EBITDA margin" from "EBITDA"
        tools = {
            ref: "derived_metric" if code in names.glossary.derived else "query_metric"
            for ref, code in zip(metric_refs, intent.metrics, strict=True)
        }
        own = _clause_channels(intent, intent.read_text or text, names)
        for m, e, c, p in itertools.product(metric_refs, entity_refs, channel_refs, period_refs):
            if own is not None:  # "…, and how many online orders": online is the orders'
                mine = own[intent.metrics[metric_refs.index(m)]]
                if c not in (mine or ["${channel:total}"]):
                    continue
            steps.append(
                {
                    "tool": tools[m],
                    "args": {"metric": m, "entity": e, "period": p, "channel": c},
                }
            )
    if route in (Route.NARRATIVE, Route.COMPOSITE):
        steps += _search_steps(intent, arguments, rerank, shape)
    metric = ",".join(intent.metrics)
    label = route.value + (f":{metric}" if metric else "")
    return Plan(
        route=route.value,
        steps=steps,
        shape=shape,
        assumed=assumed,
        query_specific=_query_specific(intent, text, arguments, names),
        intent=label,
    )


_CLAUSE = re.compile(r"[,;，；]")


def _clause_channels(intent: Intent, text: str, names: NameIndex) -> dict[str, list[str]] | None:
    """Per metric, the channel references its own part of a multi-part question names
    ("China's gross margin and net income in FY2024, and how many online orders…": online is
    the orders' only); None when a channel goes with every metric (one part, or a channel said
    in a part of its own)."""
    if len(intent.metrics) < 2 or not intent.channels:
        return None
    bounds = [0, *(m.end() for m in _CLAUSE.finditer(text)), len(text) + 1]
    parts: list[tuple[list[str], list[str]]] = []
    found = names.find(text)
    for start, end in itertools.pairwise(bounds):
        inside = [m for m in found if start <= m.start < end]
        parts.append(([m.code for m in inside if m.kind == "metric"],
                      [m.code for m in inside if m.kind == "channel"]))
    if len(parts) < 2 or any(chans and not metrics for metrics, chans in parts):
        return None
    own: dict[str, list[str]] = {code: [] for code in intent.metrics}
    for metrics, chans in parts:
        for code in metrics:
            if code in own:
                own[code] += [f"${{channel[{intent.channels.index(c)}]}}" for c in chans
                              if c in intent.channels]
    if all(own[code] == own[intent.metrics[0]] for code in own):
        return None  # every part names the same channels: as before
    return own


def _search_steps(intent: Intent, arguments: Arguments | None, rerank: bool,
                  shape: dict[str, int]) -> list[dict[str, object]]:
    """Search the documents (within the one unit and year the question names), then compose."""
    search: dict[str, object] = {"query": "${query}"}
    if shape["entity"] == 1:
        search["entity"] = "${entity[0]}"
    if len({p.value[:4] for p in intent.periods}) == 1:
        search["year"] = "${year}"
    literal_dates = [d.value for d in arguments.dates if d.literal] if arguments else []
    if literal_dates:
        search["date"] = literal_dates[0]  # an absolute date: never registered
    return [{"tool": "search_documents", "args": search},
            {"tool": "compose_narrative", "args": {"rerank": rerank}}]


def _table_plan(intent: Intent, shape: dict[str, int]) -> Plan:
    """One table step; its periods, members and order are read from the request at every run
    (core.figures.tabulate), and the tool's name (series_table, ranking_table...) is in the
    framework
    hash, so a single lookup's cached plan never answers a table, nor one table kind another."""
    analysis = intent.analysis
    assert analysis is not None
    args: dict[str, object] = {"metric": "${metric[0]}"}
    assumed = ["metric"] if analysis.assumed_metric else []
    if intent.channels:
        args["channel"] = "${channel[0]}"
    # a series, a sum over periods or a ranking of periods runs over the request's periods
    over_periods = analysis.kind == "series" or analysis.dimension == "period"
    if not over_periods:
        args["period"] = "${period[0]}" if intent.periods else "${period:last_fy}"
        assumed += ["period"] if not intent.periods else []
    one_entity = over_periods or analysis.kind == "growth" or analysis.dimension == "channel"
    if not intent.entities and one_entity:
        assumed.append("entity")
    # an arithmetic step (sum, share, growth...) is named by its kind, a table by kind_table
    tool = analysis.kind if analysis.kind in ARITHMETIC else f"{analysis.kind}_table"
    return Plan(
        route=Route.STRUCTURED.value,
        steps=[{"tool": tool, "args": args}],
        shape=shape,
        assumed=assumed,
        intent=f"structured:{','.join(intent.metrics)}:{analysis.kind}",
    )


def _query_specific(
    intent: Intent, text: str, arguments: Arguments | None, names: NameIndex
) -> bool:
    """Literals copied from the question text tie the plan to this exact wording."""
    if intent.unknown_entities or intent.bad_periods:
        return True
    if arguments is not None and arguments.has_literals:
        return True
    if intent.route in (Route.NARRATIVE, Route.COMPOSITE):
        rest = blank(text, [(m.start, m.end) for m in names.find(text)])
        return bool(_PROPER_NAME.search(rest))  # "Tell me about Huaxin Trading"
    return False


def is_tool_plan(plan: Plan) -> bool:
    return plan.route == "tool" and plan.tools == [CLOCK]
