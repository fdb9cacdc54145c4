"""A company's golden questions (`ricorda test FILE`): the YAML file read, and one answer checked
against what it should be.

The file is the admin's own; a mistake in it is named with the question and the key, never a
traceback. An expectation is judged only from the `ask --json` contract (the dict an answer
prints), so what passes here is what a script reading `ricorda ask --json` would see.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path, PurePosixPath
from typing import Any

from core.contracts.errors import ConfigError

Json = dict[str, Any]
OUTCOMES = ("refused", "no_figure", "asks_metric")
KINDS = ("figure", "figures", "winner", "outcome", "cites")


@dataclass(frozen=True)
class Figure:
    """A figure the answer must state: its row, its value in `unit`, give or take `tolerance`."""

    metric: str
    entity: str
    period: str
    value: Decimal
    unit: str
    channel: str = "TOTAL"
    tolerance: Decimal = Decimal(0)

    def describe(self) -> str:
        channel = "" if self.channel == "TOTAL" else f" {self.channel}"
        within = f" ±{self.tolerance}" if self.tolerance else ""
        return (f"{self.metric} {self.entity} {self.period}{channel} = {self.value}{within} "
                f"{self.unit}")


@dataclass(frozen=True)
class GoldenQuestion:
    name: str
    ask: str
    chat: str
    reference_date: str | None
    figures: tuple[Figure, ...] = ()
    winner: str | None = None
    outcome: str | None = None
    cites: tuple[str, ...] = ()
    expects: tuple[str, ...] = field(default=())  # the kinds given, for the report
    verified: bool = False  # passed: its answer is marked verified (core.fastpath.verified)


def load_golden(path: Path) -> list[GoldenQuestion]:
    """The questions of a golden file; a ConfigError names the file, the question and the key."""
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it ({exc.strerror or exc})") from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"{path}{where}: not valid YAML ({getattr(exc, 'problem', exc)})") \
            from exc
    if not isinstance(data, dict) or not isinstance(data.get("questions"), list):
        raise ConfigError(f"{path}: expected a mapping with a `questions:` list")
    default_chat = str(data.get("chat") or "console:local")
    default_date = _date(data.get("reference_date"), f"{path}: reference_date")
    out: list[GoldenQuestion] = []
    seen: set[str] = set()
    for index, entry in enumerate(data["questions"], start=1):
        where = f"{path}: question {index}"
        if not isinstance(entry, dict):
            raise ConfigError(f"{where}: expected a mapping with `ask:` and `expect:`")
        name = str(entry.get("name") or f"q{index}")
        where = f"{path}: question {index} ({name})"
        if name in seen:
            raise ConfigError(f"{where}: the name is used twice; give each question its own")
        seen.add(name)
        ask = entry.get("ask")
        if not isinstance(ask, str) or not ask.strip():
            raise ConfigError(f"{where}: `ask:` must be the question's text")
        out.append(_question(entry, name, ask, default_chat, default_date, where))
    return out


def _question(entry: Json, name: str, ask: str, chat: str, date: str | None,
              where: str) -> GoldenQuestion:
    expect = entry.get("expect")
    if not isinstance(expect, dict) or not expect:
        raise ConfigError(f"{where}: `expect:` must give one of {', '.join(KINDS)}")
    unknown = sorted(set(expect) - set(KINDS))
    if unknown:
        raise ConfigError(f"{where}: unknown expectation {unknown[0]!r}; use "
                          f"{', '.join(KINDS)}")
    figures = []
    if "figure" in expect:
        figures.append(_figure(expect["figure"], f"{where}: expect.figure"))
    if "figures" in expect:
        items = expect["figures"]
        if not isinstance(items, list) or not items:
            raise ConfigError(f"{where}: expect.figures must be a list of figures")
        figures += [_figure(f, f"{where}: expect.figures[{i}]") for i, f in enumerate(items)]
    outcome = expect.get("outcome")
    if outcome is not None and outcome not in OUTCOMES:
        raise ConfigError(f"{where}: expect.outcome {outcome!r} is not one of "
                          f"{', '.join(OUTCOMES)}")
    verified = entry.get("verified", False)
    if not isinstance(verified, bool):
        raise ConfigError(f"{where}: `verified:` must be true or false")
    cites = expect.get("cites")
    cited = tuple(str(c) for c in (cites if isinstance(cites, list) else [cites])) \
        if cites is not None else ()
    return GoldenQuestion(
        name=name, ask=ask.strip(), chat=str(entry.get("chat") or chat),
        reference_date=_date(entry.get("reference_date"), f"{where}: reference_date") or date,
        figures=tuple(figures),
        winner=str(expect["winner"]) if expect.get("winner") is not None else None,
        outcome=outcome, cites=cited, expects=tuple(k for k in KINDS if k in expect),
        verified=verified,
    )


def _date(value: Any, where: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, dt.date):
        return value.isoformat()
    try:
        return dt.date.fromisoformat(str(value)).isoformat()
    except ValueError:
        raise ConfigError(f"{where}: {value!r} is not a date; write YYYY-MM-DD") from None


def _decimal(value: Any, where: str) -> Decimal:
    try:
        return Decimal(str(value))
    except InvalidOperation:
        raise ConfigError(f"{where}: {value!r} is not a number") from None


def _figure(spec: Any, where: str) -> Figure:
    if not isinstance(spec, dict):
        raise ConfigError(f"{where}: expected metric, entity, period, value and unit")
    missing = [k for k in ("metric", "entity", "period", "value", "unit") if k not in spec]
    if missing:
        raise ConfigError(f"{where}: missing {', '.join(missing)}")
    return Figure(
        metric=str(spec["metric"]), entity=str(spec["entity"]), period=str(spec["period"]),
        value=_decimal(spec["value"], f"{where}.value"), unit=str(spec["unit"]),
        channel=str(spec.get("channel") or "TOTAL"),
        tolerance=abs(_decimal(spec.get("tolerance", 0), f"{where}.tolerance")),
    )


def check(question: GoldenQuestion, answer: Json, names: dict[str, tuple[str, ...]]) \
        -> list[str]:
    """What is wrong with `answer` for `question` (empty when it passes). `names` maps an
    entity code to the names a ranking's row may show it by."""
    problems = []
    found = [f for f in answer.get("facts") or [] if f.get("status") == "found"]
    for figure in question.figures:
        if not any(_states(f, figure) for f in found):
            problems.append(f"expected {figure.describe()}")
    if question.winner is not None:
        problem = _winner_problem(question.winner, answer, names)
        if problem:
            problems.append(problem)
    if question.outcome is not None:
        problem = _outcome_problem(question.outcome, answer, found)
        if problem:
            problems.append(problem)
    for doc in question.cites:
        if not _cites(answer, doc):
            problems.append(f"expected a citation of {doc}")
    return problems


