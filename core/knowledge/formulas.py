"""Formulas of derived metrics: a ratio or a difference of two stored metrics, times a scale.

The language is deliberately this small: every derived figure the bot shows must be one a
reader can recompute from the two cited inputs, so nothing richer than "a / b × scale" or
"(a − b) × scale" is accepted. Arithmetic is exact Decimal: a difference keeps every digit, a
ratio keeps `PRECISION` significant digits (every digit when the quotient terminates).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation, localcontext
from typing import Any

from core.contracts.errors import ConfigError

PRECISION = 34  # significant digits of a ratio (IEEE decimal128): far beyond any display
MAX_DECIMALS = 6
# the formula keys of each operation, in the order the inputs are cited
OPERATIONS: dict[str, tuple[str, str]] = {
    "ratio": ("numerator", "denominator"),
    "difference": ("minuend", "subtrahend"),
}
_SYMBOL = {"ratio": "÷", "difference": "−"}


@dataclass(frozen=True)
class Formula:
    """`left op right × scale` over two stored metric codes."""

    op: str  # "ratio" | "difference"
    left: str
    right: str
    scale: Decimal = Decimal(1)

    @property
    def inputs(self) -> tuple[str, str]:
        return (self.left, self.right)

    @property
    def symbol(self) -> str:
        return _SYMBOL[self.op]

    def apply(self, left: Decimal, right: Decimal) -> Decimal | None:
        """The exact result, or None for a ratio over zero (it has no value)."""
        if self.op == "ratio":
            if right == 0:
                return None
            with localcontext() as ctx:
                ctx.prec = PRECISION
                ctx.traps[InvalidOperation] = True
                return plain(_exact_product(left, self.scale) / right)
        return plain(_exact_product(_exact_difference(left, right), self.scale))

    def to_dict(self) -> dict[str, str]:
        first, second = OPERATIONS[self.op]
        return {"op": self.op, first: self.left, second: self.right, "scale": str(self.scale)}


def rounded(value: Decimal, decimals: int) -> Decimal:
    """Half-up to `decimals` places, for display only (JSON keeps the exact value)."""
    with localcontext() as ctx:
        ctx.prec = max(ctx.prec, value.adjusted() + decimals + 2)
        return value.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)


def parse_formula(
    body: Mapping[str, Any],
    key: str,
    metrics: Mapping[str, str],
    fail: Callable[[str, str], ConfigError],
) -> tuple[Formula, int]:
    """The formula and display decimals of one `[derived.CODE]` table; `metrics` maps every
    stored metric code to its unit. Raises `fail(dotted key, problem)` on any mistake."""
    shapes = [op for op, keys in OPERATIONS.items() if any(k in body for k in keys)]
    if len(shapes) != 1:
        raise fail(
            key,
            "needs a formula: numerator = \"...\" and denominator = \"...\" (a ratio) or "
            "minuend = \"...\" and subtrahend = \"...\" (a difference), not both",
        )
    op = shapes[0]
    codes: list[str] = []
    for part in OPERATIONS[op]:
        code = body.get(part)
        if not isinstance(code, str) or code not in metrics:
            raise fail(
                f"{key}.{part}",
                f"must name a stored metric, one of {sorted(metrics)} (a derived metric is "
                "computed from stored ones only)",
            )
        codes.append(code)
    if op == "difference" and metrics[codes[0]] != metrics[codes[1]]:
        raise fail(
            f"{key}.subtrahend",
            f"'{codes[1]}' is in {metrics[codes[1]] or 'no unit'} and '{codes[0]}' in "
            f"{metrics[codes[0]] or 'no unit'}: a difference needs one unit",
        )
    scale = _scale(body.get("scale", 1), f"{key}.scale", fail)
    decimals = body.get("decimals")
    if isinstance(decimals, bool) or not isinstance(decimals, int) or not (
        0 <= decimals <= MAX_DECIMALS
    ):
        raise fail(
            f"{key}.decimals",
            f"must be a whole number from 0 to {MAX_DECIMALS}: the decimals shown (the "
            "exact value is kept in ask --json)",
        )
    return Formula(op, codes[0], codes[1], scale), decimals


def _scale(raw: Any, key: str, fail: Callable[[str, str], ConfigError]) -> Decimal:
    """A non-zero number; a string ("0.001") keeps digits a TOML float could not."""
    problem = 'must be a non-zero number like 100, 1000 or "0.001"'
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        raise fail(key, problem)
    try:
        value = Decimal(str(raw).strip())
    except InvalidOperation:
        raise fail(key, problem) from None
    if not value.is_finite() or value == 0:
        raise fail(key, problem)
    return value


def _exact_product(a: Decimal, b: Decimal) -> Decimal:
    with localcontext() as ctx:
        ctx.prec = max(ctx.prec, len(a.as_tuple().digits) + len(b.as_tuple().digits) + 2)
        return a * b


def _exact_difference(a: Decimal, b: Decimal) -> Decimal:
    """`a - b` with every digit (as core.figures.structured.exact_difference, which this leaf module
    cannot import: the glossary imports it)."""
    span = max(a.adjusted(), b.adjusted()) - min(exponent(a), exponent(b))
    with localcontext() as ctx:
        ctx.prec = max(ctx.prec, span + 2)
        return a - b


def plain(value: Decimal) -> Decimal:
    """Trailing zeros dropped (25.00 -> 25), never an exponent the JSON text would show."""
    normal = value.normalize()
    if exponent(normal) <= 0:
        return normal
    with localcontext() as ctx:
        ctx.prec = max(ctx.prec, normal.adjusted() + 2)
        return normal.quantize(Decimal(1))


def exponent(value: Decimal) -> int:
    return int(value.as_tuple().exponent)
