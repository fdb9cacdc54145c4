"""Chart and `tables[].series` values in the unit their axis label reads.

A table's unit label is the unit as the reader writes it without a number ("€M", "M€",
"亿欧元"); a language's form may move the decimal point (560.4 €M reads "5.604亿欧元"). A
plotted value is moved the same way, so a Chinese chart labelled 亿欧元 plots 5.604, never 560.4.
The move is read from the form itself (how a power of ten is shown), so a form given by the
glossary and one the units module supplies agree.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

_PROBE = 12  # 10^12 shows as whole digits under any shift the glossary allows (|shift| <= 12)


def display_shift(glossary: Any, unit: str, language: str) -> int:
    """The power of ten `unit`'s form in `language` moves a value by (0 when it does not)."""
    text = str(glossary.show_value(Decimal(10) ** _PROBE, unit, language))
    digits = re.sub(r"\D", "", text.split(unit)[0] if unit and unit in text else text)
    if not digits.startswith("1") or set(digits[1:]) - {"0"}:
        return 0  # a form that does not show the number plainly: values as stored
    return len(digits) - 1 - _PROBE


def plotted(glossary: Any, value: Decimal | None, unit: str, language: str) -> float | None:
    """`value` (in `unit`) as drawn on an axis labelled in `language`'s form of `unit`."""
    if value is None:
        return None
    return float(value.scaleb(display_shift(glossary, unit, language)))
