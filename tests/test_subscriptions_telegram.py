"""End to end: `python -m bot serve` against the fake Bot API, with the scheduler's clock in a
file the test writes (RICORDA_TEST_CLOCK_FILE). A subscription made in the chat is said back
with OK/Cancel buttons and delivered at its time, its relative period read on the delivery's
day; Cancel stops it; a platform refusal is retried with backoff and recorded; bad input gets a
clear reply."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from storage.db import open_database
from storage.subscription_store import SqlSubscriptionStore
from tests.acme import load_acme
from tests.fake_telegram import FakeTelegram
from tests.telegram_harness import ADMIN, BotProcess

LAST_YEAR = "What was ACME China revenue last year?"
# Monday 29 December 2025, 08:00 in Rome: "last year" is FY2024 that day, FY2025 a week later
MONDAY = dt.datetime(2025, 12, 29, 7, 0, tzinfo=dt.UTC)


class Clock:
    def __init__(self, path: Path) -> None:
        self.path = path

    def set(self, when: dt.datetime) -> None:
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(when.isoformat())
        tmp.replace(self.path)  # the bot never reads half a time


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return load_acme(tmp_path_factory.mktemp("subscriptions"))


@pytest.fixture(scope="module")
def clock(data_dir: Path) -> Clock:
    clock = Clock(data_dir / "clock.txt")
    clock.set(MONDAY)
    return clock


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeTelegram]:
    server = FakeTelegram().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def bot(data_dir: Path, fake: FakeTelegram, clock: Clock) -> Iterator[BotProcess]:
    process = BotProcess(data_dir, fake, RICORDA_TEST_CLOCK_FILE=str(clock.path),
                         RICORDA_TIMEZONE="Europe/Rome",
                         RICORDA_MAX_SUBSCRIPTIONS_PER_CHAT="3").start()
    yield process
    process.stop()
    assert fake.token not in process.output(), "the bot token appeared in the log"


@pytest.fixture(scope="module")
def store(data_dir: Path) -> Iterator[SqlSubscriptionStore]:
    engine = open_database(f"sqlite:///{data_dir / 'ricorda.db'}")
    yield SqlSubscriptionStore(engine)
    engine.dispose()


def say(fake: FakeTelegram, chat: int, text: str, *, language: str = "en") -> dict[str, Any]:
    """Send one message; the bot's first reply to it."""
    before = len(fake.sent(chat))
    fake.inject(fake.text(chat, chat, text, language=language))
    return fake.wait_for(lambda: fake.sent(chat)[before:])[0]


def new_messages(fake: FakeTelegram, chat: int, after: int, count: int = 2) -> list[dict]:
    """The next `count` messages in `chat` after the first `after` (waiting for them)."""
    return fake.wait_for(lambda: len(fake.sent(chat)) >= after + count
                         and fake.sent(chat)[after:], timeout=120)


def test_a_subscription_is_delivered_at_its_time_with_that_days_period(
        bot: BotProcess, fake: FakeTelegram, clock: Clock) -> None:
    chat = 501
    clock.set(MONDAY)
    prompt = say(fake, chat, f"/subscribe every Monday 9:00 {LAST_YEAR}")
    assert "Every Monday at 09:00 Europe/Rome" in prompt["text"]
    assert LAST_YEAR in prompt["text"]
    ok, cancel = prompt["reply_markup"]["inline_keyboard"][0]
    assert (ok["text"], cancel["text"]) == ("OK", "Cancel")
    fake.inject(fake.tap(chat, chat, prompt["message_id"], ok["callback_data"]))
    fake.wait_for(lambda: fake.calls("editMessageText", message_id=prompt["message_id"]))
    seen = len(fake.sent(chat))

    clock.set(MONDAY + dt.timedelta(minutes=59))  # 08:59 in Rome: not yet
    listing = say(fake, chat, "/subscriptions")
    assert "#" in listing["text"] and LAST_YEAR in listing["text"]
    seen += 1
    clock.set(MONDAY + dt.timedelta(hours=1, seconds=5))  # 09:00:05 in Rome
    header, answer = new_messages(fake, chat, seen)[:2]
    assert header["text"].startswith("Scheduled (#") and "late" not in header["text"]
    assert "$1,320M" in answer["text"] and "2024" in answer["text"]  # last year = FY2024
    seen += 2

    clock.set(MONDAY + dt.timedelta(days=7, hours=1, seconds=5))  # a week on: FY2025
    header, answer = new_messages(fake, chat, seen)[:2]
    assert "$1,320M" not in answer["text"] and "2025" in answer["text"]


