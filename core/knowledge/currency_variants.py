"""A metric held in another currency by some units: "Revenue in CNY" beside "Revenue" (USD).

A unit that reports in its own currency (Meridian China in CNY beside a USD group) is loaded
as a metric of its own, named as the metric with the currency ("Revenue in CNY", "RMB
revenue", "人民币营收", docs/own-data.md). This module recognises such a metric from its names
alone, so "China revenue FY2026" finds the CNY figure when the unit has no USD one. The figure
is shown in its own currency under its own label; it is never converted, and never added to,
ranked with or divided by figures in another currency (core.figures.aggregate.one_unit).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from core.knowledge.comparable import squash

if TYPE_CHECKING:
    from core.knowledge.glossary import Glossary

# the words a currency is written with in a metric's name, besides its ISO code
_ALIASES = {
    "CNY": ("rmb", "yuan", "renminbi", "人民币", "元人民币", "cn¥"),
    "USD": ("us$", "dollars", "dollar", "美元", "$"),
    "EUR": ("euro", "euros", "欧元", "€"),
    "GBP": ("pounds", "sterling", "英镑", "£"),
    "CHF": ("swiss francs", "瑞士法郎"),
    "JPY": ("yen", "日元"),
    "HKD": ("hk$", "港元", "港币"),
    "AUD": ("a$", "澳元"),
}
_LINKS = re.compile(r"(?<!\w)(?:in|di|in\s+valuta|at)(?!\w)|[()\[\]（）,，:：-]")


def currency_of_unit(glossary: Glossary, unit: str) -> str | None:
    """"CNY" for CNY_M; None for a unit that is not an amount of one currency."""
    kind = glossary.unit_kinds.get(unit)
    if kind is None or "/" in kind.dimension or not kind.dimension.startswith("currency:"):
        return None
    return kind.dimension.removeprefix("currency:")


def other_currency(glossary: Glossary, unit: str, metric_unit: str) -> bool:
    """`unit` is an amount in another currency than `metric_unit` (CNY_M beside USD_M): a
    unit reporting in its own currency, kept as written (core.knowledge.unit_kinds)."""
    a, b = currency_of_unit(glossary, unit), currency_of_unit(glossary, metric_unit)
    return a is not None and b is not None and a != b


def _without_currency(name: str, currency: str) -> str:
    """The name with its currency's words taken out, squashed: "Revenue (CNY)" -> "revenue"."""
    text = name.casefold()
    for word in sorted((currency.casefold(), *_ALIASES.get(currency, ())), key=len,
                       reverse=True):
        if word.isascii() and word.isalpha():
            text = re.sub(rf"(?<!\w){re.escape(word)}(?!\w)", " ", text)
        else:
            text = text.replace(word, " ")
    return squash(_LINKS.sub(" ", text))


def currency_variants(glossary: Glossary) -> dict[str, tuple[str, ...]]:
    """Each metric -> the metrics holding the same figure in another currency, found by name:
    a metric in currency C one of whose names, without C's words, is a name of a metric in
    another currency ("Revenue in CNY" -> "Revenue"). Most glossaries: empty."""
    money = {code: c for code, term in glossary.metrics.items()
             if (c := currency_of_unit(glossary, term.unit)) is not None}
    plain = {code: {squash(n) for n in (*glossary.metrics[code].names, code)}
             for code in money}
    out: dict[str, list[str]] = {}
    for code, currency in money.items():
        term = glossary.metrics[code]
        bare = {_without_currency(n, currency) for n in (*term.names, code.replace("_", " "))}
        bare.discard("")
        for base, base_currency in money.items():
            if base != code and base_currency != currency and bare & plain[base] - {
                    squash(n) for n in term.names}:
                out.setdefault(base, []).append(code)
    return {base: tuple(codes) for base, codes in out.items()}
