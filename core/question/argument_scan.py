"""What the argument extractor finds, and the scan its rules run on: an extracted value
(`Item`, with how it binds: relative, canonical or literal), all of one request's values
(`Arguments`), the text with what earlier rules claimed blanked out (`Scan`), and a rule (hint
words, a pattern compiled on first use, a maker). The rules themselves are
core.question.arguments and core.question.time_arguments.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from enum import StrEnum
from typing import Any, Generic, NamedTuple, TypeVar

from core.contracts.types import Period
from core.question.period_atoms import chinese_number

__all__ = [
    "AP",
    "DIGITS",
    "KINDS",
    "LAT",
    "NUM",
    "NUMBER_WORDS",
    "ZHNUM",
    "ZH_NUM",
    "Arguments",
    "Binding",
    "Item",
    "Make",
    "Rule",
    "Scan",
    "compiled",
    "const_item",
    "latin_word",
    "literal_item",
    "make_rule",
    "read_number",
    "run_rules",
    "trim",
]

T = TypeVar("T")


class Binding(StrEnum):
    RELATIVE = "relative"  # resolved against the reference date: a cacheable slot
    CANONICAL = "canonical"  # from a closed vocabulary, re-extracted per request
    LITERAL = "literal"  # copied from the text: makes a plan query-specific


@dataclass(frozen=True)
class Item(Generic[T]):
    """One extracted value, where it was in the text, and how it binds."""

    value: T
    raw: str
    start: int
    end: int
    binding: Binding
    key: str = ""  # a relative value before resolution: "tomorrow", "today-3", "last_7_days"

    @property
    def relative(self) -> bool:
        return self.binding is Binding.RELATIVE

    @property
    def literal(self) -> bool:
        return self.binding is Binding.LITERAL


@dataclass(frozen=True)
class Arguments:
    """Everything the extractor found in one request, one typed list per kind of value."""

    urls: tuple[Item[str], ...] = ()
    emails: tuple[Item[str], ...] = ()
    paths: tuple[Item[str], ...] = ()
    dates: tuple[Item[str], ...] = ()  # ISO dates
    # "last_7_days", "this_week": see core.question.time_arguments.resolve_time_window
    time_windows: tuple[Item[str], ...] = ()
    counts: tuple[Item[int], ...] = ()  # "top 7", "at most 20"
    periods: tuple[Item[Period], ...] = ()
    invalid_periods: tuple[Item[str], ...] = ()  # looked like a period, was not one: "Q5 2024"
    extensions: tuple[Item[str], ...] = ()  # "*.pdf"
    numbers: tuple[Item[Decimal], ...] = ()

    def items(self) -> list[Item[Any]]:
        """Every item of every kind, in order of appearance."""
        everything = [i for kind in KINDS for i in getattr(self, kind)]
        return sorted(everything, key=lambda i: (i.start, i.end))

    @property
    def has_literals(self) -> bool:
        return any(i.literal for kind in KINDS for i in getattr(self, kind))

    def literal_values(self) -> tuple[str, ...]:
        """The literal values as text, in order of appearance: what makes a plan query-specific."""
        return tuple(str(i.value) for i in self.items() if i.literal)


KINDS = (
    "urls", "emails", "paths", "dates", "time_windows", "counts", "periods", "invalid_periods",
    "extensions", "numbers",
)  # fmt: skip

# --------------------------------------------------------------------------- machinery

LAT = "0-9A-Za-z\u00c0-\u024f"
AP = "['’]"
ZHNUM = "零〇一二两三四五六七八九十"
DIGITS = tuple("0123456789")


def latin_word(pattern: str) -> str:
    """A Latin phrase that must not touch other letters or digits."""
    return rf"(?<![{LAT}])(?:{pattern})(?![{LAT}])"


@dataclass
class Scan:
    """The text being read, with what earlier rules claimed blanked out."""

    text: str
    reference: date
    fiscal_year_end: str
    masked: str = ""
    lowered: str = ""
    found: dict[str, list[Item[Any]]] = field(default_factory=dict)
    claimed: list[tuple[int, int]] = field(default_factory=list)  # spans earlier rules took

    def __post_init__(self) -> None:
        self.masked, self.lowered = self.text, self.text.lower()

    def item(self, value: Any, start: int, end: int, binding: Binding, key: str = "") -> Item[Any]:
        return Item(value, self.text[start:end], start, end, binding, key)

    def add(self, kind: str, items: list[Item[Any]]) -> None:
        """Record items and blank their spans (one rebuild of the text however many there are).

        A span blanked is spaces, so a later rule can match across it ("LAST ~0" once "~" is
        claimed reads "LAST  0"): an item reaching into text an earlier rule claimed is
        dropped, never a second claim on the same characters."""
        items = [it for it in items if not any(
            it.start < end and start < it.end for start, end in self.claimed)]
        if not items:
            return
        self.claimed += [(it.start, it.end) for it in items]
        self.found.setdefault(kind, []).extend(items)
        pieces, last = [], 0
        for it in sorted(items, key=lambda i: i.start):
            pieces += [self.masked[last : it.start], " " * (it.end - it.start)]
            last = it.end
        pieces.append(self.masked[last:])
        self.masked = "".join(pieces)


# Turns a match into an item, or None to leave the text to later rules.
Make = Callable[[re.Match[str], Scan], Item[Any] | None]


class Rule(NamedTuple):
    hints: tuple[str, ...]  # the lowercased text must contain one of these, or the rule is skipped
    pattern: str
    make: Make


def make_rule(hints: str | tuple[str, ...], pattern: str, make: Make) -> Rule:
    words = tuple(hints.split()) if isinstance(hints, str) else hints
    return Rule(words, pattern, make)


@functools.cache
def compiled(pattern: str) -> re.Pattern[str]:
    """Rules compile on first use: most questions need few of them, and compiling all of them
    at import would cost every one-shot `ricorda ask` ~15 ms."""
    return re.compile(pattern, re.IGNORECASE)


def run_rules(scan: Scan, kind: str, rules: list[Rule]) -> None:
    for rule in rules:
        if any(h in scan.lowered for h in rule.hints):
            made = (rule.make(m, scan) for m in compiled(rule.pattern).finditer(scan.masked))
            scan.add(kind, [item for item in made if item is not None])


def trim(raw: str) -> str:
    """Drop sentence punctuation glued to the end of a URL or path; keep balanced brackets."""
    end, unmatched = len(raw), raw.count(")") - raw.count("(")
    while end and raw[end - 1] in ".,;:!?'\")]}>":
        if raw[end - 1] == ")":
            if unmatched <= 0:
                break
            unmatched -= 1
        end -= 1
    return raw[:end]


def literal_item(value: Callable[[str], str | None] = lambda raw: raw) -> Make:
    """The matched text itself (trimmed, optionally rewritten or refused by `value`)."""

    def make(m: re.Match[str], scan: Scan) -> Item[Any] | None:
        raw = trim(m.group())
        v = value(raw) if raw else None
        return None if v is None else scan.item(v, m.start(), m.start() + len(raw), Binding.LITERAL)

    return make


def const_item(value: Any, group: str | int = 0) -> Make:
    """A fixed literal value over the span of `group`."""

    def make(m: re.Match[str], scan: Scan) -> Item[Any] | None:
        return scan.item(value, *m.span(group), Binding.LITERAL)

    return make


NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
    "twenty-four": 24, "thirty": 30, "fifty": 50, "hundred": 100,
    "uno": 1, "una": 1, "un": 1, "due": 2, "tre": 3, "quattro": 4, "cinque": 5, "sei": 6,
    "sette": 7, "otto": 8, "nove": 9, "dieci": 10, "undici": 11, "dodici": 12, "quindici": 15,
    "venti": 20, "ventiquattro": 24, "trenta": 30, "cinquanta": 50, "cento": 100,
}  # fmt: skip
NUM = rf"\d{{1,6}}(?!\d)|(?:{'|'.join(sorted(NUMBER_WORDS, key=len, reverse=True))})(?![{LAT}])"
ZH_NUM = rf"\d{{1,6}}(?!\d)|[{ZHNUM}]{{1,3}}"


def read_number(text: str) -> int | None:
    text = text.strip().lower()
    if text.isdigit():
        return int(text)
    return NUMBER_WORDS.get(text, chinese_number(text))
