"""The deterministic argument extractor: the values a plan's slots take, found by rules alone.

A cached plan is replayed on later requests, so every extracted value says how it binds:

- RELATIVE values ("today", "last 7 days", "last year") are resolved against the reference date;
  the same words on another day are the same slot, so a plan using them stays cacheable.
- CANONICAL values come from a closed vocabulary ("*.pdf", FY2024) and are re-extracted from each
  request like any other slot.
- LITERAL values are copied from the text (a URL, an e-mail, a path, an absolute date, a count or
  a number): a plan that uses one is specific to its query (docs/fast-path.md, the cascade).

Extraction runs in stages, most specific first (URLs before paths, dates before numbers, "day
after tomorrow" before "tomorrow"); each rule blanks what it claimed, so nothing after it
re-reads that text: a date inside a URL belongs to the URL, "top 7" is a count and not also a
number. Each rule names a few words one of which the text must contain, so a question pays only
for the rules that can apply; patterns are anchored at word starts so matching stays linear.
"""

from __future__ import annotations

import calendar
import functools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal
from enum import StrEnum
from typing import Any, Generic, NamedTuple, TypeVar

from core.contracts.types import Period
from core.question.period_atoms import chinese_number, month_number
from core.question.period_grammar import MONTH_NAMES
from core.question.periods import find_periods

