"""The words a currency unit reads with when the glossary gives it no display form
(core.knowledge.unit_display): its symbol, CLDR's in English (CNY is "CN¥", to tell it from the
yen), and the scale word each language writes ("€560.4M", "560,4 Mln €", "5.604亿欧元")."""

from __future__ import annotations

# currency code -> (en/it symbol, zh name)
CURRENCIES = {
    "EUR": ("€", "欧元"), "USD": ("$", "美元"), "GBP": ("£", "英镑"), "CHF": ("CHF", "瑞士法郎"),
    "CNY": ("CN¥", "人民币"), "JPY": ("¥", "日元"), "HKD": ("HK$", "港元"),
}
# scale suffix -> (en suffix, it word, zh word, zh shift: 万 and 亿 count in 10^4 and 10^8)
STEPS = {
    "": ("", "", "", 0), "_K": ("K", "mila", "万", -1), "_M": ("M", "Mln", "亿", -2),
    "_B": ("B", "Mld", "亿", 1), "_BN": ("B", "Mld", "亿", 1),
}


def currency_forms(currency: str, step: str) -> list[tuple[str, str, int]]:
    """(language, format, shift) of a currency at a scale step: EUR, _M -> "€{value}M" ..."""
    symbol, zh_name = CURRENCIES[currency]
    en, it, zh, shift = STEPS[step]
    en_form = f"{symbol} {{value}}{en}" if symbol.isalpha() else f"{symbol}{{value}}{en}"
    return [("en", en_form, 0), ("it", f"{{value}} {(it + ' ') if it else ''}{symbol}", 0),
            ("zh", f"{{value}}{zh}{zh_name}", shift)]
