"""End to end on Mattermost: `/ricorda subscribe …` by the slash command, then the delivery
posted in the channel at its time (the scheduler's clock is a file the test writes)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.acme import load_acme
from tests.fake_mattermost import TOKEN, FakeMattermost
from tests.loopback import stop_process
from tests.test_mattermost_adapter import MattermostBot

MONDAY = dt.datetime(2025, 12, 29, 7, 0, tzinfo=dt.UTC)  # 08:00 in Rome
CHANNEL, USER = "subschannel000000000000000", "subsuser0000000000000000aa"


@pytest.fixture(scope="module")
def clock(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("clock") / "clock.txt"
    path.write_text(MONDAY.isoformat())
    return path


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory, clock: Path) -> Iterator[MattermostBot]:
    fake = FakeMattermost().start()
    data = load_acme(tmp_path_factory.mktemp("mattermost-subscriptions"))
    running = MattermostBot(data, fake, RICORDA_TEST_CLOCK_FILE=str(clock),
                            RICORDA_TIMEZONE="Europe/Rome")
    yield running
    stop_process(running.proc)
    fake.stop()
    assert TOKEN not in running.output()


def test_a_mattermost_subscription_is_posted_at_its_time(bot: MattermostBot,
                                                         clock: Path) -> None:
    url = bot.base + "/mattermost/command"
    question = "What was ACME China revenue last year?"
    assert bot.fake.slash(url, CHANNEL, USER, f"subscribe every Monday 9:00 {question}"
                          ).status_code == 200
    made = bot.fake.wait_for(lambda: [n for n in bot.fake.notes(USER)
                                      if "Subscribed" in n["message"]])[0]
    assert "Every Monday at 09:00 Europe/Rome" in made["message"]
    (clock.with_suffix(".tmp")).write_text((MONDAY + dt.timedelta(hours=1, seconds=5))
                                           .isoformat())
    clock.with_suffix(".tmp").replace(clock)
    posts = bot.fake.wait_for(lambda: len(bot.fake.posted(CHANNEL)) >= 2
                              and bot.fake.posted(CHANNEL), timeout=120)
    assert posts[0]["message"].startswith("Scheduled") and "Every Monday" in posts[0]["message"]
    assert "1,320" in posts[1]["message"]  # last year on 29 December 2025: FY2024
