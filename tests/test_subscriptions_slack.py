"""End to end on Slack: `/ricorda subscribe …` in a channel, then the delivery posted in that
channel at its time, with the period of the delivery's day; `/ricorda unsubscribe N` stops it.
The scheduler's clock is a file the test writes (RICORDA_TEST_CLOCK_FILE)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.acme import load_acme
from tests.fake_slack import BOT_TOKEN, FakeSlack
from tests.slack_harness import BotProcess, text_of

MONDAY = dt.datetime(2025, 12, 29, 7, 0, tzinfo=dt.UTC)  # 08:00 in Rome
CHANNEL, USER = "C0000701", "U0000701"


@pytest.fixture(scope="module")
def clock(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("clock") / "clock.txt"
    path.write_text(MONDAY.isoformat())
    return path


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeSlack]:
    server = FakeSlack().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory, fake: FakeSlack,
        clock: Path) -> Iterator[BotProcess]:
    data = load_acme(tmp_path_factory.mktemp("slack-subscriptions"))
    process = BotProcess(data, fake, RICORDA_TEST_CLOCK_FILE=str(clock),
                         RICORDA_TIMEZONE="Europe/Rome").start()
    yield process
    process.stop()
    assert BOT_TOKEN not in process.output()


def set_clock(path: Path, when: dt.datetime) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(when.isoformat())
    tmp.replace(path)


def command(bot: BotProcess, fake: FakeSlack, text: str) -> str:
    """`/ricorda <text>` in the channel; the reply only the user sees (its text)."""
    before = len(fake.ephemeral(USER))
    assert bot.sender.command(CHANNEL, USER, text).status_code == 200
    reply: dict[str, Any] = fake.wait_for(lambda: fake.ephemeral(USER)[before:])[0]
    return str(reply.get("text", "")) + text_of(reply, buttons=True)


def test_a_slack_subscription_is_posted_at_its_time_and_unsubscribe_stops_it(
        bot: BotProcess, fake: FakeSlack, clock: Path) -> None:
    made = command(bot, fake, "subscribe every Monday 9:00 What was ACME China revenue last year?")
    assert "Every Monday at 09:00 Europe/Rome" in made and "Cancel" in made
    set_clock(clock, MONDAY + dt.timedelta(hours=1, seconds=5))  # 09:00:05 in Rome
    posted = fake.wait_for(lambda: len(fake.posted(CHANNEL)) >= 2 and fake.posted(CHANNEL),
                           timeout=120)
    header, answer = (text_of(m) or m.get("text", "") for m in posted[:2])
    assert "Scheduled (#" in header
    assert "$1,320M" in answer  # last year on 29 December 2025: FY2024
    number = header.split("(#", 1)[1].split(")", 1)[0]
    assert "cancelled" in command(bot, fake, f"unsubscribe {number}")
    assert "no subscriptions" in command(bot, fake, "subscriptions")
