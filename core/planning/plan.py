"""Plans: the reusable part of an answered request.

A plan is a route plus a list of `{tool, args}` steps. An argument is a literal or a slot
reference re-resolved from the *current* request at every replay:

    ${metric[0]} ${entity[1]} ${period[0]} ${channel[0]}   the n-th one the question states
    ${entity:default} ${period:last_fy} ${channel:total}   a stated assumption, recomputed
    ${query} ${date} ${time_window} ${year} ${entity}      the question text and its arguments

The plan's *shape* (how many metrics/entities/periods/channels the question stated, which
slots were assumed) is part of its framework hash: a replay on a request with another shape is
a miss, never a reuse with a cached value standing in for what the new request said.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

SLOT_KINDS = ("metric", "entity", "period", "channel")
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_SLOT = re.compile(r"^\$\{([a-z_]+)(?:\[(\d+)\]|:([a-z_]+))?\}$")


@dataclass
class Plan:
    route: str  # structured | narrative | composite | tool
    steps: list[dict[str, Any]]
    shape: dict[str, int] = field(default_factory=dict)  # stated slot counts
    assumed: list[str] = field(default_factory=list)  # slots filled by a stated assumption
    query_specific: bool = False  # holds literals copied from the question text
    intent: str = ""  # "structured:REVENUE", "narrative", "tool:clock" ...
    # a model-made plan (core.planning.model_planner): the slot values the model chose for what
    # the rules could not read, as fixed slots; re-checked against every request it replays on
    reading: dict[str, str] | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {
            "route": self.route,
            "steps": self.steps,
            "shape": self.shape,
            "assumed": self.assumed,
            "query_specific": self.query_specific,
            "intent": self.intent,
        }
        if self.reading is not None:
            out["reading"] = dict(self.reading)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Plan:
        return cls(
            route=data["route"],
            steps=list(data["steps"]),
            shape=dict(data.get("shape", {})),
            assumed=list(data.get("assumed", [])),
            query_specific=bool(data.get("query_specific", False)),
            intent=data.get("intent", ""),
            reading=dict(data["reading"]) if isinstance(data.get("reading"), dict) else None,
        )

    @property
    def tools(self) -> list[str]:
        return [step["tool"] for step in self.steps]

    def framework(self) -> tuple[Any, ...]:
        """The plan's shape: route, tools with their sorted argument names, slot shape, the
        assumed slots. Two plans with equal frameworks differ only in slot values."""
        return (
            self.route,
            tuple((s["tool"], tuple(sorted(s.get("args", {})))) for s in self.steps),
            tuple(self.shape.get(k, 0) for k in SLOT_KINDS),
            tuple(sorted(self.assumed)),
        )

    def framework_hash(self) -> str:
        """Hash of `framework()`, stored with a plan: its JSON form (the one hashed since
        plans were first stored) keeps every stored hash valid."""
        route, steps, shape, assumed = self.framework()
        body = {
            "route": route,
            "steps": [[tool, list(args)] for tool, args in steps],
            "shape": dict(zip(SLOT_KINDS, shape, strict=True)),
            "assumed": list(assumed),
        }
        if self.reading is not None:  # the model's values are part of what it does
            body["reading"] = dict(sorted(self.reading.items()))
        return _digest(json.dumps(body, sort_keys=True))

    def has_absolute_date(self) -> bool:
        """An ISO date literal would freeze a time window: such a plan is never registered."""
        return bool(_ISO_DATE.search(json.dumps(self.steps)))


def intent_hash(intent: str) -> str:
    return _digest(intent)


def slot_ref(text: Any) -> tuple[str, int | None, str | None] | None:
    """("metric", 0, None) for "${metric[0]}", ("period", None, "last_fy") for an assumption."""
    if not isinstance(text, str):
        return None
    m = _SLOT.match(text)
    if m is None:
        return None
    return m.group(1), (int(m.group(2)) if m.group(2) is not None else None), m.group(3)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