__all__ = [
    "Arguments",
    "Binding",
    "Item",
    "extract_arguments",
    "resolve_relative_date",
    "resolve_time_window",
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
    time_windows: tuple[Item[str], ...] = ()  # "last_7_days", "this_week": see resolve_time_window
    counts: tuple[Item[int], ...] = ()  # "top 7", "at most 20"
    periods: tuple[Item[Period], ...] = ()
    invalid_periods: tuple[Item[str], ...] = ()  # looked like a period, was not one: "Q5 2024"
    extensions: tuple[Item[str], ...] = ()  # "*.pdf"
    numbers: tuple[Item[Decimal], ...] = ()

    def items(self) -> list[Item[Any]]:
        """Every item of every kind, in order of appearance."""
        everything = [i for kind in _KINDS for i in getattr(self, kind)]
        return sorted(everything, key=lambda i: (i.start, i.end))

    @property
    def has_literals(self) -> bool:
        return any(i.literal for kind in _KINDS for i in getattr(self, kind))

    def literal_values(self) -> tuple[str, ...]:
        """The literal values as text, in order of appearance: what makes a plan query-specific."""
        return tuple(str(i.value) for i in self.items() if i.literal)


_KINDS = (
    "urls", "emails", "paths", "dates", "time_windows", "counts", "periods", "invalid_periods",
    "extensions", "numbers",
)  # fmt: skip

# --------------------------------------------------------------------------- machinery

_LAT = "0-9A-Za-z\u00c0-\u024f"
_AP = "['’]"
_ZHNUM = "零〇一二两三四五六七八九十"
_DIGITS = tuple("0123456789")


def _w(pattern: str) -> str:
    """A Latin phrase that must not touch other letters or digits."""
    return rf"(?<![{_LAT}])(?:{pattern})(?![{_LAT}])"


@dataclass
class _Scan:
    """The text being read, with what earlier rules claimed blanked out."""

    text: str
    reference: date
    fiscal_year_end: str
    masked: str = ""
    lowered: str = ""
    found: dict[str, list[Item[Any]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.masked, self.lowered = self.text, self.text.lower()

    def item(self, value: Any, start: int, end: int, binding: Binding, key: str = "") -> Item[Any]:
        return Item(value, self.text[start:end], start, end, binding, key)

    def add(self, kind: str, items: list[Item[Any]]) -> None:
        """Record items and blank their spans (one rebuild of the text however many there are)."""
        if not items:
            return
        self.found.setdefault(kind, []).extend(items)
        pieces, last = [], 0
        for it in sorted(items, key=lambda i: i.start):
            pieces += [self.masked[last : it.start], " " * (it.end - it.start)]
            last = it.end
        pieces.append(self.masked[last:])
        self.masked = "".join(pieces)


# Turns a match into an item, or None to leave the text to later rules.
_Make = Callable[[re.Match[str], _Scan], Item[Any] | None]


class _Rule(NamedTuple):
    hints: tuple[str, ...]  # the lowercased text must contain one of these, or the rule is skipped
    pattern: str
    make: _Make


def _rule(hints: str | tuple[str, ...], pattern: str, make: _Make) -> _Rule:
    words = tuple(hints.split()) if isinstance(hints, str) else hints
    return _Rule(words, pattern, make)


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    """Rules compile on first use: most questions need few of them, and compiling all of them
    at import would cost every one-shot `ricorda ask` ~15 ms."""
    return re.compile(pattern, re.IGNORECASE)


def _run(scan: _Scan, kind: str, rules: list[_Rule]) -> None:
    for rule in rules:
        if any(h in scan.lowered for h in rule.hints):
            made = (rule.make(m, scan) for m in _compiled(rule.pattern).finditer(scan.masked))
            scan.add(kind, [item for item in made if item is not None])


def _trim(raw: str) -> str:
    """Drop sentence punctuation glued to the end of a URL or path; keep balanced brackets."""
    end, unmatched = len(raw), raw.count(")") - raw.count("(")
    while end and raw[end - 1] in ".,;:!?'\")]}>":
        if raw[end - 1] == ")":
            if unmatched <= 0:
                break
            unmatched -= 1
        end -= 1
    return raw[:end]


def _literal(value: Callable[[str], str | None] = lambda raw: raw) -> _Make:
    """The matched text itself (trimmed, optionally rewritten or refused by `value`)."""

    def make(m: re.Match[str], scan: _Scan) -> Item[Any] | None:
        raw = _trim(m.group())
        v = value(raw) if raw else None
        return None if v is None else scan.item(v, m.start(), m.start() + len(raw), Binding.LITERAL)

    return make


def _const(value: Any, group: str | int = 0) -> _Make:
    """A fixed literal value over the span of `group`."""

    def make(m: re.Match[str], scan: _Scan) -> Item[Any] | None:
        return scan.item(value, *m.span(group), Binding.LITERAL)

    return make


_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
    "twenty-four": 24, "thirty": 30, "fifty": 50, "hundred": 100,
    "uno": 1, "una": 1, "un": 1, "due": 2, "tre": 3, "quattro": 4, "cinque": 5, "sei": 6,
    "sette": 7, "otto": 8, "nove": 9, "dieci": 10, "undici": 11, "dodici": 12, "quindici": 15,
    "venti": 20, "ventiquattro": 24, "trenta": 30, "cinquanta": 50, "cento": 100,
}  # fmt: skip
_NUM = rf"\d{{1,6}}(?!\d)|(?:{'|'.join(sorted(_NUMBER_WORDS, key=len, reverse=True))})(?![{_LAT}])"
_ZH_NUM = rf"\d{{1,6}}(?!\d)|[{_ZHNUM}]{{1,3}}"


def _number(text: str) -> int | None:
    text = text.strip().lower()
    if text.isdigit():
        return int(text)
    return _NUMBER_WORDS.get(text, chinese_number(text))


# --------------------------------------------------------------------------- urls, e-mails, paths

_URL_RULES = [
    _rule(("://", "www."),
          r"(?:(?:https?|ftp)://|(?<![\w@.])www\.)[^\s<>\"'，。；！？、（）【】「」《》]+",
          _literal()),
]  # fmt: skip


def _email(raw: str) -> str | None:
    tld = raw.rsplit(".", 1)[-1]
    return raw if tld.isalpha() and len(tld) >= 2 else None


_EMAIL_RULES = [
    _rule("@", r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+",
          _literal(_email)),
]  # fmt: skip

_PATH_CHAR = r"[A-Za-z0-9_.\-~@%+=\u00c0-\u024f]"
_PATH_RULES = [
    _rule(":\\", r"(?<![A-Za-z0-9])[A-Za-z]:\\[^\s\"'<>|*?，。；]*", _literal()),
    _rule("~", rf"(?<![\w~/])~(?:/{_PATH_CHAR}*)*", _literal(lambda r: "~/" if r == "~" else r)),
    _rule("./", rf"(?<![\w/.])\.\.?/{_PATH_CHAR}*(?:/{_PATH_CHAR}*)*", _literal()),
    # an absolute path needs two slashes ("/var/log", "/tmp/"): "/start" is a chat command
    _rule("/", rf"(?<![\w/.:~\\-])/{_PATH_CHAR}+(?:/{_PATH_CHAR}*)*",
          _literal(lambda r: r if r.count("/") >= 2 else None)),
    # "home" is the home folder only where it reads as a place: "in home", "nella home"
    _rule("home",
          _w(r"(?:in|into|nella|nel|my|mia|from|dalla|della|sotto|under|to|alla|on)\s+"
             r"(?:(?:the|my|mia|la)\s+)?(?P<h>home(?:\s+(?:folder|directory|dir))?)")
          + r"(?!\s+(?:page|screen|office|run|sales))", _const("~/", "h")),
    _rule("home", _w(r"home\s+(?:folder|directory|dir)|cartella\s+home"), _const("~/")),
    _rule("目录 文件夹", "(?:home|主|家)目录|主文件夹", _const("~/")),
]  # fmt: skip

# --------------------------------------------------------------------------- dates


def _date_rule(order: str) -> _Make:
    """An absolute date; `order` says what groups a, b, c hold ("ymd", "dmy", "mdy")."""

    def make(m: re.Match[str], scan: _Scan) -> Item[Any] | None:
        parts = dict(zip(order, (m.group("a"), m.group("b"), m.group("c")), strict=True))
        month = int(parts["m"]) if parts["m"].isdigit() else month_number(parts["m"])
        if month is None:
            return None
        value = _iso(int(parts["y"]), month, int(parts["d"]))
        if value is None and order == "dmy":  # 03/15/2025 cannot be day-first: read it US-style
            value = _iso(int(parts["y"]), int(parts["d"]), month)
        return None if value is None else scan.item(value, *m.span(), Binding.LITERAL)

    return make


def _iso(year: int, month: int, day: int) -> str | None:
    try:
        return date(year, month, day).isoformat()
    except ValueError:
        return None


_DATE_RULES = [
    _rule("-", r"(?<![\d/.-])(?P<a>\d{4})-(?P<b>\d{1,2})-(?P<c>\d{1,2})(?!\d)", _date_rule("ymd")),
    _rule("/ .", r"(?<![\d/.-])(?P<a>\d{4})([/.])(?P<b>\d{1,2})\2(?P<c>\d{1,2})(?![\d/.]\d)",
          _date_rule("ymd")),
    _rule("/ . -", r"(?<![\d/.-])(?P<a>\d{1,2})([/.-])(?P<b>\d{1,2})\2(?P<c>\d{4})(?!\d)",
          _date_rule("dmy")),
    _rule("年", r"(?P<a>\d{4})\s?年\s?(?P<b>\d{1,2})\s?月\s?(?P<c>\d{1,2})\s?[日号]",
          _date_rule("ymd")),
    _rule(_DIGITS, _w(rf"(?P<a>\d{{1,2}})(?:st|nd|rd|th|°|º)?\s{{1,3}}(?:of\s{{1,3}})?"
                      rf"(?P<b>{MONTH_NAMES})\.?,?\s{{1,3}}(?P<c>\d{{4}})"), _date_rule("dmy")),
    _rule(_DIGITS, _w(rf"(?P<a>{MONTH_NAMES})\.?\s{{1,3}}(?P<b>\d{{1,2}})(?:st|nd|rd|th)?,?"
                      rf"\s{{1,3}}(?P<c>\d{{4}})"), _date_rule("mdy")),
]  # fmt: skip

_DAY_KEYS = {0: "today", -1: "yesterday", 1: "tomorrow", 2: "day_after_tomorrow",
             -2: "day_before_yesterday"}  # fmt: skip
_DAY_WORDS = {
    "today": 0, "tonight": 0, "yesterday": -1, "tomorrow": 1, "oggi": 0, "stasera": 0,
    "ieri": -1, "domani": 1, "今天": 0, "今日": 0, "昨天": -1, "昨日": -1, "明天": 1, "明日": 1,
    "后天": 2, "前天": -2, "大后天": 3, "大前天": -3,
}  # fmt: skip
_UNIT_NAMES = {
    "minutes": "minutes minute mins min minuti minuto 分钟",
    "hours": "hours hour hrs hr h ore ora 小时 个小时 钟头",
    "days": "days day giorni giorno gg giornata 天 日",
    "weeks": "weeks week settimane settimana 周 星期 个星期 礼拜 个礼拜",
    "months": "months month mesi mese 个月 月",
    "years": "years year anni anno 年",
}
_UNIT = {word: unit for unit, words in _UNIT_NAMES.items() for word in words.split()}


def _relative_day(offset: int | None = None) -> _Make:
    """A day `offset` days from the reference; without one, read from the word or from n/u."""

    def make(m: re.Match[str], scan: _Scan) -> Item[Any] | None:
        days = offset
        if days is None and "n" in m.re.groupindex:
            n = 1 if m.group("n").lower() in ("a", "an") else _number(m.group("n"))
            week = _UNIT.get(m.group("u").lower()) == "weeks"
            days = None if n is None else -n * (7 if week else 1)
        elif days is None:
            days = _DAY_WORDS.get(m.group().lower())
        if days is None:
            return None
        value = (scan.reference + timedelta(days=days)).isoformat()
        key = _DAY_KEYS.get(days, f"today{days:+d}")
        return scan.item(value, *m.span(), Binding.RELATIVE, key)

    return make


_RELATIVE_DATE_RULES = [  # longest first: "day after tomorrow" before "tomorrow"
    _rule("tomorrow domani", _w(r"(?:the\s+)?day\s+after\s+tomorrow|dopo\s?domani"),
          _relative_day(2)),
    _rule("yesterday ieri",
          _w(rf"(?:the\s+)?day\s+before\s+yesterday|(?:l{_AP}\s?)?altro\s?ieri|avantieri"),
          _relative_day(-2)),
    _rule("ago", _w(rf"(?P<n>{_NUM}|an?)\s+(?P<u>days?|weeks?)\s+ago"), _relative_day()),
    _rule(" fa", _w(rf"(?P<n>{_NUM})\s+(?P<u>giorni|giorno|settimane|settimana)\s+fa"),
          _relative_day()),
    _rule("前", rf"(?P<n>{_ZH_NUM})\s?(?P<u>天|日|个星期|星期|周|礼拜)前", _relative_day()),
    _rule("天 日", "大后天|大前天|后天|前天|今天|今日|昨天|昨日|明天|明日", _relative_day()),
    _rule("today tonight yesterday tomorrow oggi stasera ieri domani",
          _w("today|tonight|yesterday|tomorrow|oggi|stasera|ieri|domani"), _relative_day()),
]  # fmt: skip

# --------------------------------------------------------------------------- time windows

_UNIT_EN = "minutes?|mins?|hours?|hrs?|h|days?|weeks?|months?|years?"
_UNIT_IT = "minuti|minuto|ore|ora|h|giorni|giorno|gg|settimane|settimana|mesi|mese|anni|anno"
_UNIT_ZH = "个小时|小时|钟头|分钟|天|日|个星期|星期|个礼拜|礼拜|周|个月|月|年"


def _window(fixed: str | None = None, n: int | None = None) -> _Make:
    """A calendar window ("this_week"), or the last N units read from groups n (unless given) and u.

    Weeks are counted as days, so "last 2 weeks" and "last 14 days" are the same slot value.
    """

    def make(m: re.Match[str], scan: _Scan) -> Item[Any] | None:
        value = fixed
        if value is None:
            count = n if n is not None else _number(m.group("n"))
            unit = _UNIT.get(m.group("u").lower())
            if not count or unit is None:
                return None
            value = f"last_{count * 7}_days" if unit == "weeks" else f"last_{count}_{unit}"
        return scan.item(value, *m.span(), Binding.RELATIVE, value)

    return make


_WINDOW_RULES = [
    _rule("last past previous prior",
          _w(rf"(?:(?:in|during|over|for|within)\s+)?(?:the\s+)?(?:last|past|previous|prior)\s+"
             rf"(?P<n>{_NUM})\s?(?P<u>{_UNIT_EN})"), _window()),
    _rule("ultim passat scors",
          _w(rf"(?:(?:nelle|negli|nei|nell{_AP}|in|durante)\s?)?(?:(?:le|gli|i)\s+)?"
             rf"(?:ultim[ieao]|passat[ieao]|scors[ieao])\s+(?P<n>{_NUM})\s?(?P<u>{_UNIT_IT})"),
          _window()),
    _rule("最近 过去 近 最后", rf"(?:最近|过去|近|最后)的?\s?(?P<n>{_ZH_NUM})\s?(?P<u>{_UNIT_ZH})",
          _window()),
    # "the last week" / "the past month" roll back from today; "last week" is the calendar week
    _rule("last", _w(r"(?:(?:in|during|over|within)\s+)?the\s+last\s+(?P<u>hour|day|week|month)"),
          _window(n=1)),
    _rule("past",
          _w(r"(?:(?:in|during|over|within)\s+)?(?:the\s+)?past\s+(?P<u>hour|day|week|month|year)"),
          _window(n=1)),
    _rule("ultim passat",
          _w(rf"(?:(?:nell{_AP}|nella|in)\s?)?(?:l{_AP}\s?)?(?:ultim[ao]|passat[ao])"
             r"\s+(?P<u>ora|giornata|settimana|mese|anno)"), _window(n=1)),
    _rule("week settimana 周 星期 礼拜",
          _w(r"this\s+week|(?:the\s+)?current\s+week|questa\s+settimana")
          + "|本周|这周|这个星期|本星期|这星期|这个礼拜|本礼拜", _window("this_week")),
    _rule("week settimana 周 星期 礼拜",
          _w(r"(?:last|previous|prior)\s+week|(?:la\s+)?settimana\s+(?:scorsa|passata)|"
             r"(?:la\s+)?scorsa\s+settimana") + "|上个星期|上星期|上个礼拜|上礼拜|上一周|上周",
          _window("last_week")),
    _rule("month mese 月", _w(r"this\s+month|(?:the\s+)?current\s+month|questo\s+mese")
          + "|本月|这个月|当月", _window("this_month")),
    _rule("month mese 月",
          _w(r"(?:last|previous|prior)\s+month|(?:il\s+)?mese\s+(?:scorso|passato)|"
             r"(?:lo\s+)?scorso\s+mese") + "|上个月|上一个月|上月", _window("last_month")),
]  # fmt: skip

# --------------------------------------------------------------------------- counts

_YEARS = range(1990, 2101)


def _count(weak: bool = False) -> _Make:
    """A limit ("top 7", "at most 20"). Weak cues never take a year: "up to 2024" is a period."""

    def make(m: re.Match[str], scan: _Scan) -> Item[Any] | None:
        n = _number(m.group("n"))
        if n is None or (weak and n in _YEARS):
            return None
        return scan.item(n, *m.span(), Binding.LITERAL)

    return make


_COUNT_RULES = [
    _rule("top", _w(rf"(?:the\s+)?top[\s-]?(?P<n>{_NUM})"), _count()),
    _rule("most more max",
          _w(rf"(?:at\s+most|no\s+more\s+than|max(?:imum)?\.?(?:\s+of)?)\s*(?P<n>{_NUM})"),
          _count()),
    _rule("massimo max più", _w(rf"(?:(?:al\s+)?massimo|max|non\s+più\s+di)\s+(?P<n>{_NUM})"),
          _count()),
    _rule("prim", _w(rf"(?:(?:i|le|gli)\s+)?prim[ie]\s+(?P<n>{_NUM})"), _count()),
    # 前10 is "top 10", but 前3个月 / 前三季度 are spans of time, not limits
    _rule("前", rf"前\s?(?P<n>{_ZH_NUM})(?!\s?个?\s?(?:季度|季|月|年|天|日|周|星期|小时|分钟))",
          _count()),
    _rule("最多 至多 不超过", rf"(?:最多|至多|不超过)\s?(?P<n>{_ZH_NUM})", _count()),
    _rule("最近 最新", rf"(?:最近|最新)\s?(?P<n>{_ZH_NUM})\s?(?=[个条份篇张])", _count()),
    _rule("up to fino limit", _w(rf"(?:up\s+to|fino\s+a|limit(?:ed)?\s+to|limit)\s+(?P<n>{_NUM})"),
          _count(weak=True)),
    _rule("first last latest newest recent",
          _w(rf"(?:the\s+)?(?:first|last|latest|newest|most\s+recent)\s+(?P<n>{_NUM})"),
          _count(weak=True)),
    _rule("ultim", _w(rf"(?:(?:gli|le|i)\s+)?ultim[ie]\s+(?P<n>{_NUM})"), _count(weak=True)),
]  # fmt: skip

# --------------------------------------------------------------------------- file extensions

_FORMATS = {
    "pdf": "pdf", "pdfs": "pdf", "word": "docx", "docx": "docx", "doc": "doc", "excel": "xlsx",
    "xlsx": "xlsx", "xls": "xls", "powerpoint": "pptx", "pptx": "pptx", "ppt": "ppt",
    "csv": "csv", "csvs": "csv", "txt": "txt", "text": "txt", "testo": "txt", "markdown": "md",
    "md": "md", "python": "py", "py": "py", "json": "json", "html": "html", "htm": "html",
    "javascript": "js", "js": "js", "jpg": "jpg", "jpeg": "jpg", "png": "png", "zip": "zip",
    "xml": "xml", "yaml": "yaml", "yml": "yml", "sql": "sql", "log": "log", "java": "java",
}  # fmt: skip
_FORMAT = "|".join(sorted(_FORMATS, key=len, reverse=True))
# formats named alone ("the PDFs"); the others ("word", "python", "text") need a word for file
_STANDALONE = ("pdf", "docx", "xlsx", "pptx", "csv", "json", "jpg", "jpeg", "png")
_FILE_AFTER = r"files?|documents?|docs|sheets?|spreadsheets?|scripts?|reports?|format"
_FILE_BEFORE = r"files?|documenti|documento|documents?|fogli|foglio|script|report|formato|format"


def _extension(fixed: str | None = None) -> _Make:
    def make(m: re.Match[str], scan: _Scan) -> Item[Any] | None:
        ext = fixed or _FORMATS.get(m.group("e").lower())
        return None if ext is None else scan.item(f"*.{ext}", *m.span(), Binding.CANONICAL)

    return make


def _glob(m: re.Match[str], scan: _Scan) -> Item[Any] | None:
    return scan.item(f"*.{m.group('e').lower()}", *m.span(), Binding.CANONICAL)


_EXTENSION_RULES = [
    _rule("*.", r"\*\.(?P<e>[A-Za-z0-9]{1,6})(?![A-Za-z0-9])", _glob),
    _rule(".", rf"(?<![\w*])\.(?P<e>{_FORMAT})(?![A-Za-z0-9])", _extension()),
    _rule("file doc sheet script report format",
          _w(rf"(?P<e>{_FORMAT})\s?(?:{_FILE_AFTER})"), _extension()),
    _rule("文件 文档 表格 脚本 档案 报告",
          rf"(?<![{_LAT}])(?P<e>{_FORMAT})\s?(?:文件|文档|表格|脚本|档案|报告)", _extension()),
    _rule("file doc fogli foglio script report format",
          _w(rf"(?:{_FILE_BEFORE})\s+(?:(?:di|in|del\s+tipo|in\s+formato)\s+)?(?P<e>{_FORMAT})"),
          _extension()),
    _rule("spreadsheet fogli foglio 电子表格",
          _w(r"spreadsheets?|fogli[o]?\s+(?:di\s+calcolo|excel)") + "|电子表格",
          _extension("xlsx")),
    _rule(_STANDALONE, _w(r"(?P<e>pdfs?|docx|xlsx|pptx|csvs?|json|jpe?g|png)"), _extension()),
]  # fmt: skip

# --------------------------------------------------------------------------- numbers

# One separator followed by exactly three digits groups thousands in either convention ("1,320"
# and "1.320" are 1320); otherwise it is the decimal point ("3,5" and "3.5" are 3.5).
_EN_THOUSANDS = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?"
_IT_THOUSANDS = r"\d{1,3}(?:\.\d{3})+(?:,\d+)?"


def _plain_number(m: re.Match[str], scan: _Scan) -> Item[Any] | None:
    digits = m.group("n")
    if m.group("en"):
        text = digits.replace(",", "")
    elif m.group("it"):
        text = digits.replace(".", "").replace(",", ".")
    else:
        text = digits.replace(",", ".")
    value = -Decimal(text) if m.group("sign") else Decimal(text)
    return scan.item(value, *m.span(), Binding.LITERAL)


# a minus sign counts only at the start of a word: "-5" is negative, "2020-2024" is a range
_NUMBER_RULES = [
    _rule(_DIGITS,
          rf"(?P<sign>(?<![^\s(\[])[-−])?(?<![{_LAT}_.,])(?P<n>(?P<en>{_EN_THOUSANDS})"
          rf"|(?P<it>{_IT_THOUSANDS})|\d+(?:[.,]\d+)?)(?![{_LAT}_]|[.,]\d)", _plain_number),
]  # fmt: skip

# --------------------------------------------------------------------------- the extractor


def _periods(scan: _Scan) -> None:
    valid, invalid = [], []
    for pm in find_periods(scan.masked, scan.reference, scan.fiscal_year_end):
        if pm.period is None:
            invalid.append(scan.item(pm.raw, pm.start, pm.end, Binding.LITERAL))
        else:
            binding = Binding.RELATIVE if pm.relative else Binding.CANONICAL
            valid.append(scan.item(pm.period, pm.start, pm.end, binding))
    scan.add("periods", valid)
    scan.add("invalid_periods", invalid)


_STAGES: list[tuple[str, list[_Rule]]] = [
    ("urls", _URL_RULES),
    ("emails", _EMAIL_RULES),
    ("paths", _PATH_RULES),
    ("dates", _DATE_RULES),
    ("dates", _RELATIVE_DATE_RULES),
    ("time_windows", _WINDOW_RULES),
    ("counts", _COUNT_RULES),
    ("periods", []),  # after counts ("top 2000" is no year), before numbers: core.question.periods
    ("extensions", _EXTENSION_RULES),
    ("numbers", _NUMBER_RULES),
]


def extract_arguments(text: str, reference_date: date, fiscal_year_end: str = "12-31") -> Arguments:
    """Every argument the rules can read in `text`, relative values resolved at `reference_date`."""
    scan = _Scan(text, reference_date, fiscal_year_end)
    for kind, rules in _STAGES:
        if kind == "periods":
            _periods(scan)
        else:
            _run(scan, kind, rules)
    return Arguments(
        **{kind: tuple(sorted(items, key=lambda i: i.start)) for kind, items in scan.found.items()}
    )


# --------------------------------------------------------------------------- resolvers


def resolve_relative_date(key: str, reference_date: date) -> str:
    """The ISO date of a relative day key ("tomorrow", "today-3") at `reference_date`."""
    named = {name: offset for offset, name in _DAY_KEYS.items()}
    if key in named:
        days = named[key]
    else:
        m = re.fullmatch(r"today([+-]\d{1,5})", key)
        if m is None:
            raise ValueError(f"not a relative day: {key!r}")
        days = int(m.group(1))
    return (reference_date + timedelta(days=days)).isoformat()


def _add_months(day: date, months: int) -> date:
    year, month = divmod(day.year * 12 + day.month - 1 + months, 12)
    return date(year, month + 1, min(day.day, calendar.monthrange(year, month + 1)[1]))


def _calendar_window(value: str, day: date) -> tuple[date, date] | None:
    monday = day - timedelta(days=day.weekday())
    first = day.replace(day=1)
    if value == "this_week":
        return monday, monday + timedelta(days=6)
    if value == "last_week":
        return monday - timedelta(days=7), monday - timedelta(days=1)
    if value == "this_month":
        return first, _add_months(first, 1) - timedelta(days=1)
    if value == "last_month":
        return _add_months(first, -1), first - timedelta(days=1)
    return None


_LAST_N = re.compile(r"last_(\d{1,6})_(minutes|hours|days|weeks|months|years)")


def resolve_time_window(value: str, reference_date: date | datetime) -> tuple[str, str]:
    """(start, end) ISO strings of a time-window slot value, both ends included.

    "last_7_days" is the 7 days ending with the reference date; "this_week" is Monday..Sunday,
    "this_month" the whole calendar month. With a datetime reference, minute and hour windows
    are exact; with a plain date they widen to whole days (the last 24 hours of 2025-03-15 are
    2025-03-14..2025-03-15).
    """
    day = reference_date.date() if isinstance(reference_date, datetime) else reference_date
    fixed = _calendar_window(value, day)
    if fixed is not None:
        return fixed[0].isoformat(), fixed[1].isoformat()
    m = _LAST_N.fullmatch(value)
    if m is None:
        raise ValueError(f"not a time window: {value!r}")
    n, unit = int(m.group(1)), m.group(2)
    if unit in ("minutes", "hours"):
        span = timedelta(minutes=n) if unit == "minutes" else timedelta(hours=n)
        if isinstance(reference_date, datetime):
            return (reference_date - span).isoformat(), reference_date.isoformat()
        whole_days = timedelta(days=math.ceil(span / timedelta(days=1)))
        return (day - whole_days).isoformat(), day.isoformat()
    if unit in ("days", "weeks"):
        start = day - timedelta(days=n * (7 if unit == "weeks" else 1) - 1)
    else:
        start = _add_months(day, -n * (12 if unit == "years" else 1)) + timedelta(days=1)
    return start.isoformat(), day.isoformat()