def test_cancel_stops_the_deliveries(bot: BotProcess, fake: FakeTelegram, clock: Clock,
                                     store: SqlSubscriptionStore) -> None:
    start = MONDAY + dt.timedelta(days=14)  # Monday 12 January 2026, 08:00 in Rome
    clock.set(start)
    cancelled = say(fake, 502, "/subscribe daily at 9:30 What was ACME revenue last year?")
    _, cancel = cancelled["reply_markup"]["inline_keyboard"][0]
    fake.inject(fake.tap(502, 502, cancelled["message_id"], cancel["callback_data"]))
    fake.wait_for(lambda: "cancelled" in (fake.message(502, cancelled["message_id"]) or {})
                  .get("text", ""))
    kept = say(fake, 503, "/subscribe daily at 9:30 What was ACME revenue last year?")
    assert "Every day at 09:30" in kept["text"]
    before = len(fake.sent(502))
    clock.set(start + dt.timedelta(hours=1, minutes=30, seconds=5))
    new_messages(fake, 503, 1)  # the kept one is delivered …
    assert len(fake.sent(502)) == before  # … and the cancelled one not
    assert [s.chat for s in store.for_chat("telegram:502")] == []


def test_a_refused_send_is_retried_with_backoff_and_recorded(
        bot: BotProcess, fake: FakeTelegram, clock: Clock, store: SqlSubscriptionStore) -> None:
    start = MONDAY + dt.timedelta(days=21)
    clock.set(start + dt.timedelta(hours=1, minutes=59))  # 09:59 in Rome, Monday 19 January
    # the other chats' subscriptions of that morning go first (late: the clock jumped a week),
    # so the refusal below meets this chat's delivery and no other
    morning = {("telegram:501", dt.datetime(2026, 1, 19, 8, tzinfo=dt.UTC)),
               ("telegram:503", dt.datetime(2026, 1, 19, 8, 30, tzinfo=dt.UTC))}
    fake.wait_for(lambda: morning <= {(d.subscription.chat, d.due_at) for d in
                                      store.deliveries() if d.status == "sent"}, timeout=120)
    late = [m["text"] for m in fake.sent(501) if "Sent late" in m["text"]]
    assert late and "2026-01-19 09:00" in late[-1]  # said, with the time it was due
    say(fake, 504, "/subscribe daily at 10 What was ACME China revenue in FY2024?")
    fake.fail_once("sendMessage", status=403, description="Forbidden: bot was blocked")
    clock.set(start + dt.timedelta(hours=2, seconds=5))  # 10:00:05 in Rome
    failed = fake.wait_for(lambda: [d for d in store.deliveries()
                                    if d.subscription.chat == "telegram:504" and d.error],
                           timeout=120)
    assert "blocked" in failed[0].error and failed[0].status == "pending"
    assert fake.token not in failed[0].error
    before = len(fake.sent(504))
    clock.set(start + dt.timedelta(hours=2, seconds=40))  # past the first backoff (30 s)
    _, answer = new_messages(fake, 504, before)[:2]
    assert "$1,320M" in answer["text"]
    fake.wait_for(lambda: [d.status for d in store.deliveries()
                           if d.subscription.chat == "telegram:504"] == ["sent"])


def test_bad_input_gets_a_clear_reply(bot: BotProcess, fake: FakeTelegram) -> None:
    assert "could not read a schedule" in say(fake, 505, "/subscribe tomorrow revenue")["text"]
    assert "/subscribe every Monday" in say(fake, 505, "/subscribe")["text"]
    assert "Write the question" in say(fake, 505, "/subscribe every Monday 9:00")["text"]
    unreadable = say(fake, 505, "/subscribe daily at 8 How much did we make?")
    assert "cannot answer “How much did we make?”" in unreadable["text"]
    huge = say(fake, 505, "/subscribe daily at 8 " + "revenue " * 1250)
    assert "characters long" in huge["text"]
    for _ in range(3):
        assert "Subscribed" in say(fake, 505, "/subscribe daily at 8 revenue")["text"]
    full = say(fake, 505, "/subscribe daily at 8 revenue")
    assert "already holds 3 subscriptions" in full["text"]
    assert "no subscription #999" in say(fake, 505, "/unsubscribe 999")["text"]
    assert "Write the subscription's number" in say(fake, 505, "/unsubscribe x")["text"]
    assert "do not know the time zone" in say(fake, 505, "/timezone Mars/Olympus")["text"]


