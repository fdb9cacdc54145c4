"""Dates and time windows in a question, and resolving them: absolute dates ("2025-03-15",
"15 marzo 2025", "2025年3月15日"), relative days ("yesterday", "tra tre giorni", "前天") and windows
("last 7 days", "this week", "ultimi 3 mesi"). Relative values are kept as keys ("today-3",
"last_7_days") so a cached plan replays them against another day; the resolvers turn a key
into a date or a window at the reference date.
"""

from __future__ import annotations

import calendar
import math
import re
from datetime import date, datetime, timedelta
from typing import Any

# four helpers go by the short private names the rule tables below were written with
from core.question.argument_scan import (
    AP,
    DIGITS,
    NUM,
    ZH_NUM,
    Binding,
    Item,
    Make,
    Scan,
    read_number,
)
from core.question.argument_scan import latin_word as _w
from core.question.argument_scan import make_rule as _rule
from core.question.period_atoms import month_number
from core.question.period_grammar import MONTH_NAMES

__all__ = [
    "DATE_RULES",
    "RELATIVE_DATE_RULES",
    "WINDOW_RULES",
    "resolve_relative_date",
    "resolve_time_window",
]


# --------------------------------------------------------------------------- dates


def _date_rule(order: str) -> Make:
    """An absolute date; `order` says what groups a, b, c hold ("ymd", "dmy", "mdy")."""

    def make(m: re.Match[str], scan: Scan) -> Item[Any] | None:
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


DATE_RULES = [
    _rule("-", r"(?<![\d/.-])(?P<a>\d{4})-(?P<b>\d{1,2})-(?P<c>\d{1,2})(?!\d)", _date_rule("ymd")),
    _rule("/ .", r"(?<![\d/.-])(?P<a>\d{4})([/.])(?P<b>\d{1,2})\2(?P<c>\d{1,2})(?![\d/.]\d)",
          _date_rule("ymd")),
    _rule("/ . -", r"(?<![\d/.-])(?P<a>\d{1,2})([/.-])(?P<b>\d{1,2})\2(?P<c>\d{4})(?!\d)",
          _date_rule("dmy")),
    _rule("年", r"(?P<a>\d{4})\s?年\s?(?P<b>\d{1,2})\s?月\s?(?P<c>\d{1,2})\s?[日号]",
          _date_rule("ymd")),
    _rule(DIGITS, _w(rf"(?P<a>\d{{1,2}})(?:st|nd|rd|th|°|º)?\s{{1,3}}(?:of\s{{1,3}})?"
                      rf"(?P<b>{MONTH_NAMES})\.?,?\s{{1,3}}(?P<c>\d{{4}})"), _date_rule("dmy")),
    _rule(DIGITS, _w(rf"(?P<a>{MONTH_NAMES})\.?\s{{1,3}}(?P<b>\d{{1,2}})(?:st|nd|rd|th)?,?"
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


def _relative_day(offset: int | None = None) -> Make:
    """A day `offset` days from the reference; without one, read from the word or from n/u."""

    def make(m: re.Match[str], scan: Scan) -> Item[Any] | None:
        days = offset
        if days is None and "n" in m.re.groupindex:
            n = 1 if m.group("n").lower() in ("a", "an") else read_number(m.group("n"))
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


RELATIVE_DATE_RULES = [  # longest first: "day after tomorrow" before "tomorrow"
    _rule("tomorrow domani", _w(r"(?:the\s+)?day\s+after\s+tomorrow|dopo\s?domani"),
          _relative_day(2)),
    _rule("yesterday ieri",
          _w(rf"(?:the\s+)?day\s+before\s+yesterday|(?:l{AP}\s?)?altro\s?ieri|avantieri"),
          _relative_day(-2)),
    _rule("ago", _w(rf"(?P<n>{NUM}|an?)\s+(?P<u>days?|weeks?)\s+ago"), _relative_day()),
    _rule(" fa", _w(rf"(?P<n>{NUM})\s+(?P<u>giorni|giorno|settimane|settimana)\s+fa"),
          _relative_day()),
    _rule("前", rf"(?P<n>{ZH_NUM})\s?(?P<u>天|日|个星期|星期|周|礼拜)前", _relative_day()),
    _rule("天 日", "大后天|大前天|后天|前天|今天|今日|昨天|昨日|明天|明日", _relative_day()),
    _rule("today tonight yesterday tomorrow oggi stasera ieri domani",
          _w("today|tonight|yesterday|tomorrow|oggi|stasera|ieri|domani"), _relative_day()),
]  # fmt: skip

# --------------------------------------------------------------------------- time windows

_UNIT_EN = "minutes?|mins?|hours?|hrs?|h|days?|weeks?|months?|years?"
_UNIT_IT = "minuti|minuto|ore|ora|h|giorni|giorno|gg|settimane|settimana|mesi|mese|anni|anno"
_UNIT_ZH = "个小时|小时|钟头|分钟|天|日|个星期|星期|个礼拜|礼拜|周|个月|月|年"


def _window(fixed: str | None = None, n: int | None = None) -> Make:
    """A calendar window ("this_week"), or the last N units read from groups n (unless given) and u.

    Weeks are counted as days, so "last 2 weeks" and "last 14 days" are the same slot value.
    """

    def make(m: re.Match[str], scan: Scan) -> Item[Any] | None:
        value = fixed
        if value is None:
            count = n if n is not None else read_number(m.group("n"))
            unit = _UNIT.get(m.group("u").lower())
            if not count or unit is None:
                return None
            value = f"last_{count * 7}_days" if unit == "weeks" else f"last_{count}_{unit}"
        return scan.item(value, *m.span(), Binding.RELATIVE, value)

    return make


WINDOW_RULES = [
    _rule("last past previous prior",
          _w(rf"(?:(?:in|during|over|for|within)\s+)?(?:the\s+)?(?:last|past|previous|prior)\s+"
             rf"(?P<n>{NUM})\s?(?P<u>{_UNIT_EN})"), _window()),
    _rule("ultim passat scors",
          _w(rf"(?:(?:nelle|negli|nei|nell{AP}|in|durante)\s?)?(?:(?:le|gli|i)\s+)?"
             rf"(?:ultim[ieao]|passat[ieao]|scors[ieao])\s+(?P<n>{NUM})\s?(?P<u>{_UNIT_IT})"),
          _window()),
    _rule("最近 过去 近 最后", rf"(?:最近|过去|近|最后)的?\s?(?P<n>{ZH_NUM})\s?(?P<u>{_UNIT_ZH})",
          _window()),
    # "the last week" / "the past month" roll back from today; "last week" is the calendar week
    _rule("last", _w(r"(?:(?:in|during|over|within)\s+)?the\s+last\s+(?P<u>hour|day|week|month)"),
          _window(n=1)),
    _rule("past",
          _w(r"(?:(?:in|during|over|within)\s+)?(?:the\s+)?past\s+(?P<u>hour|day|week|month|year)"),
          _window(n=1)),
    _rule("ultim passat",
          _w(rf"(?:(?:nell{AP}|nella|in)\s?)?(?:l{AP}\s?)?(?:ultim[ao]|passat[ao])"
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
