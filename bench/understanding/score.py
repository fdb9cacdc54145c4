"""How one `ricorda ask --json` answer scores against one labelled question.

Three verdicts: `correct`; `wrong`, the dangerous class (a different figure stated for what was
asked, a figure where none should be, restricted data in an uncleared chat); `missed`, anything
else (a menu, a clarification, a partial answer, the inputs without the result). docs/
understanding.md states the rules in prose; this module is their only implementation.

Reads only the JSON contract and the demo glossary (through expected.Data), never core/.

On a test company (expected.Data with `withhold`, bench/companies) three rules are added: a
found plain figure that is not a row of the fact table, or not its value (in any unit of the
same dimension), is wrong wherever it appears (a substitution, a silent currency conversion);
a figure keyed to a total withheld from the chat is wrong (a leak); and the expectation may ask
for `withheld`, a `count`, a reply `lang`, forbidden `forbid_ops` and a `reason_any` phrase
(scored apart from the verdict: reason_quoted()).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import PurePosixPath
from typing import Any

from bench.understanding.expected import PERCENT_OPS, Data, SpecError, period_type, rounded

CORRECT, MISSED, WRONG = "correct", "missed", "wrong"
PLAIN_OPS = (None, "ratio", "difference")  # a stored row, or a glossary-derived metric
Json = dict[str, Any]


@dataclass(frozen=True)
class Verdict:
    verdict: str
    reason: str


def _dec(text: Any) -> Decimal | None:
    if text is None:
        return None
    try:
        return Decimal(str(text))
    except InvalidOperation:
        return None


def _op(fact: Json) -> str | None:
    return (fact.get("formula") or {}).get("op") if fact.get("derived") else None


def _found(facts: list[Json]) -> list[Json]:
    return [f for f in facts if f.get("status") == "found"]


def _all_found(facts: list[Json]) -> list[Json]:
    """Found facts and, recursively, the found inputs of derived ones."""
    out = []
    for f in _found(facts):
        out.append(f)
        out += _all_found(f.get("inputs") or [])
    return out


def value_matches(fact: Json, expected: Json, *, percent: bool = False) -> bool:
    """The fact states the expected value: its exact value equals it, or its exact value
    rounded to the expected shown decimals, or the value it shows, equals the shown value.
    A percentage may also come as a fraction (0.076 for 7.6%)."""
    exact, shown = _dec(fact.get("value_exact")), _dec(fact.get("value_shown"))
    want, want_shown = Decimal(expected["value"]), _dec(expected.get("shown"))
    scales = (Decimal(1), Decimal(100)) if percent else (Decimal(1),)
    for scale in scales:
        x = exact * scale if exact is not None else None
        s = shown * scale if shown is not None else None
        if x is not None and x == want:
            return True
        if want_shown is not None:
            decimals = max(0, -want_shown.as_tuple().exponent)  # type: ignore[operator]
            if x is not None and rounded(x, decimals) == want_shown:
                return True
            if s is not None and s == want_shown:
                return True
    return False


def figure_matches(fact: Json, expected: Json, data: Data | None = None) -> bool:
    op = expected.get("op")
    if fact.get("metric_code") != expected["metric"]:
        return False
    if op is not None:
        return _op(fact) == op and value_matches(fact, expected, percent=op in PERCENT_OPS)
    if _op(fact) not in PLAIN_OPS:
        return False
    if expected.get("unit") and fact.get("unit") != expected["unit"]:
        fact = shown_in(fact, expected["unit"], data)
        if fact is None:
            return False
    return same_row(fact, expected) and value_matches(fact, expected)


def shown_in(fact: Json, unit: str, data: Data | None) -> Json | None:
    """The fact as shown in `unit` when the answer shows it in that unit's scale (the
    contract: `"shown_scale": "1e6"` beside the stored `value_exact`, docs/understanding-
    names.md), exactly; None when it is not shown so (or `unit` is another dimension)."""
    scale, exact = _dec(fact.get("shown_scale")), _dec(fact.get("value_exact"))
    if data is None or scale is None or exact is None or data.unit_scales.get(unit) != scale:
        return None
    try:
        value = data.in_unit(exact, str(fact.get("unit")), unit)
    except SpecError:
        return None
    return {**fact, "unit": unit, "value_exact": format(value, "f"), "value_shown": None}


def same_row(fact: Json, expected: Json) -> bool:
    period = expected["period"]
    return (fact.get("metric_code") == expected["metric"]
            and fact.get("entity") == expected["entity"]
            and fact.get("period_type") == period_type(period)
            and fact.get("period") == period
            and (fact.get("channel") or "TOTAL") == expected.get("channel", "TOTAL"))


def withheld_matches(fact: Json, expected: Json) -> bool:
    """The answer withholds the expected figure (docs/disclosure.md): a not_found fact with
    reason "withheld" for that metric (and, for a plain row, that entity, period, channel)."""
    if fact.get("status") != "not_found" or fact.get("reason") != "withheld":
        return False
    row = fact.get("normalized") or fact
    if (row.get("metric_code") or fact.get("metric_code")) != expected["metric"]:
        return False
    if expected.get("op") is not None or "period" not in expected:
        return True
    return (row.get("entity") == expected["entity"] and row.get("period") == expected["period"]
            and (row.get("channel") or "TOTAL") == expected.get("channel", "TOTAL"))


def _keyed_as(fact: Json, expected: Json) -> bool:
    """A found figure stated under the withheld row's own name: wrong whatever its value."""
    return (expected.get("op") is None and fact.get("metric_code") == expected["metric"]
            and fact.get("entity") == expected.get("entity")
            and fact.get("period") == expected.get("period")
            and (fact.get("channel") or "TOTAL") == expected.get("channel", "TOTAL"))


