"""How a value in a unit reads in each language: "€560.4M", "560,4 M€", "5,604亿欧元".

The fact table stores a value and a unit code (EUR_M, PCT, FTE); the glossary's `[units]`
table says how a reader sees them:

    [units.EUR_M]
    en = "€{value}M"
    it = "{value} M€"
    zh = { format = "{value}亿欧元", shift = -2 }   # 560.4 million = 5.604 亿

`shift` moves the decimal point (a power of ten), exactly: no digit of the fact is lost or
rounded. A language the unit does not name uses `en`; a unit the glossary does not describe
reads as before, "1,320 USD_M". `ask --json` keeps the code and the exact value.

The same table may say what the unit measures (`dimension`, `scale`: core.knowledge.unit_kinds)
and give its forms under `display = { en = "...", it = "..." }` instead of one key per
language; both spellings read alike.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal, localcontext
from typing import Any

from core.contracts.errors import ConfigError

LANGUAGES = ("en", "it", "zh")
MAX_SHIFT = 12
_KIND_KEYS = ("dimension", "scale", "display")  # what the unit is, read by unit_kinds


@dataclass(frozen=True)
class UnitForm:
    """One language's form: `format` holds `{value}` once; `shift` powers of ten."""

    format: str
    shift: int = 0

    def show(self, value: Decimal, number: Callable[[Decimal], str]) -> str:
        if not self.shift:  # scaleb/normalize round to the context's 28 digits: not the fact's
            return self.format.replace("{value}", number(value))
        with localcontext() as ctx:  # every digit kept, however many
            ctx.prec = max(ctx.prec, len(value.as_tuple().digits) + abs(self.shift) + 2)
            shifted = value.scaleb(self.shift)
            if shifted != shifted.to_integral_value():
                shifted = shifted.normalize()  # 1320 -> 13.2, not 13.20: the same number
            else:
                shifted = shifted.quantize(Decimal(1))
        return self.format.replace("{value}", number(shifted))


def show_value(
    value: Decimal,
    unit: str,
    language: str,
    units: Mapping[str, Mapping[str, UnitForm]],
    number: Callable[[Decimal], str],
) -> str:
    """The value with its unit as the reader writes it: the glossary's form for the language,
    else a well-known unit's own (a currency's symbol: core.knowledge.unit_display), else the
    glossary's English form, else the unit's code in words ("k orders"), never the code. A
    glossary form that spells the code itself ("{value} EUR_M") gives way to the symbol."""
    from core.knowledge.unit_display import builtin_form, readable_code

    forms = units.get(unit) or {}
    built_in = builtin_form(unit, language)

    def usable(f: UnitForm | None) -> UnitForm | None:
        return None if f is None or (unit and unit in f.format) else f  # not "{value} EUR_M"

    chosen = (usable(forms.get(language)), UnitForm(*built_in) if built_in else None,
              usable(forms.get("en")))
    form = next((f for f in chosen if f is not None), None)
    if form is None:
        return f"{number(value)} {readable_code(unit)}".rstrip()
    if value < 0:  # "-€3.2M", not "€-3.2M"
        return "-" + form.show(value.copy_abs(), number)
    return form.show(value, number)


def parse_units(
    raw: Any, fail: Callable[[str, str], ConfigError]
) -> dict[str, dict[str, UnitForm]]:
    """The glossary's `[units]` table; `fail(key, problem)` names file and line."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise fail("units", 'must be tables like [units.EUR_M] with en = "€{value}M"')
    out: dict[str, dict[str, UnitForm]] = {}
    for code, body in raw.items():
        key = f"units.{code}"
        if not isinstance(body, dict) or not body:
            raise fail(key, 'must give a form per language, like en = "€{value}M"')
        display = body.get("display", {})
        if not isinstance(display, dict):
            raise fail(f"{key}.display", 'must be a table like { en = "€{value}M" }')
        forms: dict[str, UnitForm] = {}
        spelled = [(lang, spec, f"{key}.{lang}") for lang, spec in body.items()
                   if lang not in _KIND_KEYS]
        spelled += [(lang, spec, f"{key}.display.{lang}") for lang, spec in display.items()]
        for language, spec, where in spelled:
            if language not in LANGUAGES:
                raise fail(where, f"unknown language (expected {', '.join(LANGUAGES)}; or "
                                  "dimension, scale, display)")
            forms[language] = _form(spec, where, fail)
        if forms:
            out[code] = forms
    return out


def _form(spec: Any, where: str, fail: Callable[[str, str], ConfigError]) -> UnitForm:
    if isinstance(spec, str):
        spec = {"format": spec}
    if not isinstance(spec, dict):
        raise fail(where, 'must be a string like "€{value}M" or { format = "...", shift = -2 }')
    unknown = sorted(set(spec) - {"format", "shift"})
    if unknown:
        raise fail(where, f"unknown key {unknown[0]!r} (expected format, shift)")
    text, shift = spec.get("format"), spec.get("shift", 0)
    if not isinstance(text, str) or text.count("{value}") != 1:
        raise fail(where, "the form must contain {value} exactly once")
    if isinstance(shift, bool) or not isinstance(shift, int) or abs(shift) > MAX_SHIFT:
        raise fail(where, f"shift must be a whole number from -{MAX_SHIFT} to {MAX_SHIFT}")
    return UnitForm(text, shift)
