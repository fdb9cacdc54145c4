"""The values that flow through ricorda: requests in, answers out, facts and citations between.

Everything here is a plain frozen dataclass so that core stays independent of any storage or
platform library, and so that answers can be compared in tests and serialised for the CLI.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from typing import Any


class Route(StrEnum):
    STRUCTURED = "structured"
    NARRATIVE = "narrative"
    COMPOSITE = "composite"
    CLARIFY = "clarify"
    REFUSED = "refused"
    UNKNOWN = "unknown"  # nothing understood: a "not understood" answer


class PeriodType(StrEnum):
    FY = "FY"
    HY = "HY"
    Q = "Q"
    M = "M"


@dataclass(frozen=True, order=True, slots=True)
class Period:
    """A fiscal period as the fact table spells it: type plus value (`2025`, `2025H1`)."""

    type: PeriodType
    value: str

    @property
    def year(self) -> int:
        return int(self.value[:4])

    @property
    def label(self) -> str:
        """How people read it: FY2024, H1 2025, Q3 2023, 2025-03."""
        if self.type is PeriodType.FY:
            return f"FY{self.value}"
        if self.type is PeriodType.HY:
            return f"H{self.value[-1]} {self.value[:4]}"
        if self.type is PeriodType.Q:
            return f"Q{self.value[-1]} {self.value[:4]}"
        return self.value

    @property
    def code(self) -> str:
        """Compact token used in option values and plans: FY2024, 2025H1, 2025Q3, 2025-03."""
        return f"FY{self.value}" if self.type is PeriodType.FY else self.value


@dataclass(frozen=True, slots=True)
class Source:
    doc: str
    locator: str = ""
    # the document's own title (its first heading, core properties or PDF metadata) when it
    # gives one: shown instead of a title made from the file name; not part of its identity
    title: str = field(default="", compare=False)

    def to_dict(self) -> dict[str, str]:
        return {"doc": self.doc, "locator": self.locator}


@dataclass(frozen=True, slots=True)
class Fact:
    """One row of the fact table; `value` is a Decimal so numbers come back exactly as loaded."""

    metric: str
    entity: str
    period: Period
    channel: str
    value: Decimal
    unit: str
    source: Source


class FactStatus(StrEnum):
    FOUND = "found"
    NOT_FOUND = "not_found"
    UNRECOGNIZED = "unrecognized_param"


@dataclass(frozen=True)
class FactResult:
    """The three-way outcome of `query_metric`; only `found` ever carries a number."""

    status: FactStatus
    fact: Fact | None = None
    metric: str | None = None
    entity: str | None = None
    period: Period | None = None
    channel: str | None = None
    param: str | None = None  # for unrecognized_param: which parameter
    raw: str | None = None  # for unrecognized_param: the text as the user wrote it
    shown_power: int | None = None  # shown in 10^n as the question asked ("in millions": 6)

    def to_dict(self) -> dict[str, Any]:
        if self.status is FactStatus.FOUND and self.fact is not None:
            f = self.fact
            shown = {} if self.shown_power is None else {"shown_scale": f"1e{self.shown_power}"}
            return {**shown,
                "status": "found",
                "value": decimal_to_json(f.value),
                "value_exact": format(f.value, "f"),
                "unit": f.unit,
                "metric_code": f.metric,
                "entity": f.entity,
                "period_type": f.period.type.value,
                "period": f.period.value,
                "channel": f.channel,
                "source": f.source.to_dict(),
            }
        if self.status is FactStatus.NOT_FOUND:
            return {
                "status": "not_found",
                "normalized": {
                    "metric_code": self.metric,
                    "entity": self.entity,
                    "period_type": self.period.type.value if self.period else None,
                    "period": self.period.value if self.period else None,
                    "channel": self.channel,
                },
            }
        return {"status": "unrecognized_param", "param": self.param, "raw": self.raw}


def decimal_to_json(value: Decimal) -> int | float:
    """JSON has no decimals: integral values become ints, the rest floats (shortest repr).
    A float may round (`12345678901234567.89`): `value_exact` beside it is the decimal text."""
    if value == value.to_integral_value():
        return int(value)
    return float(value)


def format_decimal(value: Decimal) -> str:
    """Render a fact value exactly as loaded, with thousands separators and no float noise."""
    sign = "-" if value < 0 else ""
    text = format(value.copy_abs(), "f")  # abs() would round to the context's 28 digits
    whole, _, frac = text.partition(".")
    whole = f"{int(whole):,}"
    return f"{sign}{whole}.{frac}" if frac else f"{sign}{whole}"


@dataclass(frozen=True)
class Assumption:
    slot: str
    value: str
    reason: str
    note: str = ""  # the reader's sentence when the reason needs more than a word (not in JSON)

    def to_dict(self) -> dict[str, str]:
        return {"slot": self.slot, "value": self.value, "reason": self.reason}


@dataclass(frozen=True)
class Option:
    """A one-tap narrowing: re-run the same question with `slot` fixed to `value`."""

    label: str
    slot: str
    value: str

    def to_dict(self) -> dict[str, str]:
        return {"label": self.label, "slot": self.slot, "value": self.value}


@dataclass(frozen=True)
class Citation:
    """A numbered source as the reader sees it: `[n] title`, with the raw place kept for JSON."""

    number: int
    source: Source
    title: str  # "Orbis FY2024 Annual Report, p. 11", in the answer's language

    def to_dict(self) -> dict[str, Any]:
        return {"number": self.number, **self.source.to_dict(), "title": self.title}


@dataclass(frozen=True)
class Line:
    """One sentence of an answer, already in the reader's language.

    `kind` says what it is so a renderer may style it (a notice in italics, an assumption
    apart) without reading the words: fact, derived (a computed figure with its inputs),
    not_found, unrecognized, difference, assumed, carried (what a follow-up inherited), narrow,
    notice, message, attribution, degraded, tool.
    """

    kind: str
    text: str

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "text": self.text}


@dataclass(frozen=True)
class Passage:
    """A statement from the documents: a verbatim quote (extractive) or a model's sentence
    (synthesised), with the numbers of the citations it rests on."""

    text: str
    cites: tuple[int, ...]
    heading: str = ""  # the section it sits under, shown as context, never inside the quote
    language: str = ""
    quoted: bool = True  # a verbatim quote is shown in quotation marks; a synthesis is not

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "cites": list(self.cites), "heading": self.heading,
                "language": self.language, "quoted": self.quoted}


@dataclass(frozen=True)
class Table:
    """A computed table (a series, a breakdown, a ranking): every cell is a number from the
    fact table, or computed in code from them, already formatted for the reader. `points` are
    the plotted values of the chart column (None where a period has no figure), so a chart is
    drawn from the same numbers the table shows."""

    kind: str  # "series" | "breakdown" | "ranking" | "comparison"
    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    points: tuple[tuple[str, float | None], ...] = ()
    unit: str = ""  # the plotted column's unit as the reader reads it ("€M", "%")
    notes: tuple[str, ...] = ()  # "No figure for FY2021." said once, under the table
    # a breakdown over several periods: each point's period (grouped bars), else empty
    groups: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        series: list[dict[str, Any]] = [{"label": label, "value": value}
                                        for label, value in self.points]
        for point, group in zip(series, self.groups, strict=False):
            point["period"] = group
        return {"kind": self.kind, "title": self.title, "columns": list(self.columns),
                "rows": [list(r) for r in self.rows], "series": series,
                "unit": self.unit, "notes": list(self.notes)}


Segment = Line | Passage | Table


@dataclass(frozen=True)
class Request:
    """A question as core sees it, whatever platform it came from."""

    text: str
    chat: str = "console:local"
    user: str = ""
    reference_date: dt.date | None = None
    fixed_slots: dict[str, str] = field(default_factory=dict)
    parent_turn: str | None = None
    # the conversation a follow-up continues ("" = the chat): a Slack thread, a Telegram
    # group member; set by the adapters, never crossing chats (core.question.conversation)
    conversation: str = ""
    # the slots a follow-up inherited from its conversation (also in `fixed_slots`)
    carried: tuple[str, ...] = ()

    @property
    def conversation_key(self) -> str:
        return self.conversation or self.chat


class Notice(str):
    """A notice of a known kind ("read_as": a word read as a glossary name): shown as its
    text like any notice; `ask --json` gives it as {"kind", "text"}."""

    kind: str

    def __new__(cls, text: str, kind: str) -> Notice:
        notice = super().__new__(cls, text)
        notice.kind = kind
        return notice

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "text": str(self)}


@dataclass
class Answer:
    """What the bot says back. Adapters render it; `to_dict` is the `ask --json` contract.
    `text` is the plain-text form of `segments` and `citations`, made once when the answer is
    finished (core.planning.answering.Answerer.finish)."""

    turn_id: str
    route: Route
    served_by: str
    text: str
    language: str = "en"
    facts: list[FactResult] = field(default_factory=list)
    sources: list[Source] = field(default_factory=list)
    assumptions: list[Assumption] = field(default_factory=list)
    options: list[Option] = field(default_factory=list)
    latency_ms: float = 0.0
    notices: list[str] = field(default_factory=list)
    plan: dict[str, Any] = field(default_factory=dict)
    succeeded: bool = False  # a real answer, worth remembering the plan of
    # the answer's parts in reading order, and the numbered sources its passages cite:
    # every renderer (and `text`) is made from these, never from another renderer's output
    segments: list[Segment] = field(default_factory=list)
    citations: list[Citation] = field(default_factory=list)

    @property
    def route_name(self) -> str:
        # the JSON contract knows five routes; "not understood" is reported as a clarification
        return Route.CLARIFY.value if self.route is Route.UNKNOWN else self.route.value

    def to_dict(self) -> dict[str, Any]:
        return {
            "turn_id": self.turn_id,
            "route": self.route_name,
            "served_by": self.served_by,
            "text": self.text,
            "facts": [f.to_dict() for f in self.facts],
            "sources": [s.to_dict() for s in self.sources],
            "assumptions": [a.to_dict() for a in self.assumptions],
            "options": [o.to_dict() for o in self.options],
            "latency_ms": round(self.latency_ms, 3),
            "language": self.language,
            "notices": [n.to_dict() if isinstance(n, Notice) else n for n in self.notices],
            "lines": [s.to_dict() for s in self.segments if isinstance(s, Line)],
            "passages": [s.to_dict() for s in self.segments if isinstance(s, Passage)],
            "citations": [c.to_dict() for c in self.citations],
            "tables": [s.to_dict() for s in self.segments if isinstance(s, Table)],
        }
