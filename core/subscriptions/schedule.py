"""Schedules in plain words, in English, Italian and Chinese, and when one is next due.

`read_schedule("every Monday 9:00 revenue by entity last month")` reads the schedule at the
start of a subscription request and returns it with the rest (the question, read later by the
same parser as a chat question). The vocabulary is small on purpose — daily, weekdays, a day
of the week, a day of the month, at a time — so every schedule the bot accepts can be said back
in one line and a typo is refused, never guessed.

Times are wall-clock times in the chat's zone (zoneinfo). On a daylight-saving change a time
that does not exist (spring forward) is sent at the first instant after the gap and a time that
exists twice (fall back) at its first occurrence, so a daily report still goes once a day.
No rule library: python-dateutil's rrule adds nothing for this vocabulary and, given aware
datetimes, steps in fixed offsets across a DST change; the arithmetic here is a loop over days.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
import unicodedata
from dataclasses import dataclass
from zoneinfo import ZoneInfo

DAILY, WEEKDAYS, WEEKLY, MONTHLY = "daily", "weekdays", "weekly", "monthly"
DEFAULT_AT = dt.time(9, 0)  # "weekdays" with no time: the start of a working day

_EN_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_IT_DAYS = ("lunedi", "martedi", "mercoledi", "giovedi", "venerdi", "sabato", "domenica")
_ZH_DAYS = "一二三四五六日"


class ScheduleError(ValueError):
    """No schedule could be read at the start of the request."""


@dataclass(frozen=True)
class Schedule:
    """When a subscription is due: `kind` with its `weekday` (0 = Monday) or month `day`."""

    kind: str
    at: dt.time = DEFAULT_AT
    weekday: int | None = None
    day: int | None = None

    def spec(self) -> str:
        """The stored form: "weekly:0@09:00"; `parse_spec` reads it back."""
        arg = self.weekday if self.kind == WEEKLY else self.day if self.kind == MONTHLY else None
        head = self.kind if arg is None else f"{self.kind}:{arg}"
        return f"{head}@{self.at:%H:%M}"


def parse_spec(spec: str) -> Schedule:
    """The inverse of `Schedule.spec`; ValueError for anything else."""
    head, _, at = spec.partition("@")
    kind, _, arg = head.partition(":")
    hour, _, minute = at.partition(":")
    time = dt.time(int(hour), int(minute))
    if kind in (DAILY, WEEKDAYS) and not arg:
        return Schedule(kind, time)
    if kind == WEEKLY and arg.isdigit() and int(arg) < 7:
        return Schedule(kind, time, weekday=int(arg))
    if kind == MONTHLY and arg.isdigit() and 1 <= int(arg) <= 31:
        return Schedule(kind, time, day=int(arg))
    raise ValueError(f"not a schedule: {spec!r}")


# -- reading the words -------------------------------------------------------------------------

_CN_NUM = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8,
           "九": 9, "十": 10}


def _cn_int(text: str) -> int:
    """"9", "十二", "二十三", "三十一" -> int."""
    if text.isdigit():
        return int(text)
    if "十" in text:
        tens, _, ones = text.partition("十")
        return (_CN_NUM[tens] if tens else 1) * 10 + (_CN_NUM[ones] if ones else 0)
    return _CN_NUM[text]


_CN = "[0-9一二两三四五六七八九十]{1,3}"
_DAY_EN = "|".join(_EN_DAYS) + "|" + "|".join(d[:3] for d in _EN_DAYS)
_DAY_IT = "|".join(_IT_DAYS)
_ORD = r"(\d{1,2})(?:st|nd|rd|th)?"

# each frequency pattern, anchored where the reading stands; group names carry the values
_FREQUENCIES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern)) for kind, pattern in (
        (WEEKDAYS, r"(?:every |on )?weekdays?\b|every working day\b|monday to friday\b"),
        (WEEKDAYS, r"(?:nei |ogni |tutti i )?giorni? (?:feriali|lavorativi|feriale)\b"
                   r"|dal lunedi al venerdi\b"),
        (WEEKDAYS, r"(?:每个?)?工作日"),
        (DAILY, r"daily\b|every ?day\b|each day\b"),
        (DAILY, r"ogni giorno\b|tutti i giorni\b|giornalmente\b|quotidianamente\b"),
        (DAILY, r"每天|每日"),
        (WEEKLY, rf"(?:every|each|on) (?P<en>{_DAY_EN})s?\b|(?P<ens>{_DAY_EN})s\b"),
        (WEEKLY, rf"(?:ogni|il|la) (?P<it>{_DAY_IT})\b"),
        (WEEKLY, rf"每(?:个)?(?:周|星期|礼拜)(?P<zh>[{_ZH_DAYS}天])"),
        (MONTHLY, rf"(?:on )?the {_ORD} (?:day )?of (?:the|each|every) month\b"
                  r"|(?:every|each) month on the " + _ORD + r"\b"),
        (MONTHLY, r"(?:on )?the (?:first|1st) (?:day )?of (?:the|each|every) month\b"
                  r"|(?:every|each) month\b|monthly\b"),
        (MONTHLY, r"(?:il |ogni )?(?:giorno )?(?P<itd>\d{1,2}) (?:del|di ogni) mese\b"),
        (MONTHLY, r"(?:ogni |il )?primo (?:giorno )?(?:del|di ogni) mese\b|ogni mese\b"
                  r"|mensilmente\b"),
        (MONTHLY, rf"每(?:个)?月(?:的)?(?:(?P<zhd>{_CN})(?:日|号)|初)"),
    )
)

_AMPM = r"\s?(?P<ampm>a\.?m\.?|p\.?m\.?)"
_TIMES: tuple[re.Pattern[str], ...] = tuple(re.compile(p) for p in (
    # "at 9", "at 9:30", "9:30", "9am", "9.30pm", "alle 9", "alle ore 17:30", "ore 8"
    rf"(?:at |alle (?:ore )?|all'|ore )(?P<h>\d{{1,2}})(?:[:.](?P<m>\d{{2}}))?(?:{_AMPM})?\b",
    rf"(?P<h>\d{{1,2}})[:.](?P<m>\d{{2}})(?:{_AMPM})?\b",
    rf"(?P<h>\d{{1,2}}){_AMPM}",
    # 9点, 9点30分, 九点半, 下午3点, 9:30 (the colon form is the one above)
    rf"(?P<part>上午|早上|早晨|中午|下午|晚上)?(?P<zh>{_CN})(?:点|时)"
    rf"(?:(?P<half>半)|(?P<zm>{_CN})分?)?",
))
_SEPARATORS = re.compile(r"[\s,;:，、]+|(?:at|alle)\s*$")


@dataclass(frozen=True)
class Reading:
    """A subscription request read: the schedule, whether a time was written, the question."""

    schedule: Schedule
    question: str


def _fold(text: str) -> tuple[str, list[int]]:
    """NFKC, lower case, accents off (lunedì = lunedi), whitespace as one space; with, for each
    folded character, where it came from in `text` (the question is cut from the original)."""
    folded: list[str] = []
    origin: list[int] = []
    for i, char in enumerate(text):
        if char.isspace():
            if folded and folded[-1] == " ":
                continue
            piece = " "
        else:
            piece = "".join(c for c in unicodedata.normalize("NFD", unicodedata.normalize(
                "NFKC", char).lower()) if unicodedata.category(c) != "Mn")
        folded += piece
        origin += [i] * len(piece)
    return "".join(folded), origin


def _frequency(kind: str, m: re.Match[str]) -> Schedule:
    found = m.groupdict()
    if kind == WEEKLY:
        if found.get("en") or found.get("ens"):
            name = (found.get("en") or found.get("ens") or "")[:3]
            return Schedule(WEEKLY, weekday=[d[:3] for d in _EN_DAYS].index(name))
        if found.get("it"):
            return Schedule(WEEKLY, weekday=_IT_DAYS.index(found["it"]))
        zh = found["zh"]
        return Schedule(WEEKLY, weekday=6 if zh == "天" else _ZH_DAYS.index(zh))
    if kind == MONTHLY:
        number = next((found[k] for k in ("itd", "zhd") if found.get(k)), None)
        if number is None:
            number = next((g for g in m.groups() if g and g.isdigit()), None)
        day = _cn_int(number) if number else 1
        if not 1 <= day <= 31:
            raise ScheduleError(f"day {day} of the month")
        return Schedule(MONTHLY, day=day)
    return Schedule(kind)


def _time(m: re.Match[str]) -> dt.time:
    found = m.groupdict()
    if found.get("zh"):
        hour = _cn_int(found["zh"])
        minute = 30 if found.get("half") else _cn_int(found["zm"]) if found.get("zm") else 0
        if found.get("part") in ("下午", "晚上") and hour < 12:
            hour += 12
    else:
        hour, minute = int(found["h"]), int(found.get("m") or 0)
        ampm = (found.get("ampm") or "").replace(".", "")
        if ampm and not 1 <= hour <= 12:
            raise ScheduleError(f"{hour} {ampm}")
        if ampm == "pm" and hour < 12:
            hour += 12
        elif ampm == "am" and hour == 12:
            hour = 0
    if not (0 <= hour <= 23 and 0 <= minute <= 59):
        raise ScheduleError(f"{hour}:{minute:02d} is not a time of day")
    return dt.time(hour, minute)


def read_schedule(text: str) -> Reading:
    """The schedule at the start of `text` (a frequency and an optional time, in either order)
    and the question after it; ScheduleError when no frequency starts the text."""
    text = text.strip()
    folded, origin = _fold(text)
    pos, schedule, at = 0, None, None
    while pos < len(folded):
        sep = _SEPARATORS.match(folded, pos)
        if sep is not None and sep.end() > pos:
            pos = sep.end()
            continue
        if schedule is None:
            hit = next(((k, m) for k, p in _FREQUENCIES if (m := p.match(folded, pos))), None)
            if hit is not None:
                schedule, pos = _frequency(*hit), hit[1].end()
                continue
        if at is None:
            m = next((m for p in _TIMES if (m := p.match(folded, pos))), None)
            if m is not None:
                at, pos = _time(m), m.end()
                continue
        break
    if schedule is None:
        raise ScheduleError("no schedule at the start")
    if at is not None:
        schedule = Schedule(schedule.kind, at, schedule.weekday, schedule.day)
    rest = text[origin[pos]:] if pos < len(folded) else ""
    return Reading(schedule, rest.strip(" ,;:，、"))


# -- when it is due ----------------------------------------------------------------------------

def zone(name: str) -> ZoneInfo:
    """The IANA zone `name`; ValueError (with the name) for one zoneinfo does not know."""
    try:
        return ZoneInfo(name.strip())
    except (ValueError, KeyError, OSError):  # ZoneInfoNotFoundError is a KeyError
        raise ValueError(f"unknown time zone {name!r}") from None


def _wall(day: dt.date, at: dt.time, tz: dt.tzinfo) -> dt.datetime:
    """`day` at `at` in `tz`, as UTC; a time skipped by a DST jump moves forward by the gap
    (02:30 on the spring-forward night is 03:30), a time that happens twice is its first
    occurrence (fold=0)."""
    naive = dt.datetime.combine(day, at)
    aware = naive.replace(tzinfo=tz, fold=0)
    return aware.astimezone(dt.UTC)


def _matches(schedule: Schedule, day: dt.date) -> bool:
    if schedule.kind == DAILY:
        return True
    if schedule.kind == WEEKDAYS:
        return day.weekday() < 5
    if schedule.kind == WEEKLY:
        return day.weekday() == schedule.weekday
    last = calendar.monthrange(day.year, day.month)[1]  # the 31st: the month's last day
    return day.day == min(schedule.day or 1, last)


def next_due(schedule: Schedule, after: dt.datetime, tz: dt.tzinfo) -> dt.datetime:
    """The first instant strictly after `after` (aware) when `schedule` is due in `tz`, in UTC."""
    if after.tzinfo is None:
        raise ValueError("after must be timezone-aware")
    day = after.astimezone(tz).date() - dt.timedelta(days=1)
    for _ in range(64):  # a month and a half covers every kind
        if _matches(schedule, day):
            due = _wall(day, schedule.at, tz)
            if due > after:
                return due
        day += dt.timedelta(days=1)
    raise AssertionError("unreachable: every schedule is due within 64 days")  # pragma: no cover