def test_italian_and_chinese_and_the_chats_time_zone(bot: BotProcess,
                                                      fake: FakeTelegram) -> None:
    assert "Asia/Shanghai" in say(fake, 506, "/timezone Asia/Shanghai")["text"]
    zh = say(fake, 506, "/subscribe 每周一 9点 上个月营收", language="zh")
    assert "每周一 09:00（Asia/Shanghai）" in zh["text"]
    it = say(fake, 507, "/subscribe ogni lunedì alle 9 fatturato del mese scorso",
             language="it")
    assert "Ogni lunedì alle 09:00 Europe/Rome" in it["text"]
    assert "Annulla" in str(it["reply_markup"])


def test_an_admin_lists_every_subscription_others_may_not(bot: BotProcess,
                                                          fake: FakeTelegram) -> None:
    # its own subscription: tests of a module may run in any order, on any worker
    assert "Subscribed" in say(fake, 509, f"/subscribe every Monday 9:00 {LAST_YEAR}")["text"]
    refused = say(fake, 508, "/subscriptions all")
    assert "only ricorda admins" in refused["text"]
    everything = say(fake, ADMIN, "/subscriptions all")
    assert "telegram:509" in everything["text"] and LAST_YEAR in everything["text"]


def ingest_months(data_dir: Path, tmp_path: Path, name: str, **months: float) -> None:
    """Ingest ACME China monthly revenue (`m2026_03=80`) as `ricorda ingest` would."""
    from bot.kb.ingest import ingest_paths
    from bot.settings.model import load_settings
    from bot.wiring.build import build_app

    rows = ["metric,entity,period_type,period,channel,value,unit,source_doc,source_locator"]
    rows += [f"REVENUE,ACME_CN,M,{m[1:5]}-{m[6:]},TOTAL,{v},USD_M,{name}.xlsx,sheet=1"
             for m, v in months.items()]
    path = tmp_path / f"{name}.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    app = build_app(load_settings(data_dir=data_dir, embedder="hashing"))
    try:
        assert not ingest_paths(app, [path]).problems
    finally:
        app.close()


def test_an_alert_fires_once_when_its_condition_becomes_true(
        bot: BotProcess, fake: FakeTelegram, data_dir: Path, tmp_path: Path,
        store: SqlSubscriptionStore) -> None:
    ingest_months(data_dir, tmp_path, "Monthly_Jan_Feb", m2026_01=100, m2026_02=95)
    made = say(fake, 601, "/alert when ACME China revenue falls more than 10% month on month")
    assert "Alert set (#" in made["text"], made["text"]
    assert "95 USD_M (2026-02) against 100 USD_M (2026-01): -5.00%" in made["text"]
    (alert,) = store.alerts("telegram:601")
    assert not alert.triggered
    ingest_months(data_dir, tmp_path, "Monthly_Mar", m2026_03=80)  # -15.79%: true now
    fired = new_messages(fake, 601, 1, count=1)[0]["text"]
    assert fired.startswith(f"Alert (#{alert.id}): when ACME China revenue falls")
    assert "80 USD_M (2026-03) against 95 USD_M (2026-02): -15.79%" in fired
    assert "Monthly_Mar.xlsx, sheet=1; Monthly_Jan_Feb.xlsx, sheet=1" in fired  # sources
    level = say(fake, 602, "/alert when ACME China revenue below 80")
    assert "80 USD_M (2026-03)" in level["text"]
    ingest_months(data_dir, tmp_path, "Monthly_Mar_revised", m2026_03=79)  # still true for 601
    assert "79 USD_M (2026-03)" in new_messages(fake, 602, 1, count=1)[0]["text"]
    fake.wait_for(lambda: all(a.triggered for a in store.alerts("telegram:602")))
    assert len(fake.sent(601)) == 2  # still true: not said again
    ingest_months(data_dir, tmp_path, "Monthly_Apr", m2026_04=90)  # +13.9%: false again
    fake.wait_for(lambda: not store.alerts("telegram:601")[0].triggered)
    ingest_months(data_dir, tmp_path, "Monthly_May", m2026_05=70)  # -22.2%: true again
    again = new_messages(fake, 601, 2, count=1)[0]["text"]
    assert "70 USD_M (2026-05) against 90 USD_M (2026-04): -22.22%" in again
    assert "#" in say(fake, 601, "/alerts")["text"]
    assert "removed" in say(fake, 601, f"/unalert {alert.id}")["text"]
    bad = say(fake, 603, "/alert when revenue is nice")
    assert "Write the condition like this" in bad["text"]
    unknown = say(fake, 603, "/alert when the weather falls more than 10% month on month")
    assert "which one figure" in unknown["text"]


