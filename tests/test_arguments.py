"""The deterministic argument extractor in it/en/zh: exact values, bindings, and robustness."""

from __future__ import annotations

import time
from datetime import date, datetime
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.question.argument_scan import Arguments, Binding
from core.question.arguments import extract_arguments
from core.question.time_arguments import resolve_relative_date, resolve_time_window

REF = date(2025, 3, 15)  # a Saturday; FY2025 is the current fiscal year
KINDS = (
    "urls", "emails", "paths", "dates", "time_windows", "counts", "periods", "invalid_periods",
    "extensions", "numbers",
)  # fmt: skip


def summary(args: Arguments) -> list[tuple[str, Any]]:
    """(kind, value) of every item in order of appearance; periods as their code."""
    rows = []
    for kind in KINDS:
        for item in getattr(args, kind):
            value = item.value.code if kind == "periods" else item.value
            rows.append((item.start, kind, value))
    return [(kind, value) for _, kind, value in sorted(rows, key=lambda r: r[0])]


def extract(text: str) -> list[tuple[str, Any]]:
    return summary(extract_arguments(text, REF))


CASES = [
    # relative dates, multi-word before single-word
    ("dopodomani", [("dates", "2025-03-17")]),
    ("dopo domani", [("dates", "2025-03-17")]),
    ("domani alle 9", [("dates", "2025-03-16"), ("numbers", Decimal(9))]),
    ("i file di oggi", [("dates", "2025-03-15")]),
    ("ieri", [("dates", "2025-03-14")]),
    ("altroieri", [("dates", "2025-03-13")]),
    ("l'altro ieri", [("dates", "2025-03-13")]),
    ("the day after tomorrow", [("dates", "2025-03-17")]),
    ("the day before yesterday", [("dates", "2025-03-13")]),
    ("today and tomorrow", [("dates", "2025-03-15"), ("dates", "2025-03-16")]),
    ("since yesterday", [("dates", "2025-03-14")]),
    ("今天", [("dates", "2025-03-15")]),
    ("昨天的文件", [("dates", "2025-03-14")]),
    ("明天", [("dates", "2025-03-16")]),
    ("后天", [("dates", "2025-03-17")]),
    ("前天和前年", [("dates", "2025-03-13"), ("periods", "FY2023")]),
    ("3 days ago", [("dates", "2025-03-12")]),
    ("due giorni fa", [("dates", "2025-03-13")]),
    ("三天前", [("dates", "2025-03-12")]),
    # absolute dates are literal ISO dates
    ("changes on 2025-03-01", [("dates", "2025-03-01")]),
    ("modificati il 15/03/2025", [("dates", "2025-03-15")]),
    ("2025年3月15日的报告", [("dates", "2025-03-15")]),
    ("dal 15 marzo 2025", [("dates", "2025-03-15")]),
    ("since March 1, 2025", [("dates", "2025-03-01")]),
    # time windows
    ("ultime 24 ore", [("time_windows", "last_24_hours")]),
    ("negli ultimi 7 giorni", [("time_windows", "last_7_days")]),
    ("ultimi tre mesi", [("time_windows", "last_3_months")]),
    ("last 7 days", [("time_windows", "last_7_days")]),
    ("past 24 hours", [("time_windows", "last_24_hours")]),
    ("in the last 2 weeks", [("time_windows", "last_14_days")]),
    ("over the past month", [("time_windows", "last_1_months")]),
    ("最近7天", [("time_windows", "last_7_days")]),
    ("过去24小时", [("time_windows", "last_24_hours")]),
    ("最近三个月", [("time_windows", "last_3_months")]),
    ("questa settimana", [("time_windows", "this_week")]),
    ("this week", [("time_windows", "this_week")]),
    ("this month", [("time_windows", "this_month")]),
    ("questo mese", [("time_windows", "this_month")]),
    ("本周", [("time_windows", "this_week")]),
    ("本月", [("time_windows", "this_month")]),
    ("last week", [("time_windows", "last_week")]),
    ("la settimana scorsa", [("time_windows", "last_week")]),
    ("上个月", [("time_windows", "last_month")]),
    # counts
    ("top 7", [("counts", 7)]),
    ("the top ten customers", [("counts", 10)]),
    ("at most 20 results", [("counts", 20)]),
    ("i primi 5", [("counts", 5)]),
    ("al massimo tre", [("counts", 3)]),
    ("前10", [("counts", 10)]),
    ("最多20个", [("counts", 20)]),
    ("up to 2024", [("periods", "FY2024")]),  # a year after a weak cue is a period
    # file extensions
    ("file PDF", [("extensions", "*.pdf")]),
    ("python files", [("extensions", "*.py")]),
    ("i file excel", [("extensions", "*.xlsx")]),
    ("PDF文件", [("extensions", "*.pdf")]),
    ("all *.docx", [("extensions", "*.docx")]),
    ("the PDFs", [("extensions", "*.pdf")]),
    ("file di testo", [("extensions", "*.txt")]),
    ("word documents", [("extensions", "*.docx")]),
    ("a word of advice", []),
    # URLs, e-mails, paths
    ("https://example.com/reports/2024-03-15/summary",
     [("urls", "https://example.com/reports/2024-03-15/summary")]),
    ("see www.acme.com/q3.", [("urls", "www.acme.com/q3")]),
    ("mail bob.smith@acme.co.uk", [("emails", "bob.smith@acme.co.uk")]),
    ("write to a@b", []),
    ("~/docs", [("paths", "~/docs")]),
    ("tail /var/log/syslog", [("paths", "/var/log/syslog")]),
    ("/start", []),
    ("cerca nella home", [("paths", "~/")]),
    ("open the home page", []),
    (r"C:\Users\bob\report.xlsx", [("paths", r"C:\Users\bob\report.xlsx")]),
    # numbers
    ("revenue 1,320.5 vs 1.320", [("numbers", Decimal("1320.5")), ("numbers", Decimal(1320))]),
    ("3,5 kg", [("numbers", Decimal("3.5"))]),
    ("20 files", [("numbers", Decimal(20))]),
    ("1320", [("numbers", Decimal(1320))]),
    ("margine -5 e 1.234.567,89", [("numbers", Decimal(-5)), ("numbers", Decimal("1234567.89"))]),
    # fiscal periods
    ("FY2024 revenue", [("periods", "FY2024")]),
    ("revenue Q5 2024", [("invalid_periods", "Q5 2024")]),
    ("ACME HK 去年 REVENUE 是多少", [("periods", "FY2024")]),
    # several kinds at once
    ("show the top 7 python files from the last 7 days in ~/docs",
     [("counts", 7), ("extensions", "*.py"), ("time_windows", "last_7_days"),
      ("paths", "~/docs")]),
    ("mostra i file PDF delle ultime 24 ore nella home",
     [("extensions", "*.pdf"), ("time_windows", "last_24_hours"), ("paths", "~/")]),
    ("最近7天的PDF文件前10个",
     [("time_windows", "last_7_days"), ("extensions", "*.pdf"), ("counts", 10)]),
    ("i primi 5 file excel di questa settimana",
     [("counts", 5), ("extensions", "*.xlsx"), ("time_windows", "this_week")]),
    ("email the Q3 2024 report to cfo@acme.com by tomorrow",
     [("periods", "2024Q3"), ("emails", "cfo@acme.com"), ("dates", "2025-03-16")]),
    ("files changed since 2025-03-01 in /srv/data/",
     [("dates", "2025-03-01"), ("paths", "/srv/data/")]),
]  # fmt: skip