def _entities(expected: Json) -> set[str]:
    out = set(expected.get("entities") or [])
    out |= {expected[k] for k in ("entity", "of") if expected.get(k)}
    return out


def score_figures(figures: list[Json], answer: Json, data: Data | None = None) -> Verdict:
    top = _found(answer.get("facts") or [])
    deep = _all_found(answer.get("facts") or [])
    every = answer.get("facts") or []
    missing = []
    for e in figures:
        if e.get("withheld"):  # withheld from this chat: said so, and no figure under its name
            if any(_keyed_as(f, e) for f in deep):
                return Verdict(WRONG, f"a figure under a withheld total's name: {_describe(e)}")
            if not any(withheld_matches(f, e) for f in every):
                missing.append(e)
            continue
        pool = deep if e.get("op") == "growth" else top  # a growth comparison nests them
        if not any(figure_matches(f, e, data) for f in pool):
            missing.append(e)
    if not missing:
        return Verdict(CORRECT, "every expected figure stated")
    figures = [e for e in figures if not e.get("withheld")]
    # wrong: the first figure given for an asked metric (the same kind of figure) is not one
    # of the expected ones; or, for arithmetic, a plain figure of a unit that was not asked
    for e in figures:
        op = e.get("op")
        same_kind = [f for f in top if f.get("metric_code") == e["metric"]
                     and (_op(f) == op if op else _op(f) in PLAIN_OPS)]
        if same_kind and e.get("unit") and not op and same_row(same_kind[0], e):
            return Verdict(MISSED, f"the figure, not in {e['unit']}: {_describe(same_kind[0])}")
        if same_kind and not any(figure_matches(same_kind[0], x) for x in figures):
            return Verdict(WRONG, f"states {_describe(same_kind[0])} for {_describe(e)}")
        if op:
            plain = [f for f in top if f.get("metric_code") == e["metric"]
                     and _op(f) in PLAIN_OPS]
            asked = set().union(*(_entities(x) for x in figures))
            if plain and plain[0].get("entity") not in asked:
                return Verdict(WRONG, f"states {_describe(plain[0])} for {_describe(e)}")
    return Verdict(MISSED, "missing " + "; ".join(_describe(e) for e in missing))


def _describe(f: Json) -> str:
    where = f.get("entity") or "+".join(f.get("entities") or [])
    when = f.get("period") or "-".join(f.get("periods") or [])
    op = f.get("op") or _op(f) or ""
    value = f.get("value_exact") or f.get("value")
    return f"{op + ' ' if op else ''}{f.get('metric_code') or f.get('metric')} {where} {when}" \
           f"{' ' + str(f.get('channel')) if f.get('channel') not in (None, 'TOTAL') else ''}" \
           f" = {value}"


def _label_names(data: Data, top: str) -> set[str]:
    """What a table row may call the top: an entity's names and labels, or a period code."""
    entity = data.entities.get(top)
    if entity is not None:
        names = set(entity.get("names", [])) | set((entity.get("labels") or {}).values())
        return {n.casefold() for n in names}
    return set()


