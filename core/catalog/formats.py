"""Numbers and dates in the reader's convention, from the CLDR snapshot (core.catalog.cldr):
1,320.5 / 1.320,5; "Jun 15, 2026" / "15 giu 2026" / "2026年6月15日".

Exact digits, never rounded by a float: the value is written as loaded
(core.contracts.types), then its symbols are the language's. Where the glossary's unit display
forms decide how a figure reads
(core.knowledge.units: "€128.9M", "128,9 Mln €"), they still do; these are the numbers inside.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal, localcontext
from functools import lru_cache

from core.catalog.cldr import CLDR, LocaleData
from core.contracts.types import format_decimal

__all__ = ["date", "month_name", "number", "percent"]

_FIELD = re.compile(r"'([^']*)'|(y+|M+|L+|d+)|([^'yMLd]+)")


def _locale(language: str) -> LocaleData:
    return CLDR.get(language) or CLDR["en"]


def number(value: Decimal, language: str) -> str:
    """Exact digits with the language's decimal and group symbols."""
    text = format_decimal(value)  # "1,320.5"
    return text.translate(_symbols(language))


@lru_cache(maxsize=16)
def _symbols(language: str) -> dict[int, str]:
    """The language's group and decimal symbols as a translation table (empty for English):
    every figure of a table is written through it."""
    cldr = _locale(language)
    return {k: v for k, v in ((ord(","), cldr["group"]), (ord("."), cldr["decimal"]))
            if chr(k) != v}


def percent(value: Decimal, language: str) -> str:
    """A change in percent, one decimal, signed: "+4.5%", "+4,5%"."""
    sign = "+" if value > 0 else ""
    with localcontext() as ctx:  # a huge change (from a tiny base) still has one decimal
        ctx.prec = max(ctx.prec, value.adjusted() + 3)
        rounded = value.quantize(Decimal("0.1"))
    return sign + number(rounded, language) + _locale(language)["percent"]


def month_name(month: int, language: str, width: str = "abbreviated") -> str:
    """"Jun", "giu", "6月" (abbreviated); "June", "giugno", "六月" (wide)."""
    return _locale(language)["months"][width][month - 1]


def date(day: dt.date, language: str, width: str = "medium") -> str:
    """The day by the language's CLDR date pattern (medium or long)."""
    pattern = _locale(language)["date"][width]
    out: list[str] = []
    for quoted, field, literal in _FIELD.findall(pattern):
        if field:
            out.append(_field(field, day, language))
        else:
            out.append(literal if literal else (quoted or "'"))
    return "".join(out)


def _field(field: str, day: dt.date, language: str) -> str:
    letter, size = field[0], len(field)
    if letter == "y":
        return f"{day.year % 100:02d}" if size == 2 else str(day.year).zfill(size)
    if letter == "d":
        return str(day.day).zfill(size)
    if size >= 3:  # M / L: a month name
        return month_name(day.month, language, "abbreviated" if size == 3 else "wide")
    return str(day.month).zfill(size)
