"""Expected values of the labelled question set, computed from the demo fact table.

Every figure in questions.jsonl is written as a *spec* (metric, entity, period, channel, and an
`op` for arithmetic); its `value` (and `shown`, `top`) is computed here, in exact decimals, from
bot/demo/facts.csv and bot/demo/glossary.toml, never typed by hand. So a number in the set is
always traceable to the rows it came from.

    python bench/understanding/expected.py --check   # exit 1 if a stored value is stale
    python bench/understanding/expected.py --write   # (re)fill every value in place
    python bench/understanding/expected.py --company bench/companies/meridian --write

A company folder (bench/companies/NAME: glossary.toml, facts.csv, questions.jsonl) is read the
same way, with one difference: its totals follow the WITHHOLD rule of issue 33. In a chat not
cleared for a restricted unit, a total whose members include it is withheld (no figure under
its name); a spec asking for one in such a chat is an error, the question expects `withheld`.

Independent of core/: the yardstick must not share code with what it measures.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import sys
import tomllib
from decimal import ROUND_HALF_UP, Decimal, localcontext
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
DEMO = ROOT / "bot" / "demo"
SET_FILE = HERE / "questions.jsonl"
PRECISION = 34  # significant digits of a non-terminating result (a ratio, an average)
PERCENT_OPS = ("growth", "share")
OPS = ("sum", "average", "count", *PERCENT_OPS)
COMPARISONS = {">": lambda a, b: a > b, "<": lambda a, b: a < b,
               ">=": lambda a, b: a >= b, "<=": lambda a, b: a <= b}
RANK_OPS = ("max", "min")

Key = tuple[str, str, str, str, str]  # metric, entity, period_type, period, channel


class SpecError(ValueError):
    """A spec that names a row the fact table does not have, or is malformed."""


def period_type(period: str) -> str:
    """The fact table's period type of a period code: 2024 FY, 2025H1 HY, 2025Q3 Q, 2025-05 M."""
    if len(period) == 4 and period.isdigit():
        return "FY"
    if len(period) == 6 and period[4] == "H" and period[5] in "12":
        return "HY"
    if len(period) == 6 and period[4] == "Q" and period[5] in "1234":
        return "Q"
    if len(period) == 7 and period[4] == "-":
        return "M"
    raise SpecError(f"not a period code: {period!r}")


def previous_period(period: str) -> str:
    """The previous comparable period: the year before for a fiscal year (the only default)."""
    if period_type(period) != "FY":
        raise SpecError(f"growth over {period!r} needs an explicit 'base'")
    return str(int(period) - 1)


class Withheld(SpecError):
    """A figure the chat may not be shown: a total that includes a restricted member."""


