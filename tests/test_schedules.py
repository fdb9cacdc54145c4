"""Schedules in plain words (en/it/zh) and when they are next due, DST included
(core.subscriptions.schedule); said back in the reader's language (core.subscriptions.desk)."""

from __future__ import annotations

import datetime as dt

import pytest

from core.subscriptions.desk import describe
from core.subscriptions.schedule import (
    Schedule,
    ScheduleError,
    next_due,
    parse_spec,
    read_schedule,
    zone,
)

ROME = zone("Europe/Rome")


@pytest.mark.parametrize(("text", "spec", "question"), [
    ("every Monday 9:00 revenue by entity last month", "weekly:0@09:00",
     "revenue by entity last month"),
    ("daily at 8 What was ACME revenue?", "daily@08:00", "What was ACME revenue?"),
    ("weekdays revenue last month", "weekdays@09:00", "revenue last month"),
    ("the first of the month at 7:30 revenue", "monthly:1@07:30", "revenue"),
    ("Every Friday at 5pm EBITDA", "weekly:4@17:00", "EBITDA"),
    ("every month on the 15th at 18:00 revenue", "monthly:15@18:00", "revenue"),
    ("ogni lunedì alle 9 fatturato del mese scorso", "weekly:0@09:00",
     "fatturato del mese scorso"),
    ("ogni giorno alle ore 17:30 Fatturato Cina", "daily@17:30", "Fatturato Cina"),
    ("il primo del mese alle 8 fatturato", "monthly:1@08:00", "fatturato"),
    ("nei giorni feriali alle 9 fatturato", "weekdays@09:00", "fatturato"),
    ("每周一 9点 上个月各公司营收", "weekly:0@09:00", "上个月各公司营收"),
    ("每天下午3点半 营收", "daily@15:30", "营收"),
    ("每月1号 8点 营收", "monthly:1@08:00", "营收"),
    ("工作日 9:00 营收", "weekdays@09:00", "营收"),
])
def test_schedules_are_read_in_three_languages(text: str, spec: str, question: str) -> None:
    reading = read_schedule(text)
    assert reading.schedule.spec() == spec
    assert reading.question == question  # cut from the original: case and accents kept
    assert parse_spec(spec) == reading.schedule


@pytest.mark.parametrize("text", ["tomorrow revenue", "revenue every Monday", "every 9",
                                  "every Moonday 9:00 revenue", "at 25:00 daily revenue", ""])
def test_what_is_not_a_schedule_is_refused_not_guessed(text: str) -> None:
    with pytest.raises(ScheduleError):
        read_schedule(text)


def test_next_due_is_in_the_chats_zone_and_strictly_after() -> None:
    monday_9 = Schedule("weekly", dt.time(9), weekday=0)
    thursday = dt.datetime(2026, 12, 3, 12, tzinfo=dt.UTC)
    due = next_due(monday_9, thursday, ROME)
    assert due == dt.datetime(2026, 12, 7, 8, tzinfo=dt.UTC)  # 09:00 CET
    assert next_due(monday_9, due, ROME) == dt.datetime(2026, 12, 14, 8, tzinfo=dt.UTC)
    assert next_due(Schedule("weekdays", dt.time(9)), dt.datetime(
        2026, 12, 4, 9, tzinfo=dt.UTC), ROME).weekday() == 0  # Friday after 9: Monday next


def test_daylight_saving_keeps_the_wall_time_and_skips_no_day() -> None:
    daily_9 = Schedule("daily", dt.time(9))
    before = next_due(daily_9, dt.datetime(2026, 3, 28, 12, tzinfo=dt.UTC), ROME)
    assert before.astimezone(ROME).hour == 9 and before.utcoffset() == dt.timedelta(0)
    assert before == dt.datetime(2026, 3, 29, 7, tzinfo=dt.UTC)  # CEST from that night
    gap = Schedule("daily", dt.time(2, 30))  # does not exist on 29 March in Rome
    due = next_due(gap, dt.datetime(2026, 3, 28, 12, tzinfo=dt.UTC), ROME)
    assert due.date() == dt.date(2026, 3, 29)  # still sent that day, once
    fall = next_due(gap, dt.datetime(2026, 10, 24, 12, tzinfo=dt.UTC), ROME)
    assert fall == dt.datetime(2026, 10, 25, 0, 30, tzinfo=dt.UTC)  # the first 02:30


def test_the_31st_is_the_last_day_of_a_short_month() -> None:
    due = next_due(Schedule("monthly", dt.time(9), day=31),
                   dt.datetime(2026, 2, 1, tzinfo=dt.UTC), ROME)
    assert due.astimezone(ROME).date() == dt.date(2026, 2, 28)


@pytest.mark.parametrize(("language", "said"), [
    ("en", "Every Monday at 09:00 Europe/Rome"),
    ("it", "Ogni lunedì alle 09:00 Europe/Rome"),
    ("zh", "每周一 09:00（Europe/Rome）"),
])
def test_a_schedule_is_said_back_in_the_readers_language(language: str, said: str) -> None:
    assert describe(Schedule("weekly", dt.time(9), weekday=0), language, "Europe/Rome") == said