def _states(fact: Json, figure: Figure) -> bool:
    if (fact.get("metric_code"), fact.get("entity"), str(fact.get("period")),
            fact.get("channel") or "TOTAL", fact.get("unit")) != (
            figure.metric, figure.entity, figure.period, figure.channel, figure.unit):
        return False
    try:
        value = Decimal(str(fact.get("value_exact", fact.get("value"))))
    except InvalidOperation:
        return False
    return abs(value - figure.value) <= figure.tolerance


def _winner_problem(winner: str, answer: Json, names: dict[str, tuple[str, ...]]) -> str | None:
    rankings = [t for t in answer.get("tables") or [] if t.get("kind") == "ranking"]
    series = rankings[0].get("series") if rankings else None
    if not series:
        return f"expected a ranking won by {winner}; no ranking given"
    label = str(series[0].get("label", ""))
    accepted = {winner, f"FY{winner}", *names.get(winner, ())}
    if label.casefold() in {a.casefold() for a in accepted}:
        return None
    return f"expected {winner} first; the ranking puts {label} first"


def _outcome_problem(outcome: str, answer: Json, found: list[Json]) -> str | None:
    route = answer.get("route")
    if outcome == "refused":
        return None if route == "refused" else f"expected a refusal; got a {route} answer"
    if outcome == "asks_metric":
        asks = route == "clarify" and any(o.get("slot") == "metric"
                                          for o in answer.get("options") or [])
        return None if asks else "expected the question which figure is meant"
    # no_figure: nothing stated as a figure, and not a refusal (that is its own outcome)
    if found or answer.get("tables"):
        return f"expected no figure; got {summary(answer)}"
    if route == "refused":
        return "expected 'no figure'; got a refusal"
    return None


def _cites(answer: Json, doc: str) -> bool:
    cited = [c.get("doc", "") for c in answer.get("citations") or []]
    cited += [s.get("doc", "") for s in answer.get("sources") or []]
    cited += [(f.get("source") or {}).get("doc", "") for f in answer.get("facts") or []]
    return any(d == doc or PurePosixPath(d).name == doc for d in cited if d)


def summary(answer: Json, limit: int = 90) -> str:
    """What was answered, in a line: the figures stated, else the route and the first words."""
    found = [f for f in answer.get("facts") or [] if f.get("status") == "found"]
    rankings = [t for t in answer.get("tables") or [] if t.get("kind") == "ranking"]
    if rankings and rankings[0].get("series"):
        first = rankings[0]["series"][0]
        text = f"ranking: {first.get('label')} first ({first.get('value')})"
    elif found:
        parts = [f"{f.get('metric_code')} {f.get('entity')} {f.get('period')}"
                 f"{'' if (f.get('channel') or 'TOTAL') == 'TOTAL' else ' ' + f['channel']}"
                 f" = {_short(f.get('value_exact'))} {f.get('unit')}" for f in found[:3]]
        more = f" (+{len(found) - 3})" if len(found) > 3 else ""
        text = "; ".join(parts) + more
    else:
        first = str(answer.get("text", "")).strip().split("\n", 1)[0]
        text = f"{answer.get('route')}: {first}"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _short(value: Any) -> str:
    """A computed value to six significant decimals (a ratio's exact value runs to 30)."""
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        return str(value)
    if number.as_tuple().exponent < -6:  # type: ignore[operator]
        return format(number.quantize(Decimal("0.000001")).normalize(), "f")
    return str(value)