class Data:
    """A fact table (the demo's, or a test company's) and the parts of the glossary the set
    needs. `withhold`: totals that include a restricted member are withheld from uncleared
    chats (issue 33), instead of the demo's protected public sums."""

    def __init__(self, demo: Path = DEMO, *, withhold: bool = False) -> None:
        self.folder = demo
        self.withhold = withhold
        self.rows: dict[Key, Decimal] = {}
        self.units: dict[Key, str] = {}
        with (demo / "facts.csv").open(encoding="utf-8", newline="") as fh:
            for row in csv.DictReader(fh):
                key = (row["metric"], row["entity"], row["period_type"], row["period"],
                       row["channel"] or "TOTAL")
                self.rows[key] = Decimal(row["value"])
                self.units[key] = row["unit"]
        glossary = tomllib.loads((demo / "glossary.toml").read_text(encoding="utf-8"))
        self.derived: dict[str, dict[str, Any]] = glossary.get("derived", {})
        self.entities: dict[str, dict[str, Any]] = glossary["entities"]
        self.metrics = set(glossary["metrics"]) | set(self.derived)
        self.cleared_chats = set(glossary["scope"].get("restricted_chats", []))
        self.policy = glossary["scope"].get("disclosure", "protect")
        self.channels: dict[str, dict[str, Any]] = glossary.get("channels", {})
        relations = glossary.get("relations", {})
        self.channel_totals: dict[str, list[str]] = dict(relations.get("channels", {}))
        self.non_additive = {code for code, m in glossary["metrics"].items()
                             if m.get("unit") == "PCT" or m.get("kind") == "rate"
                             or m.get("additive") is False} | set(relations.get("non_additive", []))
        self.restricted_sources = {d["source"] for d in glossary.get("documents", [])
                                   if d.get("restricted")}
        # every metric's unit, derived ones included
        self.metric_units: dict[str, str] = {code: str(m.get("unit", "")) for code, m in
                                             {**glossary["metrics"], **self.derived}.items()}
        # the powers of ten a unit's forms move a value by (a chart's series is in its axis
        # unit: 亿欧元 plots 5.604 for €560.4M, docs/units.md)
        self.shifts: dict[str, set[int]] = {
            unit: {0} | {f.get("shift", 0) for f in forms.values() if isinstance(f, dict)}
            for unit, forms in glossary.get("units", {}).items()}
        units = glossary.get("units", {})
        self.unit_scales = {c: Decimal(str(u["scale"])) for c, u in units.items() if "scale" in u}
        self.unit_dims = {c: u.get("dimension") for c, u in units.items()}

    def in_unit(self, value: Decimal, unit: str, asked: str) -> Decimal:
        """A value in `unit` expressed in `asked` (same dimension: EUR_K in EUR_M), exactly."""
        if unit == asked:
            return value
        if self.unit_dims.get(unit) != self.unit_dims.get(asked) or unit not in \
                self.unit_scales or asked not in self.unit_scales:
            raise SpecError(f"{unit} does not convert into {asked}")
        with localcontext() as ctx:
            ctx.prec = PRECISION
            return value * self.unit_scales[unit] / self.unit_scales[asked]

    def row(self, metric: str, entity: str, period: str, channel: str = "TOTAL") -> Decimal:
        key = (metric, entity, period_type(period), period, channel)
        if key not in self.rows:
            raise SpecError(f"no row {key} in facts.csv")
        return self.rows[key]

    def value(self, metric: str, entity: str, period: str, channel: str = "TOTAL",
              chat: str | None = None) -> Decimal:
        """The figure a chat is shown: a stored row, or a glossary-derived metric computed from
        its two inputs (0 for a total withheld from the chat: see `shown`)."""
        return self.shown(metric, entity, period, channel, chat)[0]

    def shown(self, metric: str, entity: str, period: str, channel: str = "TOTAL",
              chat: str | None = None) -> tuple[Decimal, bool]:
        """(value, withheld): `withheld` when the total is withheld from this chat
        (docs/disclosure.md), for a derived metric when an input is."""
        if metric not in self.derived:
            return self.visible(metric, entity, period, channel, chat)
        d = self.derived[metric]
        first = d.get("numerator") or d["minuend"]
        second = d.get("denominator") or d["subtrahend"]
        (a, pa), (b, pb) = (self.visible(m, entity, period, channel, chat)
                            for m in (first, second))
        if pa or pb:  # an input withheld: so is the derived figure
            return Decimal(1), True
        with localcontext() as ctx:
            ctx.prec = PRECISION
            raw = a / b if "numerator" in d else a - b
            return raw * Decimal(str(d.get("scale", 1))), pa or pb

    # ------------------------------------------------------------ disclosure (docs/disclosure.md)

    def _members(self, dim: str, code: str) -> list[str]:
        if dim == "entity":
            return [c for c, e in self.entities.items() if e.get("parent") == code]
        if code != "TOTAL":
            return []
        return self.channel_totals.get(code) or [c for c in self.channels if c != "TOTAL"]

    def _restricted(self, dim: str, code: str) -> bool:
        table = self.entities if dim == "entity" else self.channels
        return bool(table.get(code, {}).get("restricted"))

    def _hides(self, dim: str, code: str) -> bool:
        return any(self._restricted(dim, m) or self._hides(dim, m)
                   for m in self._members(dim, code))

    def _protected_dim(self, metric: str, entity: str, period: str, channel: str,
                       chat: str | None) -> str | None:
        """The dimension along which this total is withheld from this chat, or None when the
        stored total is shown. The rule of docs/disclosure.md (issue 33): every member has a
        figure and the total is not their sum -> the stored total; otherwise withheld (a
        missing member, restricted or public, withholds it too)."""
        if chat in self.cleared_chats or self.policy != "protect" or metric in self.non_additive:
            return None
        for dim, code in (("entity", entity), ("channel", channel)):
            if not self._hides(dim, code):
                continue
            members = self._members(dim, code)
            raw = {m: self.rows.get(self._key(metric, entity, period, channel, dim, m))
                   for m in members}
            stored = self.rows.get((metric, entity, period_type(period), period, channel))
            if all(v is not None for v in raw.values()) and stored is not None \
                    and stored != sum(raw.values(), Decimal(0)):
                continue
            return dim
        return None

    @staticmethod
    def _key(metric: str, entity: str, period: str, channel: str, dim: str, member: str) -> Key:
        e, c = (member, channel) if dim == "entity" else (entity, member)
        return (metric, e, period_type(period), period, c)

    def withheld(self, entity: str, channel: str, chat: str | None) -> bool:
        """Under the withhold rule: a total that includes a restricted member, in a chat that
        is not cleared for it (any metric: the rule does not depend on adding up)."""
        return (self.withhold and chat not in self.cleared_chats
                and (self._hides("entity", entity) or self._hides("channel", channel)))

    def withheld_cell(self, metric: str, entity: str, period: str, channel: str,
                      chat: str | None) -> bool:
        """Under the withhold rule, for one cell: a total that includes a restricted member is
        withheld unless it is not the sum of its members (docs/disclosure.md): a rate or a
        metric declared non-additive, or a stored total that differs from the sum of its
        members' stored figures (every member has one: EBITDA after central costs). Such a
        total reveals no member, and is shown as stored."""
        if not self.withheld(entity, channel, chat):
            return False
        if metric in self.non_additive:
            return False
        for dim, code in (("entity", entity), ("channel", channel)):
            if not self._hides(dim, code):
                continue
            members = self._members(dim, code)
            raw = [self.rows.get(self._key(metric, entity, period, channel, dim, m))
                   for m in members]
            stored = self.rows.get((metric, entity, period_type(period), period, channel))
            if not members or stored is None or any(v is None for v in raw) \
                    or stored == sum(raw, Decimal(0)):  # type: ignore[arg-type]
                return True
        return False

    def visible(self, metric: str, entity: str, period: str, channel: str,
                chat: str | None) -> tuple[Decimal, bool]:
        """(value shown, protected) of one stored cell in this chat."""
        if self.withheld_cell(metric, entity, period, channel, chat):
            raise Withheld(f"{metric} {entity} {period} is withheld from {chat or 'this chat'}")
        if self.withhold:
            return self.row(metric, entity, period, channel), False
        if self._protected_dim(metric, entity, period, channel, chat) is None:
            return self.row(metric, entity, period, channel), False
        return Decimal(1), True  # withheld: no figure is expected for it (1: never divides by 0)

    def members(self, chat: str | None) -> list[str]:
        """The units of the group a chat may see (restricted ones only in a cleared chat): the
        leaves of the hierarchy, never a region between the group and its units."""
        cleared = chat in self.cleared_chats
        parents = {e.get("parent") for e in self.entities.values()}
        return [code for code, e in self.entities.items()
                if e.get("parent") and code not in parents
                and (cleared or not e.get("restricted"))]


