"""Which withheld figures a passage of text states, in any of the three languages' forms.

A public document that writes the group's revenue gives away what the disclosure policy
withholds: with the public units' figures beside it, the difference is the restricted unit's.
A figure is written many ways: "1,043.8", "1.043,8", "1043.8", "€1,043.8M", "EUR 1,043.8
million", "1.043,8 milioni", "10.438亿". Each number in the text is read in every way it could
be meant (a single "," or "." before three digits is a group or a decimal separator), times the
scale word after it (million, Mln, 亿, 万 ...), and compared exactly with the figure in its unit's
scale (core.knowledge.unit_kinds). Not covered: a figure written in words, or rounded ("€1.0
billion"): documented in docs/disclosure.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from core.contracts.types import Fact
from core.knowledge.unit_kinds import UnitKind

# a number: grouped ("1,043.8", "1.043,8") or plain ("1043.8", "1043,8"), then a scale word
_NUMBER = re.compile(
    r"(?<![\d.,])(\d{1,3}(?:[.,\u00a0\u202f ]\d{3})+(?:[.,]\d+)?|\d+(?:[.,]\d+)?)(?!\d)"
    r"(?:\s*(十亿|百万|亿|万|千|billions?|bn|millions?|mln|mio|mn|thousands?|miliardi|"
    r"miliardo|milioni|milione|mld|mila|[mkb](?![a-z])))?",
    re.IGNORECASE,
)
_SCALE = {
    "十亿": 9, "百万": 6, "亿": 8, "万": 4, "千": 3,
    "billion": 9, "billions": 9, "bn": 9, "b": 9, "miliardi": 9, "miliardo": 9, "mld": 9,
    "million": 6, "millions": 6, "mln": 6, "mio": 6, "mn": 6, "m": 6, "milioni": 6,
    "milione": 6, "thousand": 3, "thousands": 3, "k": 3, "mila": 3,
}
_MIN_BARE_DIGITS = 3  # "12 stores" is no evidence of a figure of 12; "1,043.8" is


@dataclass(frozen=True)
class StatedFigure:
    """A withheld figure a passage states, and the text it states it with."""

    fact: Fact
    written: str


def readings(token: str) -> set[Decimal]:
    """Every number `token` can mean: "1,043" is 1043 or 1.043; "1.043,8" is 1043.8."""
    token = re.sub(r"[\u00a0\u202f ]", ",", token)
    seps = [c for c in token if c in ".,"]
    options: list[str] = []
    if not seps:
        options = [token]
    elif len(set(seps)) == 2:
        decimal = token[max(token.rfind("."), token.rfind(","))]
        group = "," if decimal == "." else "."
        options = [token.replace(group, "").replace(decimal, ".")]
    elif len(seps) > 1:  # one separator, repeated: grouping
        options = [token.replace(seps[0], "")]
    else:
        head, tail = token.split(seps[0])
        options = [f"{head}.{tail}"]
        if len(tail) == 3:
            options.append(head + tail)
    out = set()
    for text in options:
        try:
            out.add(Decimal(text))
        except InvalidOperation:
            continue
    return out


def stated_figures(text: str, figures: Iterable[Fact],
                   kinds: Mapping[str, UnitKind]) -> list[StatedFigure]:
    """The figures `text` states (each once, in the order given)."""
    wanted: dict[Decimal, list[Fact]] = {}  # absolute value (unit scale applied) -> facts
    plain: dict[Decimal, list[Fact]] = {}  # value as stored, for a number with no scale word
    for f in figures:
        kind = kinds.get(f.unit)
        scale = kind.scale if kind is not None else Decimal(1)
        wanted.setdefault((f.value * scale).normalize(), []).append(f)
        plain.setdefault(f.value.normalize(), []).append(f)
    if not wanted:
        return []
    found: dict[Fact, str] = {}
    for match in _NUMBER.finditer(text):
        token, word = match.group(1), match.group(2)
        digits = sum(c.isdigit() for c in token)
        for number in readings(token):
            if word:
                hits = wanted.get((number.scaleb(_SCALE[word.lower()])).normalize(), [])
                hits = hits + plain.get(number.normalize(), []) if word.lower() in "mk" else hits
            else:
                hits = plain.get(number.normalize(), []) if digits >= _MIN_BARE_DIGITS else []
            for f in hits:
                found.setdefault(f, " ".join(match.group(0).split()))
    return [StatedFigure(f, w) for f, w in found.items()]
