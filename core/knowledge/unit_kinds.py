"""What a unit measures and at what scale, so figures in different units are never mixed.

Every unit code is a dimension and a scale: EUR_M is "currency:EUR" x 10^6, PCT is "ratio" x
0.01, FTE is "headcount" x 1. Two units of the same dimension convert exactly (329,600 EUR_K
is 329.6 EUR_M); two of different dimensions never do (USD is not EUR, FTE is not euros).

The glossary declares its units (`[units.EUR_M] dimension = "currency:EUR", scale = "1e6"`);
the common codes are built in (`BUILT_IN`), so a glossary written before units were data still
loads and converts. A unit a glossary names but does not declare, and that is not built in, is
"undeclared": it is accepted as itself, never converted, and `ricorda check` asks for its
declaration.

Used at ingest (a fact row in another unit of its metric's dimension is converted; one of
another dimension, or in an unknown unit, is rejected) and when the glossary is loaded (a
derived formula's inputs must give its declared result unit and scale).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation, localcontext
from typing import Any

from core.contracts.errors import ConfigError

RATIO = "ratio"  # a dimensionless quotient (PCT is a ratio x 0.01)
_PRECISION = 80  # digits for exact conversion (a fact has at most 28 significant digits)


@dataclass(frozen=True)
class UnitKind:
    """A unit's dimension ("currency:EUR", "headcount", "ratio") and scale (EUR_M: 10^6)."""

    code: str
    dimension: str
    scale: Decimal = Decimal(1)

    def describe(self) -> str:
        """"currency:EUR x 1e6": what a problem message names."""
        if self.scale == 1:
            return self.dimension
        return f"{self.dimension} x {_plain(self.scale)}"


def _built_in() -> dict[str, UnitKind]:
    out: dict[str, UnitKind] = {}
    steps = {"": Decimal(1), "_K": Decimal("1e3"), "_M": Decimal("1e6"), "_B": Decimal("1e9"),
             "_BN": Decimal("1e9")}
    for currency in ("EUR", "USD", "GBP", "CHF", "CNY", "JPY", "HKD"):
        for suffix, scale in steps.items():
            code = currency + suffix
            out[code] = UnitKind(code, f"currency:{currency}", scale)
        for suffix, scale in (("", Decimal(1)), ("_K", Decimal("1e3"))):
            code = f"{currency}{suffix}_PER_FTE"
            out[code] = UnitKind(code, f"currency:{currency}/headcount", scale)
    out["PCT"] = UnitKind("PCT", RATIO, Decimal("0.01"))
    out["BPS"] = UnitKind("BPS", RATIO, Decimal("0.0001"))
    out["FTE"] = UnitKind("FTE", "headcount", Decimal(1))
    out["ORDERS"] = UnitKind("ORDERS", "orders", Decimal(1))
    out["K_ORDERS"] = UnitKind("K_ORDERS", "orders", Decimal("1e3"))
    out["COUNT"] = UnitKind("COUNT", "count", Decimal(1))
    out["K_COUNT"] = UnitKind("K_COUNT", "count", Decimal("1e3"))
    return out


BUILT_IN: dict[str, UnitKind] = _built_in()


def parse_unit_kinds(
    raw: Any, fail: Callable[[str, str], ConfigError]
) -> dict[str, UnitKind]:
    """The built-in units overlaid with the glossary's `dimension` / `scale` declarations
    (the display forms of the same tables are read by core.knowledge.units)."""
    kinds = dict(BUILT_IN)
    if not isinstance(raw, dict):
        return kinds
    for code, body in raw.items():
        if not isinstance(body, dict):
            continue  # reported by parse_units
        dimension, scale = body.get("dimension"), body.get("scale")
        if dimension is None and scale is None:
            continue
        key = f"units.{code}"
        if dimension is None:
            if code not in BUILT_IN:
                raise fail(f"{key}.scale", 'a scale needs a dimension too, like '
                           'dimension = "currency:EUR"')
            dimension = BUILT_IN[code].dimension
        if not isinstance(dimension, str) or not dimension.strip():
            raise fail(f"{key}.dimension",
                       'must name what the unit measures, like "currency:EUR" or "headcount"')
        kinds[code] = UnitKind(code, dimension.strip(), _scale(scale, f"{key}.scale", fail))
    return kinds


def _scale(raw: Any, key: str, fail: Callable[[str, str], ConfigError]) -> Decimal:
    if raw is None:
        return Decimal(1)
    problem = 'must be a positive number like 1, "1e3", "1e6" or "0.01" (a string keeps it exact)'
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        raise fail(key, problem)
    try:
        value = Decimal(str(raw).strip())
    except InvalidOperation:
        raise fail(key, problem) from None
    if not value.is_finite() or value <= 0:
        raise fail(key, problem)
    return value


def convert(value: Decimal, source: UnitKind, target: UnitKind) -> Decimal | None:
    """`value` in `source` expressed in `target` (same dimension), exactly; None when the
    quotient does not terminate within a fact's digits (a scale of 12 into one of 10)."""
    with localcontext() as ctx:
        ctx.prec = _PRECISION
        result = value * source.scale / target.scale
        if result * target.scale != value * source.scale:
            return None
    return _plain(result)