def test_case_count() -> None:
    assert len(CASES) >= 55


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_extract(text: str, expected: list[tuple[str, Any]]) -> None:
    assert extract(text) == expected


def test_items_keep_their_spans_and_raw_text() -> None:
    text = "dopodomani, top 7 file PDF"
    args = extract_arguments(text, REF)
    assert [(i.raw, text[i.start : i.end]) for i in args.items()] == [
        ("dopodomani", "dopodomani"),
        ("top 7", "top 7"),
        ("file PDF", "file PDF"),
    ]


def test_relative_values_keep_a_plan_cacheable() -> None:
    args = extract_arguments("PDF files from the last 7 days, yesterday and last year", REF)
    assert [i.binding for i in args.items()] == [
        Binding.CANONICAL, Binding.RELATIVE, Binding.RELATIVE, Binding.RELATIVE,
    ]  # fmt: skip
    assert not args.has_literals
    assert args.literal_values() == ()


def test_literal_values_make_a_plan_query_specific() -> None:
    args = extract_arguments("top 7 pdf files in ~/docs since 2025-03-01, ask bob@acme.com", REF)
    assert args.has_literals
    assert args.literal_values() == ("7", "~/docs", "2025-03-01", "bob@acme.com")


def test_relative_keys_resolve_on_another_day() -> None:
    args = extract_arguments("tomorrow, 3 days ago, ultimi 7 giorni", REF)
    keys = [i.key for i in args.items()]
    assert keys == ["tomorrow", "today-3", "last_7_days"]
    later = date(2025, 4, 1)
    assert resolve_relative_date("tomorrow", later) == "2025-04-02"
    assert resolve_relative_date("today-3", later) == "2025-03-29"
    with pytest.raises(ValueError):
        resolve_relative_date("someday", later)