def _label_is(label: str, top: str, data: Data) -> bool:
    text = label.split(". ", 1)[-1].strip().casefold() if label[:1].isdigit() and ". " in \
        label[:5] else label.strip().casefold()
    names = _label_names(data, top)
    if names:
        return text in names
    text = re.sub(r"\s*[(（].*?[)）]", "", text)  # "Q2 FY2026 (Jan–Mar 2026)": the code part
    for zh, code in (("第一季度", "q1"), ("第二季度", "q2"), ("第三季度", "q3"), ("第四季度", "q4"),
                     ("上半年", "h1"), ("下半年", "h2")):
        text = text.replace(zh, code)
    compact = "".join(ch for ch in text.upper() if ch.isalnum())
    for marker in ("财年", "年度", "年"):  # 2024财年 / 2024年度 / 2024年 are the year 2024
        compact = compact.replace(marker, "")
    year, rest = top[:4], top[4:].replace("-", "")
    if not rest:
        return compact in (year, f"FY{year}")
    if rest in ("H1", "H2", "Q1", "Q2", "Q3", "Q4"):
        return compact in (year + rest, rest + year, f"{rest}FY{year}", f"FY{year}{rest}")
    month = str(int(rest))
    return compact in (year + rest, f"{year}M{rest}") or (year in compact and month in text)


def score_ranking(spec: Json, answer: Json, data: Data) -> Verdict:
    """A ranking table headed by the expected top (with its value) is correct, headed by
    another is wrong; without a ranking table, a first figure that is the top is correct, any
    other single figure is wrong (a table of the figures, or several figures, with no answer
    is missed)."""
    tables = answer.get("tables") or []
    ranking = [t for t in tables if t.get("kind") == "ranking"]
    if spec.get("withheld"):  # a withheld total's periods: no figure of them, and said
        stated = [f for f in _found(answer.get("facts") or []) if f.get("entity") ==
                  spec.get("entity") and f.get("metric_code") == spec["metric"]]
        if stated or any(t.get("series") for t in ranking):
            return Verdict(WRONG, "a withheld total ranked")
        if any(withheld_matches(f, spec) for f in answer.get("facts") or []):
            return Verdict(CORRECT, "withheld, said")
        return Verdict(MISSED, "the withheld total is not said to be withheld")
    if ranking:
        series = ranking[0].get("series") or []
        label = series[0]["label"] if series else (ranking[0].get("rows") or [[""]])[0][0]
        value = _dec(series[0]["value"]) if series else None
        if not _label_is(label, spec["top"], data):
            return Verdict(WRONG, f"ranking headed by {label!r}, expected {spec['top']}")
        shifts = data.shifts.get(data.metric_units.get(spec["metric"], ""), {0})
        if value is not None and all(value != Decimal(spec["value"]).scaleb(k)
                                     for k in shifts):  # in the axis's unit
            return Verdict(WRONG, f"{label} ranked with {value}, expected {spec['value']}")
        return Verdict(CORRECT, f"ranking headed by {label}")
    facts = [f for f in _found(answer.get("facts") or []) if f.get("metric_code") ==
             spec["metric"]]
    if not facts:
        return Verdict(MISSED, "no ranking and no figure")
    first = facts[0]
    is_top = (first.get("entity") == spec["top"] if spec["over"] == "entities"
              else first.get("period") == spec["top"])
    if is_top and _dec(first.get("value_exact")) == Decimal(spec["value"]):
        return Verdict(CORRECT, f"first figure is the top {spec['top']}")
    if tables:
        return Verdict(MISSED, "a table of the figures without the ranking")
    if len(facts) > 1:  # the candidates' figures listed, none said to be the answer
        return Verdict(MISSED, f"{len(facts)} figures listed without the {spec['op']}")
    return Verdict(WRONG, f"states {_describe(first)}; the {spec['op']} is {spec['top']}")


def _cited_docs(answer: Json) -> list[str]:
    return [c.get("doc", "") for c in answer.get("citations") or []]


def _cites_first(answer: Json, names: list[str]) -> bool:
    """The answer's first citation ([1], its leading passage) is one of the expected documents."""
    docs = _cited_docs(answer)
    return bool(docs) and PurePosixPath(docs[0]).name in names


def _withheld_figure(data: Data, f: Json, chat: str | None) -> bool:
    """A found figure under a total withheld from `chat` (a span of periods, or no metric:
    by its entity alone)."""
    channel = f.get("channel") or "TOTAL"
    try:
        return data.withheld_cell(str(f["metric_code"]), f["entity"], str(f["period"]),
                                  channel, chat)
    except (KeyError, SpecError):
        return data.withheld(f["entity"], channel, chat)