def rounded(value: Decimal, decimals: int) -> Decimal:
    return value.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)


def exact_text(value: Decimal) -> str:
    """A decimal as plain text, never in exponent form."""
    return format(value, "f")


def figure(spec: dict[str, Any], data: Data, chat: str | None = None) -> dict[str, Any]:
    """`value` (exact) and, for a computed figure, `shown` (rounded) of one expected figure, as
    `chat` is shown it; `withheld: true` (and no value) when it rests on a total withheld from
    that chat: the answer must say so and state no figure for it (docs/understanding.md)."""
    metric, channel, op = spec["metric"], spec.get("channel", "TOTAL"), spec.get("op")
    if metric not in data.metrics:
        raise SpecError(f"unknown metric {metric!r}")
    hits: list[bool] = []

    def value(m: str, e: str, p: str) -> Decimal:
        v, protected = data.shown(m, e, p, channel, chat)
        hits.append(protected)
        return v

    out = _figure(spec, data, metric, op, value)
    if spec.get("unit") and op is None:  # "in millions": the stored figure in the asked unit
        stored = data.units[(metric, spec["entity"], period_type(spec["period"]),
                             spec["period"], channel)]
        out["value"] = exact_text(data.in_unit(Decimal(out["value"]), stored, spec["unit"]))
    if any(hits):
        return {"withheld": True}
    return out


def _figure(spec: dict[str, Any], data: Data, metric: str, op: str | None,
            value: Any) -> dict[str, Any]:
    with localcontext() as ctx:
        ctx.prec = PRECISION
        if op is None:
            v = value(metric, spec["entity"], spec["period"])
            if metric in data.derived:
                decimals = int(data.derived[metric].get("decimals", 1))
                return {"value": exact_text(v), "shown": str(rounded(v, decimals))}
            return {"value": exact_text(v)}
        if op in ("sum", "average"):
            if "periods" in spec:
                parts = [value(metric, spec["entity"], p) for p in spec["periods"]]
            else:
                parts = [value(metric, e, spec["period"]) for e in spec["entities"]]
            total = sum(parts, Decimal(0))
            if op == "sum":
                return {"value": exact_text(total)}
            v = total / len(parts)
            return {"value": exact_text(v), "shown": str(rounded(v, 1))}
        if op == "growth":
            base = spec.get("base") or previous_period(spec["period"])
            new = value(metric, spec["entity"], spec["period"])
            old = value(metric, spec["entity"], base)
            v = (new / old - 1) * 100
            return {"value": exact_text(v), "shown": str(rounded(v, 1))}
        if op == "count":
            return count(spec, data, metric, value)
        if op == "share":
            part = value(metric, spec["entity"], spec["period"])
            whole = value(metric, spec["of"], spec["period"])
            v = part / whole * 100
            return {"value": exact_text(v), "shown": str(rounded(v, 1))}
    raise SpecError(f"unknown op {op!r}")