@pytest.mark.parametrize(
    ("value", "reference", "expected"),
    [
        ("last_7_days", REF, ("2025-03-09", "2025-03-15")),
        ("last_24_hours", REF, ("2025-03-14", "2025-03-15")),
        ("last_24_hours", datetime(2025, 3, 15, 10, 30),
         ("2025-03-14T10:30:00", "2025-03-15T10:30:00")),
        ("this_week", REF, ("2025-03-10", "2025-03-16")),
        ("last_week", REF, ("2025-03-03", "2025-03-09")),
        ("this_month", REF, ("2025-03-01", "2025-03-31")),
        ("last_month", REF, ("2025-02-01", "2025-02-28")),
        ("last_3_months", REF, ("2024-12-16", "2025-03-15")),
        ("last_1_years", REF, ("2024-03-16", "2025-03-15")),
    ],
)  # fmt: skip
def test_resolve_time_window(value: str, reference: date, expected: tuple[str, str]) -> None:
    assert resolve_time_window(value, reference) == expected


def test_every_window_the_extractor_emits_resolves() -> None:
    text = "ultime 24 ore, last 2 weeks, 最近三个月, past year, this week, 上个月"
    windows = [i.value for i in extract_arguments(text, REF).time_windows]
    assert windows == [
        "last_24_hours", "last_14_days", "last_3_months", "last_1_years", "this_week", "last_month",
    ]  # fmt: skip
    for value in windows:
        start, end = resolve_time_window(value, REF)
        assert start <= end
    with pytest.raises(ValueError):
        resolve_time_window("next_week", REF)


def test_fiscal_year_end_reaches_the_period_stage() -> None:
    args = extract_arguments("revenue last quarter", REF, fiscal_year_end="06-30")
    # FY2025 runs Jul 2024 .. Jun 2025: mid-March is in its Q3, so last quarter is its Q2
    assert [i.value.code for i in args.periods] == ["2025Q2"]


# --------------------------------------------------------------------------- robustness

_TRICKY = [
    *"0123456789 /\\~.-@:*年月天前最近 ",
    "http://", "www.", "top ", "last ", "7 days", "ultime ", "file ", "pdf", "home", "FY", "Q3",
    "ieri", "domani", "2025-03-15", "a@b.co", "前10", "最近7天",
]  # fmt: skip
_tricky_text = st.lists(st.one_of(st.sampled_from(_TRICKY), st.text(max_size=3)), max_size=60)
_repeated = st.tuples(st.text(min_size=1, max_size=12), st.integers(1, 10_000)).map(
    lambda t: (t[0] * t[1])[:10_000]
)


def _check(text: str) -> None:
    start = time.perf_counter()
    args = extract_arguments(text, REF)
    assert time.perf_counter() - start < 2.0
    last_end = 0
    for item in args.items():  # stages never claim the same text twice
        assert last_end <= item.start < item.end <= len(text)
        assert text[item.start : item.end] == item.raw
        last_end = item.end


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=300), _tricky_text.map("".join),
                 st.binary(max_size=2_000).map(lambda b: b.decode("latin-1"))))  # fmt: skip
def test_any_text_is_read_without_error(text: str) -> None:
    _check(text)


@pytest.mark.parametrize("text", ["LAST ~0", "the last ~ 3", "past ~/x 2 days"])
def test_a_rule_never_claims_text_an_earlier_rule_claimed(text: str) -> None:
    """Found by the property above: "~" claimed as the home folder left "LAST  0" (a blank
    where it was) for the "last N" rule, which then claimed the "~" a second time."""
    _check(text)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_repeated)
def test_long_repetitive_text_takes_bounded_time(text: str) -> None:
    _check(text)


@pytest.mark.parametrize(
    "text",
    ["a" * 10_000, "1" * 10_000, "a@" * 5_000, "/" * 10_000, " " * 10_000, "www." * 2_500,
     "~/" * 5_000, "1," * 5_000, "top one " * 1_250, "前" * 10_000, "C:\\" * 3_300,
     "last 7 days 2025-03-15 " * 400, "http://x" + ")" * 9_990, "/var/" + "." * 9_990],
)  # fmt: skip
def test_adversarial_text_takes_bounded_time(text: str) -> None:
    _check(text)


def test_every_rule_compiles_although_rules_compile_lazily() -> None:
    """Rules compile on first use; a broken pattern must still fail here, not on a user's
    question that happens to contain its hint."""
    from core.question.argument_scan import compiled
    from core.question.arguments import _STAGES

    patterns = [rule.pattern for _, rules in _STAGES for rule in rules]
    assert len(patterns) > 20
    for pattern in patterns:
        compiled(pattern)