def leak(answer: Json, chat: str | None, data: Data) -> str | None:
    """Restricted data in an answer to a chat that is not cleared: a figure of a restricted
    unit (also as an input or a table row), or a citation of a restricted document source."""
    if chat in data.cleared_chats:
        return None
    restricted = {c for c, e in data.entities.items() if e.get("restricted")}
    for f in _all_found(answer.get("facts") or []):
        if set(str(f.get("entity") or "").split("+")) & restricted:
            return f"states a figure of {f.get('entity')}"
        if f.get("entity") in data.entities and _withheld_figure(data, f, chat):
            return f"states a withheld total: {_describe(f)}"
    names = set().union(*(_label_names(data, c) for c in restricted)) if restricted else set()
    for t in answer.get("tables") or []:
        for point in t.get("series") or []:
            if str(point.get("label", "")).casefold() in names:
                return f"a table row of {point['label']}"
    for doc in _cited_docs(answer):
        if doc.split("/", 1)[0] in data.restricted_sources or "/restricted/" in f"/{doc}":
            return f"cites restricted {doc}"
    return None


def _discloses_nothing(answer: Json) -> bool:
    return not (_found(answer.get("facts") or []) or answer.get("citations")
                or answer.get("tables"))


def _names_no_figure(answer: Json, subject: str | None) -> bool:
    """A `no_figure` notice that names the missing subject (the design asks for the metric
    first: a menu is honest only after saying plainly that this figure is not held)."""
    if not subject:
        return False
    return any(isinstance(n, dict) and n.get("kind") == "no_figure"
               and subject.casefold() in str(n.get("text", "")).casefold()
               for n in answer.get("notices") or [])


def untrue(answer: Json, data: Data) -> str | None:
    """On a test company: a found plain figure that the fact table does not hold, or holds
    with another value (compared in the row's unit when the fact is in another unit of the
    same dimension). Derived and arithmetic figures are left to the expectation."""
    for f in _all_found(answer.get("facts") or []):
        if _op(f) is not None or f.get("derived"):
            continue
        key = (f.get("metric_code"), f.get("entity"), f.get("period_type"), f.get("period"),
               f.get("channel") or "TOTAL")
        if key not in data.rows:
            return f"states a figure the table does not hold: {_describe(f)}"
        value, unit = _dec(f.get("value_exact")), f.get("unit") or data.units[key]
        try:
            shown = data.in_unit(value, unit, data.units[key]) if value is not None else None
        except SpecError:
            return f"states {_describe(f)} in {unit}, a conversion the table does not hold"
        if shown is not None and shown != data.rows[key]:
            return f"states {_describe(f)}; the table holds {data.rows[key]}"
    return None


def _names(data: Data, code: str) -> set[str]:
    return _label_names(data, code) | {code.casefold()}


def score_count(spec: Json, answer: Json, data: Data) -> Verdict:
    """A count is correct when a derived `count` fact has the value, or the answer's headline
    states the number and names every counted unit (each member named, issue 40); one plain
    figure in place of a count is wrong."""
    want = int(spec["value"])
    for f in _all_found(answer.get("facts") or []):
        if _op(f) == "count":
            if _dec(f.get("value_exact")) == want:
                return Verdict(CORRECT, f"count {want}")
            return Verdict(WRONG, f"counts {f.get('value_exact')}, expected {want}")
    # the answer's headline (its first line, citation markers dropped): a table of the
    # figures below it holds row and page numbers that are no count
    text = re.sub(r"\[\d+\]", "", str(answer.get("text", "")).split("\n", 1)[0]).casefold()
    numbers = {int(n) for n in re.findall(r"(?<![\d.,])\d+(?![\d.,])", text)}
    words = {0: ("none", "nessun", "没有", "0"), 1: ("one", "una", "uno", "一"),
             2: ("two", "due", "两", "二"), 3: ("three", "tre", "三"), 4: ("four", "quattro", "四")}
    stated = want in numbers or any(w in text for w in words.get(want, ()))
    named = all(any(n in text for n in _names(data, m)) for m in spec.get("members", [])
                if spec.get("over") == "entities")
    if stated and named:
        return Verdict(CORRECT, f"states {want} and names the members")
    plain = [f for f in _found(answer.get("facts") or []) if _op(f) in PLAIN_OPS]
    if len(plain) == 1 and not answer.get("tables"):
        return Verdict(WRONG, f"states {_describe(plain[0])} in place of a count")
    return Verdict(MISSED, f"no count of {want}" + ("" if named else " naming the members"))