def _plain(value: Decimal) -> Decimal:
    """Trailing zeros dropped (329.600 -> 329.6), never an exponent (1E+3 -> 1000)."""
    normal = value.normalize()
    exponent = normal.as_tuple().exponent
    if isinstance(exponent, int) and exponent > 0:
        with localcontext() as ctx:
            ctx.prec = max(ctx.prec, normal.adjusted() + 2)
            return normal.quantize(Decimal(1))
    return normal


@dataclass(frozen=True)
class RowUnit:
    """A fact row's unit settled: the value in the metric's unit, and the unit it came in."""

    value: Decimal
    unit: str
    converted_from: str = ""  # the row's own unit when it was converted


@dataclass(frozen=True)
class MetricUnits:
    """Each metric's declared unit and every unit's kind: settles a fact row's unit."""

    units: Mapping[str, str]  # metric code -> its declared unit ("" when none)
    kinds: Mapping[str, UnitKind]

    def settle(self, metric: str, written: str, value: Decimal) -> RowUnit | str:
        """The row in its metric's unit, or why it cannot be (the fix included)."""
        declared = self.units.get(metric, "")
        unit = self._code(written)
        if not unit or unit == declared:
            return RowUnit(value, declared or unit)
        if not declared:
            return RowUnit(value, unit)  # the metric names no unit: as before, kept as written
        target, source = self.kinds.get(declared), self.kinds.get(unit)
        if source is None:
            close = difflib.get_close_matches(unit, [declared, *self.kinds], n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            return (
                f"unknown unit {written!r}{hint}: write {metric}'s unit {declared}, or declare "
                f"[units.{unit}] with its dimension and scale in the glossary"
            )
        if target is None:
            return (
                f"unit {unit} is not {metric}'s unit {declared}, and {declared} has no declared "
                f"dimension and scale to convert to: write the value in {declared}, or declare "
                f'[units.{declared}] dimension = "...", scale = "..." in the glossary'
            )
        if _currency(source) and _currency(target) and source.dimension != target.dimension:
            # a unit reporting in its own currency (CNY beside a USD group): kept as written,
            # never converted; sums, rankings and shares keep it apart (docs/own-data.md)
            return RowUnit(value, unit)
        if source.dimension != target.dimension:
            same = sorted(c for c, k in self.kinds.items() if k.dimension == target.dimension)
            return (
                f"unit {unit} ({source.dimension}) is not a unit of {metric}, which is in "
                f"{declared} ({target.dimension}); figures of another dimension are never "
                f"converted: give the value in {declared}"
                + (f" (or in {', '.join(c for c in same if c != declared)}, converted on load)"
                   if len(same) > 1 else "")
            )
        converted = convert(value, source, target)
        if converted is None:
            return (
                f"{value} {unit} has no exact value in {declared}: give the value in {declared}"
            )
        return RowUnit(converted, declared, converted_from=unit)

    def _code(self, written: str) -> str:
        """The unit code as declared, matched case-insensitively ("eur_m" is EUR_M)."""
        text = written.strip()
        if not text:
            return ""
        folded = text.upper()
        if folded in self.kinds or folded in self.units.values():
            return folded
        return text


def _currency(kind: UnitKind) -> bool:
    """An amount of one currency (EUR_M), not a rate of one (EUR_K_PER_FTE)."""
    return kind.dimension.startswith("currency:") and "/" not in kind.dimension


def formula_unit_problem(
    op: str,
    inputs: tuple[str, str],
    units: tuple[str, str],
    scale: Decimal,
    result_unit: str,
    kinds: Mapping[str, UnitKind],
) -> str | None:
    """Why a derived formula's declared result unit does not follow from its inputs' units
    and its scale (`inputs`: the metric codes, `units`: theirs), or None when it does (or
    when a unit is undeclared: not checkable).

    A ratio a / b x s of units (A, B) is in dimension A/B (a "ratio" when A = B) and scale
    A.scale / (B.scale x s); a difference (a - b) x s is in A's dimension, scale A.scale / s.
    A scale that only multiplies (half a difference: the result keeps A.scale, or A.scale /
    B.scale for a ratio) is accepted too: the dimension is what must always hold."""
    left, right = (kinds.get(u) for u in units)
    result = kinds.get(result_unit)
    if left is None or right is None or result is None:
        return None
    with localcontext() as ctx:
        ctx.prec = _PRECISION
        if op == "ratio":
            dimension = RATIO if left.dimension == right.dimension else (
                f"{left.dimension}/{right.dimension}")
            needed = left.scale / (right.scale * scale)
            natural = left.scale / right.scale
            fix_scale = left.scale / (right.scale * result.scale)
        else:
            dimension = left.dimension
            needed = left.scale / scale
            natural = left.scale
            fix_scale = left.scale / result.scale
    names = f"{inputs[0]} in {left.code} and {inputs[1]} in {right.code}"
    if dimension != result.dimension:
        return (
            f"its inputs ({names}) give a figure in {dimension}, but {result_unit} is "
            f"{result.dimension}: declare a result unit of dimension {dimension}"
        )
    if result.scale not in (needed, natural):
        return (
            f"its inputs ({names}) times scale {_plain(scale)} give {dimension} x "
            f"{_plain(needed)}, but {result_unit} is {result.describe()}: set scale = "
            f'"{_plain(fix_scale)}" or declare a result unit of that scale'
        )
    return None


def undeclared_units(codes: list[str], kinds: Mapping[str, UnitKind]) -> list[str]:
    """The codes (in order, once) with no dimension and scale, declared or built in."""
    return list(dict.fromkeys(c for c in codes if c and c not in kinds))
