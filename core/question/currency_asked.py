"""The currency a question asks its figures in ("in US dollars", "in dollari", "以百万美元计").

Never a conversion: the fact table holds each figure in the currency it was reported in, and
the bot has no exchange rate it could cite. When the question asks for another currency than
a figure's, the figure is still given in its own currency and the answer says so plainly
(kind `currency` in `ask --json` notices), so nobody reads CN¥ as US$.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from core.catalog.lookup import say
from core.contracts.types import Notice
from core.knowledge.unit_kinds import UnitKind

CURRENCY = "currency"  # the notice kind in ask --json

_DOLLARS = frozenset({"USD", "AUD", "HKD"})
# currency words, longest first within each code; a bare "dollars" names any dollar
_WORDS: tuple[tuple[frozenset[str], str], ...] = (
    (frozenset({"USD"}), r"usd|us\$|u\.s\.\s*dollars?|us\s+dollars?|american\s+dollars?"
                         r"|dollari\s+(?:statunitensi|americani|usa)|美元|美金"),
    (frozenset({"AUD"}), r"aud|a\$|australian\s+dollars?|dollari\s+australiani|澳元"),
    (frozenset({"HKD"}), r"hkd|hk\$|hong\s+kong\s+dollars?|港元|港币"),
    (frozenset({"EUR"}), r"eur|euros?|€|欧元"),
    (frozenset({"CNY"}), r"cny|rmb|yuan|renminbi|cn¥|人民币"),
    (frozenset({"GBP"}), r"gbp|pounds?(?:\s+sterling)?|sterlin[ae]|£|英镑"),
    (frozenset({"CHF"}), r"chf|swiss\s+francs?|franchi\s+svizzeri|瑞士法郎"),
    (frozenset({"JPY"}), r"jpy|yen|日元"),
    (_DOLLARS, r"dollars?|dollari|dollaro|\$"),
)
_NAMES = "|".join(f"(?P<c{i}>{words})" for i, (_, words) in enumerate(_WORDS))
_SCALE = (r"(?:(?:millions?|thousands?|billions?|milioni|migliaia|miliardi|mila|mln|mn|bn"
          r"|[kmb])\s+(?:of\s+|di\s+)?)?")
_LATIN = re.compile(
    r"(?<!\w)(?:in|into|to|expressed\s+in|espress[oi]\s+in|in\s+termini\s+di"
    r"|convert(?:ed|ito|iti)?\s+(?:in|to|into))\s+(?:the\s+)?" + _SCALE
    + r"(?:" + _NAMES + r")"
    + r"(?:\s*(?:millions?|thousands?|billions?|milioni|migliaia|miliardi|mln|mn|bn|[kmb]))?"
    + r"(?![\w$])",
    re.IGNORECASE,
)
_ZH = re.compile(
    r"(?:以|按|用|换算成|换算为|折合|折算成|单位[:：]?\s*|[（(])\s*(?:亿|万|百万|千|十亿)?\s*(?:"
    + _NAMES + r")")


# letters one of which a question naming a currency contains (the common case: no regex scan)
_HINTS = ("usd", "us$", "dollar", "dollari", "eur", "€", "$", "£", "¥", "cny", "rmb", "yuan",
          "renminbi", "aud", "hkd", "gbp", "pound", "sterlin", "chf", "franc", "jpy", "yen",
          "美元", "美金", "欧元", "人民币", "澳元", "港元", "港币", "英镑", "瑞士法郎", "日元")


@dataclass(frozen=True)
class AskedCurrency:
    """The currencies the question's words name ("dollars": any dollar) and the words."""

    codes: frozenset[str]
    raw: str
    start: int = 0  # where the words are in the text asked about
    end: int = 0


def asked_currency(text: str) -> AskedCurrency | None:
    """The currency the question asks its figures in, or None (most questions)."""
    folded = text.casefold()
    if not any(hint in folded for hint in _HINTS):
        return None
    m = _LATIN.search(text) or _ZH.search(text)
    if m is None:
        return None
    index = next(int(k[1:]) for k, v in m.groupdict().items() if v)
    return AskedCurrency(_WORDS[index][0], m.group(0).strip(), m.start(), m.end())


def currency_of(unit: str, kinds: Mapping[str, UnitKind]) -> str | None:
    """The currency a unit counts in (EUR_M: "EUR"), or None (a count, a ratio, EUR per FTE)."""
    kind = kinds.get(unit)
    if kind is None or "/" in kind.dimension or not kind.dimension.startswith("currency:"):
        return None
    return kind.dimension.removeprefix("currency:")


def currency_notice(asked: AskedCurrency | None, units: Iterable[str],
                    kinds: Mapping[str, UnitKind], language: str) -> Notice | None:
    """"Figures are in CNY, as the fact table holds them: I never convert between
    currencies." when a figure shown is in a currency the question did not ask for."""
    if asked is None:
        return None
    held = sorted({c for u in units if (c := currency_of(u, kinds)) is not None})
    other = [c for c in held if c not in asked.codes]
    if not other:
        return None
    return Notice(say("currency_not_converted", language, currencies=", ".join(held)), CURRENCY)
