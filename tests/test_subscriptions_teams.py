"""End to end on Microsoft Teams: `/subscribe …` in a conversation, then the delivery sent to
that conversation through the Bot Connector at the service URL it came from, at its time (the
scheduler's clock is a file the test writes)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.acme import load_acme
from tests.fake_teams import PASSWORD, FakeTeams, text_of
from tests.test_teams_adapter import TeamsBot

MONDAY = dt.datetime(2025, 12, 29, 7, 0, tzinfo=dt.UTC)  # 08:00 in Rome
CONVERSATION = "a:subscriptions-personal-chat"


@pytest.fixture(scope="module")
def clock(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("clock") / "clock.txt"
    path.write_text(MONDAY.isoformat())
    return path


@pytest.fixture(scope="module")
def teams(tmp_path_factory: pytest.TempPathFactory, clock: Path) -> Iterator[TeamsBot]:
    data = load_acme(tmp_path_factory.mktemp("teams-subscriptions"))
    fake = FakeTeams().start()
    with pytest.MonkeyPatch.context() as env:  # the harness passes the environment on
        env.setenv("RICORDA_TEST_CLOCK_FILE", str(clock))
        env.setenv("RICORDA_TIMEZONE", "Europe/Rome")
        bot = TeamsBot(data, fake)
    yield bot
    bot.stop()
    fake.stop()
    assert PASSWORD not in bot.output()


def shown(message: dict) -> str:  # type: ignore[type-arg]
    return str(message.get("text") or "") + text_of(message)


def test_a_teams_subscription_is_sent_to_its_conversation_at_its_time(
        teams: TeamsBot, clock: Path) -> None:
    fake = teams.fake
    question = "What was ACME China revenue last year?"
    activity = fake.message(CONVERSATION, "aad-user-1", f"/subscribe every Monday 9:00 {question}")
    assert teams.post(activity).status_code == 200
    made = fake.wait_for(lambda: fake.messages(CONVERSATION))[0]
    assert "Every Monday at 09:00 Europe/Rome" in shown(made)
    tmp = clock.with_suffix(".tmp")
    tmp.write_text((MONDAY + dt.timedelta(hours=1, seconds=5)).isoformat())
    tmp.replace(clock)
    header, answer = fake.wait_for(lambda: len(fake.messages(CONVERSATION)) >= 3
                                   and fake.messages(CONVERSATION)[1:3], timeout=120)
    assert "Scheduled (#" in shown(header)
    assert "$1,320M" in shown(answer)  # last year on 29 December 2025: FY2024