def test_a_chat_whose_clearance_is_revoked_gets_no_restricted_figure_next_time(
        bot: BotProcess, fake: FakeTelegram, clock: Clock, data_dir: Path,
        tmp_path: Path, store: SqlSubscriptionStore) -> None:
    """Clearance is the delivering chat's, checked when the message is built (last in the
    module: it ingests a glossary without the chat's clearance)."""
    from bot.kb.ingest import ingest_paths
    from bot.settings.model import load_settings
    from bot.wiring.build import build_app
    from tests.acme import ACME

    start = MONDAY + dt.timedelta(days=28)  # Monday 26 January 2026, 08:00 in Rome
    clock.set(start)
    prompt = say(fake, 9001, "/subscribe daily at 11 What was ACME Labs revenue in FY2025?")
    assert "Subscribed" in prompt["text"]
    clock.set(start + dt.timedelta(hours=3, seconds=5))  # 11:00:05
    _, cleared = new_messages(fake, 9001, 1)[:2]
    assert "$77M" in cleared["text"]  # the chat is cleared today
    hidden = say(fake, ADMIN, "/subscriptions all")["text"]  # the admin's chat is not cleared
    assert "telegram:9001" in hidden and "ACME Labs" not in hidden
    assert "a question from a cleared chat" in hidden
    env = {k: v for k, v in os.environ.items() if not k.startswith("RICORDA_")}
    env.update(RICORDA_DATA_DIR=str(data_dir), RICORDA_EMBEDDER="hashing")
    cli = subprocess.run([sys.executable, "-m", "bot", "subscriptions", "--deliveries", "50"],
                         capture_output=True, text=True, env=env, timeout=120, check=True)
    assert "[restricted] What was ACME Labs revenue in FY2025?" in cli.stdout  # a cleared viewer
    assert "· sent" in cli.stdout  # each delivery recorded (a 403's error: its own test)
    revoked = tmp_path / "glossary.toml"
    revoked.write_text((ACME / "glossary.toml").read_text(encoding="utf-8")
                       .replace('"telegram:9001", ', ""), encoding="utf-8")
    app = build_app(load_settings(data_dir=data_dir, embedder="hashing"))
    try:
        assert not ingest_paths(app, [revoked]).problems
    finally:
        app.close()
    seen = len(fake.sent(9001))
    clock.set(start + dt.timedelta(days=1, hours=3, seconds=5))  # the next day, 11:00:05
    _, withheld = new_messages(fake, 9001, seen)[:2]
    assert "77" not in withheld["text"] and "Labs" not in withheld["text"], withheld["text"]
    fake.wait_for(lambda: [d.status for d in store.deliveries()
                           if d.subscription.chat == "telegram:9001"] == ["sent", "sent"])


@pytest.mark.parametrize(("language", "words"), [
    ("en", "/subscribe every Monday"), ("it", "/subscribe ogni lunedì"),
    ("zh", "/subscribe 每周一")])
def test_help_says_the_bot_can_write_first(bot: BotProcess, fake: FakeTelegram, language: str,
                                           words: str) -> None:
    chat = 520 + ["en", "it", "zh"].index(language)
    assert words in say(fake, chat, "/help", language=language)["text"]