def score_withheld(expect: Json, answer: Json, data: Data) -> Verdict:
    """Withheld (issue 33): no found fact keyed to the total's entity and no table row named
    by it; what the visible members add up to may appear only under their own names."""
    total = expect["entity"]
    for f in _all_found(answer.get("facts") or []):
        if f.get("entity") == total:
            return Verdict(WRONG, f"states {_describe(f)} under the withheld total")
    names = _names(data, total)
    for t in answer.get("tables") or []:
        for point in t.get("series") or []:
            if str(point.get("label", "")).casefold() in names:
                return Verdict(WRONG, f"a table row of the withheld {point['label']}")
    return Verdict(CORRECT, "nothing stated under the withheld total")


def reason_quoted(entry: Json, answer: Json) -> bool | None:
    """Whether a quoted passage holds one of the expected reason phrases (None: not asked)."""
    phrases = entry["expect"].get("reason_any")
    if not phrases:
        return None
    texts = [str(p.get("text", "")).casefold() for p in answer.get("passages") or []]
    return any(ph.casefold() in t for ph in phrases for t in texts)


def score(entry: Json, answer: Json, data: Data) -> Verdict:
    """The verdict on one answer (the `ask --json` object) to one labelled question; on a
    test company also the reply's language when the entry asks for one."""
    verdict = _score(entry, answer, data)
    want_lang = entry["expect"].get("lang")
    if verdict.verdict == CORRECT and want_lang and answer.get("language") != want_lang:
        return Verdict(MISSED, f"replied in {answer.get('language')}, asked in {want_lang}")
    return verdict


def _score(entry: Json, answer: Json, data: Data) -> Verdict:
    leaked = leak(answer, entry.get("chat"), data)
    if leaked:
        return Verdict(WRONG, f"leak: {leaked}")
    if data.withhold:
        false = untrue(answer, data)
        if false:
            return Verdict(WRONG, false)
        forbidden = [f for f in _all_found(answer.get("facts") or [])
                     if _op(f) in entry["expect"].get("forbid_ops", [])]
        if forbidden:
            return Verdict(WRONG, f"computes {_describe(forbidden[0])}")
    expect, route = entry["expect"], answer.get("route")
    stated = _found(answer.get("facts") or [])
    want = expect.get("route")
    if "ranking" in expect:
        return score_ranking(expect["ranking"], answer, data)
    if want == "withheld":
        return score_withheld(expect, answer, data)
    counts = [f for f in expect.get("figures", []) if f.get("op") == "count"]
    if counts:
        return score_count(counts[0], answer, data)
    if "figures" in expect:
        verdict = score_figures(expect["figures"], answer, data)
        if verdict.verdict != CORRECT or want != "composite":
            return verdict
        if not answer.get("passages") or not answer.get("citations"):
            return Verdict(MISSED, "the figure without the narrative part")
        if expect.get("cites_any") and not _cites_first(answer, expect["cites_any"]):
            return Verdict(MISSED, f"narrative cites none of {expect['cites_any']}")
        return Verdict(CORRECT, "figure and cited narrative")
    if want == "narrative":
        if route in ("narrative", "composite") and answer.get("citations") and (
            not expect.get("cites_any") or _cites_first(answer, expect["cites_any"])
        ):
            return Verdict(CORRECT, "cited document answer")
        return Verdict(MISSED, f"route {route}, cites {_cited_docs(answer)}")
    if want in ("refused", "not_known", "clarify") and stated:
        return Verdict(WRONG, f"states {_describe(stated[0])} where {want} was expected")
    if want == "refused":
        if route == "refused":
            return Verdict(CORRECT, "refused")
        if _discloses_nothing(answer) and route != "clarify":
            return Verdict(CORRECT, "discloses nothing")
        return Verdict(MISSED, f"route {route}, not refused")
    if want == "not_known":
        if _discloses_nothing(answer) and route != "clarify":
            return Verdict(CORRECT, "says it does not know, cites nothing")
        if _discloses_nothing(answer) and _names_no_figure(answer, expect.get("subject")):
            return Verdict(CORRECT, "says it has no figure for it, then offers the metrics")
        return Verdict(MISSED, f"route {route}, cites {_cited_docs(answer)}")
    if want == "clarify":
        return Verdict(CORRECT if route == "clarify" else MISSED, f"route {route}")
    raise ValueError(f"{entry['id']}: no expectation")
