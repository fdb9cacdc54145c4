"""The scale a question asks its figures in: "marketing spend in millions", "in migliaia",
"in miliardi", "以万元计", "in 亿".

The stored figure is never changed: the answer is shown through a glossary whose unit forms
move the decimal point exactly (core.knowledge.units.UnitForm `shift`), for the units that
have a scale to move (a currency or a count, core.knowledge.unit_kinds), never a ratio.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import TYPE_CHECKING

from core.catalog.lookup import say
from core.contracts.types import Notice
from core.knowledge.unit_kinds import RATIO
from core.knowledge.units import LANGUAGES, UnitForm

if TYPE_CHECKING:
    from core.knowledge.glossary import Glossary

SCALE = "scale"  # the notice kind in ask --json


@dataclass(frozen=True)
class AskedScale:
    """A power of ten the question wants its figures in, and its catalog key."""

    power: int
    key: str  # "thousands", "millions", "billions", "wan", "yi"


# a scale word's letters, any one of which a question asking for a scale contains
_HINTS = ("thousand", "million", "billion", "migliai", "mila", "milion", "miliard", "mn",
          "mln", "bn", "in k", "亿", "万", "千", "€", "$", "£", "¥", "eur", "usd", "gbp", "chf",
          "cny", "rmb", "aud", "jpy", "hkd")
_SCALES = {"thousands": 3, "millions": 6, "billions": 9, "wan": 4, "yi": 8}
_WORDS = {
    "thousands": r"thousands?|k|migliaia|mila",
    "millions": r"millions?|mn|mln|milioni|million",
    "billions": r"billions?|bn|miliardi|miliardo",
}
# a currency named before the scale: "in EUR millions", "in €m", "in USD k", "in A$ Mln"
_MONEY = r"(?:(?:eur|usd|us\$|gbp|chf|cny|rmb|aud|a\$|jpy|hkd|hk\$|[€$£¥])\s*)"
_LATIN = re.compile(
    r"(?<!\w)(?:in|into|expressed\s+in|espress[oi]\s+in|in\s+termini\s+di)\s+(?:the\s+)?"
    r"(?:" + _MONEY + r"?(?:"
    + "|".join(f"(?P<{k}>{v})" for k, v in _WORDS.items())
    + r")|" + _MONEY + r"(?:(?P<m_millions>m)|(?P<k_thousands>k)|(?P<b_billions>b))"
    + r")(?!\w)",
    re.IGNORECASE,
)
_ZH_SCALE = r"(?:(?P<yi>亿)|(?P<wan>万)|(?P<millions>百万)|(?P<thousands>千)|(?P<billions>十亿))"
_ZH = re.compile(
    r"(?:以|按|in\s*|单位[:：]?\s*|多少|几|[（(])" + _ZH_SCALE
    + r"(?:元|欧元|美元|人民币|澳元|英镑|港元|日元|瑞士法郎)?(?:计|为单位|显示|[）)])?",
)


def asked_scale(text: str) -> AskedScale | None:
    """The scale the question names, or None (most questions: one regex search each)."""
    folded = text.casefold()
    if not any(hint in folded for hint in _HINTS):
        return None  # the common case: a few substring checks, no regex scan
    m = _LATIN.search(text) or _ZH.search(text)
    if m is None:
        return None
    key = next(k for k, v in m.groupdict().items() if v).rsplit("_", 1)[-1]
    return AskedScale(_SCALES[key], key)


def scale_notice(scale: AskedScale, language: str) -> Notice:
    """"Figures shown in millions, as asked." (kind `scale` in ask --json)."""
    return Notice(say("scale_shown", language, scale=say(f"scale_{scale.key}", language)), SCALE)


def shown_in_scale(glossary: Glossary, scale: AskedScale | None) -> Glossary:
    """`glossary` whose money and count units read in `scale` (exact: the point moves)."""
    if scale is None:
        return glossary
    units = dict(glossary.units)
    for code, kind in glossary.unit_kinds.items():
        if kind.dimension == RATIO or kind.scale < 1 or "/" in kind.dimension:
            continue
        power = kind.scale.adjusted()
        if Decimal(10) ** power != kind.scale or power == scale.power:
            continue
        units[code] = {lang: _form(glossary, kind.dimension, scale, power, lang)
                       for lang in LANGUAGES}
    return replace(glossary, units=units)


def _form(glossary: Glossary, dimension: str, scale: AskedScale, power: int,
          language: str) -> UnitForm:
    """The target scale's own form when the glossary has one (EUR_M: "€{value}M"), else the
    catalog's "{value} million EUR"."""
    for code, kind in glossary.unit_kinds.items():
        form = (glossary.units.get(code) or {}).get(language)
        if (kind.dimension == dimension and kind.scale == Decimal(10) ** scale.power
                and form is not None and form.shift == 0):
            return UnitForm(form.format, power - scale.power)
    unit = dimension.split(":", 1)[-1] if dimension.startswith("currency:") else ""
    text = say("scaled_value", language, value="{value}",
               scale=say(f"scaled_word_{scale.key}", language), unit=unit).strip()
    return UnitForm(text, power - scale.power)
