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

import re
from datetime import date
from decimal import Decimal
from typing import Any

# four helpers go by the short private names the rule tables below were written with
from core.question.argument_scan import (
    DIGITS,
    LAT,
    NUM,
    ZH_NUM,
    Arguments,
    Binding,
    Item,
    Make,
    Rule,
    Scan,
    read_number,
    run_rules,
)
from core.question.argument_scan import const_item as _const
from core.question.argument_scan import latin_word as _w
from core.question.argument_scan import literal_item as _literal
from core.question.argument_scan import make_rule as _rule
from core.question.periods import find_periods
from core.question.time_arguments import DATE_RULES, RELATIVE_DATE_RULES, WINDOW_RULES

__all__ = ["extract_arguments"]


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


# --------------------------------------------------------------------------- counts

_YEARS = range(1990, 2101)


def _count(weak: bool = False) -> Make:
    """A limit ("top 7", "at most 20"). Weak cues never take a year: "up to 2024" is a period."""

    def make(m: re.Match[str], scan: Scan) -> Item[Any] | None:
        n = read_number(m.group("n"))
        if n is None or (weak and n in _YEARS):
            return None
        return scan.item(n, *m.span(), Binding.LITERAL)

    return make


_COUNT_RULES = [
    _rule("top", _w(rf"(?:the\s+)?top[\s-]?(?P<n>{NUM})"), _count()),
    _rule("most more max",
          _w(rf"(?:at\s+most|no\s+more\s+than|max(?:imum)?\.?(?:\s+of)?)\s*(?P<n>{NUM})"),
          _count()),
    _rule("massimo max più", _w(rf"(?:(?:al\s+)?massimo|max|non\s+più\s+di)\s+(?P<n>{NUM})"),
          _count()),
    _rule("prim", _w(rf"(?:(?:i|le|gli)\s+)?prim[ie]\s+(?P<n>{NUM})"), _count()),
    # 前10 is "top 10", but 前3个月 / 前三季度 are spans of time, not limits
    _rule("前", rf"前\s?(?P<n>{ZH_NUM})(?!\s?个?\s?(?:季度|季|月|年|天|日|周|星期|小时|分钟))",
          _count()),
    _rule("最多 至多 不超过", rf"(?:最多|至多|不超过)\s?(?P<n>{ZH_NUM})", _count()),
    _rule("最近 最新", rf"(?:最近|最新)\s?(?P<n>{ZH_NUM})\s?(?=[个条份篇张])", _count()),
    _rule("up to fino limit", _w(rf"(?:up\s+to|fino\s+a|limit(?:ed)?\s+to|limit)\s+(?P<n>{NUM})"),
          _count(weak=True)),
    _rule("first last latest newest recent",
          _w(rf"(?:the\s+)?(?:first|last|latest|newest|most\s+recent)\s+(?P<n>{NUM})"),
          _count(weak=True)),
    _rule("ultim", _w(rf"(?:(?:gli|le|i)\s+)?ultim[ie]\s+(?P<n>{NUM})"), _count(weak=True)),
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


def _extension(fixed: str | None = None) -> Make:
    def make(m: re.Match[str], scan: Scan) -> Item[Any] | None:
        ext = fixed or _FORMATS.get(m.group("e").lower())
        return None if ext is None else scan.item(f"*.{ext}", *m.span(), Binding.CANONICAL)

    return make


def _glob(m: re.Match[str], scan: Scan) -> Item[Any] | None:
    return scan.item(f"*.{m.group('e').lower()}", *m.span(), Binding.CANONICAL)


_EXTENSION_RULES = [
    _rule("*.", r"\*\.(?P<e>[A-Za-z0-9]{1,6})(?![A-Za-z0-9])", _glob),
    _rule(".", rf"(?<![\w*])\.(?P<e>{_FORMAT})(?![A-Za-z0-9])", _extension()),
    _rule("file doc sheet script report format",
          _w(rf"(?P<e>{_FORMAT})\s?(?:{_FILE_AFTER})"), _extension()),
    _rule("文件 文档 表格 脚本 档案 报告",
          rf"(?<![{LAT}])(?P<e>{_FORMAT})\s?(?:文件|文档|表格|脚本|档案|报告)", _extension()),
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


def _plain_number(m: re.Match[str], scan: Scan) -> Item[Any] | None:
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
    _rule(DIGITS,
          rf"(?P<sign>(?<![^\s(\[])[-−])?(?<![{LAT}_.,])(?P<n>(?P<en>{_EN_THOUSANDS})"
          rf"|(?P<it>{_IT_THOUSANDS})|\d+(?:[.,]\d+)?)(?![{LAT}_]|[.,]\d)", _plain_number),
]  # fmt: skip

# --------------------------------------------------------------------------- the extractor


def _periods(scan: Scan) -> None:
    valid, invalid = [], []
    for pm in find_periods(scan.masked, scan.reference, scan.fiscal_year_end):
        if pm.period is None:
            invalid.append(scan.item(pm.raw, pm.start, pm.end, Binding.LITERAL))
        else:
            binding = Binding.RELATIVE if pm.relative else Binding.CANONICAL
            valid.append(scan.item(pm.period, pm.start, pm.end, binding))
    scan.add("periods", valid)
    scan.add("invalid_periods", invalid)


_STAGES: list[tuple[str, list[Rule]]] = [
    ("urls", _URL_RULES),
    ("emails", _EMAIL_RULES),
    ("paths", _PATH_RULES),
    ("dates", DATE_RULES),
    ("dates", RELATIVE_DATE_RULES),
    ("time_windows", WINDOW_RULES),
    ("counts", _COUNT_RULES),
    ("periods", []),  # after counts ("top 2000" is no year), before numbers: core.question.periods
    ("extensions", _EXTENSION_RULES),
    ("numbers", _NUMBER_RULES),
]


def extract_arguments(text: str, reference_date: date, fiscal_year_end: str = "12-31") -> Arguments:
    """Every argument the rules can read in `text`, relative values resolved at `reference_date`."""
    scan = Scan(text, reference_date, fiscal_year_end)
    for kind, rules in _STAGES:
        if kind == "periods":
            _periods(scan)
        else:
            run_rules(scan, kind, rules)
    return Arguments(
        **{kind: tuple(sorted(items, key=lambda i: i.start)) for kind, items in scan.found.items()}
    )