def count(spec: dict[str, Any], data: Data, metric: str, value: Any) -> dict[str, Any]:
    """How many units (or periods) pass a test: `cmp` and `threshold` against each figure, or
    `test: "fell"` (a period lower than the one listed before it). `members` lists them."""
    if spec["over"] == "entities":
        cells = {e: value(metric, e, spec["period"]) for e in spec["entities"]}
    else:
        cells = {p: value(metric, spec["entity"], p) for p in spec["periods"]}
    if spec.get("test") == "fell":
        keys = list(cells)
        hits = [k for prev, k in itertools.pairwise(keys) if cells[k] < cells[prev]]
    else:
        test, limit = COMPARISONS[spec["cmp"]], Decimal(spec["threshold"])
        hits = [k for k, v in cells.items() if test(v, limit)]
    return {"value": str(len(hits)), "members": hits}


def ranking(spec: dict[str, Any], data: Data, chat: str | None) -> dict[str, str]:
    """The top of a ranking: `top` (an entity code or a period code) and its `value`.

    Over entities, the candidates are the group's units this chat may see; over periods,
    the periods listed in the spec."""
    metric, channel, op = spec["metric"], spec.get("channel", "TOTAL"), spec["op"]
    if op not in RANK_OPS:
        raise SpecError(f"a ranking op is max or min, not {op!r}")
    candidates: dict[str, Decimal] = {}
    if spec["over"] == "entities":
        for e in spec.get("entities") or data.members(chat):
            try:
                candidates[e] = data.value(metric, e, spec["period"], channel, chat)
            except SpecError:
                continue  # a unit without the row is not ranked (the answer names it)
    elif spec["over"] == "periods":
        for p in spec["periods"]:
            v, withheld = data.shown(metric, spec["entity"], p, channel, chat)
            if withheld:  # a ranking of a withheld total's periods: withheld too
                return {"withheld": True}
            candidates[p] = v
    else:
        raise SpecError(f"ranking over {spec['over']!r}")
    if len(candidates) < 2:
        raise SpecError(f"a ranking needs two candidates: {spec}")
    pick = max if op == "max" else min
    top = pick(candidates, key=lambda k: candidates[k])
    if sorted(candidates.values()).count(candidates[top]) > 1:
        raise SpecError(f"a tie at the top of {spec}")
    return {"top": top, "value": exact_text(candidates[top])}


COMPUTED = ("value", "shown", "top", "protected", "members", "withheld")


def fill(entry: dict[str, Any], data: Data) -> dict[str, Any]:
    """The entry with every computed field of its expectation recomputed."""
    expect = entry["expect"]
    chat = entry.get("chat")
    out = dict(entry)
    new_expect = dict(expect)
    if "figures" in expect:
        new_expect["figures"] = [
            {**{k: v for k, v in f.items() if k not in COMPUTED}, **figure(f, data, chat)}
            for f in expect["figures"]
        ]
    if "ranking" in expect:
        r = expect["ranking"]
        new_expect["ranking"] = {**{k: v for k, v in r.items() if k not in COMPUTED},
                                 **ranking(r, data, chat)}
    if expect.get("route") == "withheld" and not data.withheld(
            expect["entity"], expect.get("channel", "TOTAL"), chat):
        raise SpecError(f"{entry['id']}: {expect['entity']} is not withheld from {chat}")
    out["expect"] = new_expect
    return out


def company_data(folder: Path) -> Data:
    """A test company of bench/companies: its totals follow the withhold rule."""
    return Data(folder, withhold=True)


def load_set(path: Path = SET_FILE) -> list[dict[str, Any]]:
    entries = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip() and not line.lstrip().startswith("//"):
            try:
                entries.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise SpecError(f"{path.name}:{n}: {exc}") from exc
    return entries


def dump_set(entries: list[dict[str, Any]], path: Path = SET_FILE) -> None:
    path.write_text(
        "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries), encoding="utf-8"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="fail if a stored value is stale")
    mode.add_argument("--write", action="store_true", help="recompute every value in place")
    parser.add_argument("--company", type=Path,
                        help="a company folder (glossary.toml, facts.csv, questions.jsonl)")
    args = parser.parse_args(argv)
    data = company_data(args.company) if args.company else Data()
    set_file = args.company / "questions.jsonl" if args.company else SET_FILE
    entries = load_set(set_file)
    filled = [fill(e, data) for e in entries]
    if args.write:
        dump_set(filled, set_file)
        print(f"{len(filled)} questions written to {set_file}")
        return 0
    stale = [e["id"] for e, f in zip(entries, filled, strict=True) if e != f]
    for qid in stale:
        print(f"stale: {qid}", file=sys.stderr)
    print(f"{len(entries)} questions, {len(stale)} stale")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
