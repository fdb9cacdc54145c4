"""How a unit reads when the glossary gives it no display form: a currency by its symbol
("€560.4M", "560,4 Mln €", "5.604亿欧元"), a percentage with "%", headcount in FTE; any other
unit by its code made into words ("160 k orders"), which `ricorda check` warns about.

The words are the catalog's (core.catalog.unit_words): the symbol CLDR gives in English (CNY is
"CN¥", to tell it from the yen); Italian writes the symbol after the number with its scale word
(Mln, Mld, mila), Chinese the currency's name after a scale it counts in (万, 亿: 560.4 million
euro = 5.604亿欧元, exactly, by shifting the decimal point: core.knowledge.units). A form is
(format, shift), as core.knowledge.units.UnitForm takes it.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from core.catalog.unit_words import CURRENCIES, STEPS
from core.catalog.unit_words import currency_forms as forms_of
from core.knowledge.unit_kinds import BUILT_IN, RATIO

Form = tuple[str, int]  # "{value}亿欧元", -2


def currency_forms(code: str) -> dict[str, Form] | None:
    """EUR_M -> en "€{value}M", it "{value} Mln €", zh "{value}亿欧元" (shift -2); None when
    `code` is not a built-in currency unit (EUR_K_PER_FTE is a rate, not a currency)."""
    kind = BUILT_IN.get(code)
    if kind is None or not kind.dimension.startswith("currency:") or "/" in kind.dimension:
        return None
    currency = kind.dimension.removeprefix("currency:")
    step = code.removeprefix(currency)
    if currency not in CURRENCIES or not code.startswith(currency) or step not in STEPS:
        return None
    return {language: (form, shift) for language, form, shift in forms_of(currency, step)}


@lru_cache(maxsize=1024)
def builtin_form(code: str, language: str) -> Form | None:
    """The form a well-known unit reads in without a glossary form; None for any other (kept
    per unit and language: every figure shown asks, and it is a fixed table's answer)."""
    forms = currency_forms(code)
    if forms is not None:
        return forms.get(language, forms["en"])
    kind = BUILT_IN.get(code)
    if kind is not None and kind.dimension == RATIO and code == "PCT":
        return ("{value}%", 0)
    if code == "FTE":
        return ("{value} FTE", 0)
    return None


def has_display(code: str, declared: Mapping[str, Mapping[str, object]]) -> bool:
    """Whether a reader sees `code` in words: a glossary form, or a built-in one."""
    return bool(declared.get(code)) or builtin_form(code, "en") is not None


def readable_code(code: str) -> str:
    """The last resort for an undescribed unit: "K_ORDERS" -> "k orders", never the code."""
    return code.replace("_", " ").lower()
