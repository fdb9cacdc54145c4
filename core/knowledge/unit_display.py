"""How a unit reads when the glossary gives it no display form: a currency by its symbol
("€560.4M", "560,4 Mln €", "5.604亿欧元"), a percentage with "%", headcount in FTE; any other
unit by its code made into words ("160 k orders"), which `ricorda check` warns about.

The symbols are CLDR's for each currency in English (CNY is "CN¥", as CLDR writes it to tell it
from the yen); Italian writes the symbol after the number with its scale word (Mln, Mld,
mila), Chinese the currency's name after a scale it counts in (万, 亿: 560.4 million euro =
5.604亿欧元, exactly, by shifting the decimal point: core.knowledge.units).
"""

from __future__ import annotations

from core.knowledge.unit_kinds import BUILT_IN, RATIO
from core.knowledge.units import LANGUAGES, UnitForm

# currency code -> (en/it symbol, zh name)
CURRENCIES = {
    "EUR": ("€", "欧元"), "USD": ("$", "美元"), "GBP": ("£", "英镑"), "CHF": ("CHF", "瑞士法郎"),
    "CNY": ("CN¥", "人民币"), "JPY": ("¥", "日元"), "HKD": ("HK$", "港元"),
}
# scale suffix -> (en suffix, it word, zh (word, shift))
STEPS = {
    "": ("", "", ("", 0)), "_K": ("K", "mila", ("万", -1)), "_M": ("M", "Mln", ("亿", -2)),
    "_B": ("B", "Mld", ("亿", 1)), "_BN": ("B", "Mld", ("亿", 1)),
}


def currency_forms(code: str) -> dict[str, UnitForm] | None:
    """EUR_M -> en "€{value}M", it "{value} Mln €", zh "{value}亿欧元" (shift -2); None when
    `code` is not a built-in currency unit (EUR_K_PER_FTE is a rate, not a currency)."""
    kind = BUILT_IN.get(code)
    if kind is None or not kind.dimension.startswith("currency:") or "/" in kind.dimension:
        return None
    currency = kind.dimension.removeprefix("currency:")
    if currency not in CURRENCIES or not code.startswith(currency):
        return None
    symbol, zh_name = CURRENCIES[currency]
    en, it, (zh, shift) = STEPS[code.removeprefix(currency)]
    en_form = f"{symbol} {{value}}{en}" if symbol.isalpha() else f"{symbol}{{value}}{en}"
    return {"en": UnitForm(en_form),
            "it": UnitForm(f"{{value}} {(it + ' ') if it else ''}{symbol}"),
            "zh": UnitForm(f"{{value}}{zh}{zh_name}", shift)}


def builtin_form(code: str, language: str) -> UnitForm | None:
    """The form a well-known unit reads in without a glossary form; None for any other."""
    forms = currency_forms(code)
    if forms is not None:
        return forms.get(language, forms["en"])
    kind = BUILT_IN.get(code)
    if kind is not None and kind.dimension == RATIO and code == "PCT":
        return UnitForm("{value}%")
    if code == "FTE":
        return UnitForm("{value} FTE")
    return None


def has_display(code: str, declared: dict[str, dict[str, UnitForm]]) -> bool:
    """Whether a reader sees `code` in words: a glossary form, or a built-in one."""
    return bool(declared.get(code)) or builtin_form(code, LANGUAGES[0]) is not None


def readable_code(code: str) -> str:
    """The last resort for an undescribed unit: "K_ORDERS" -> "k orders", never the code."""
    return code.replace("_", " ").lower()
