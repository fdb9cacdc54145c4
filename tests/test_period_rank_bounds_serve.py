"""Issue 39: a period ranking over a thousand years of months never holds the bot.

Under `ricorda serve` with the Telegram adapter against the fake Bot API on 127.0.0.1: one chat
asks "in which month was China revenue highest?" over 12,000 stored months (each ranked month is
an exact, cited lookup, so the ranking is counted against the per-question lookup bound), and
another chat asks a plain question right behind it. Both get their answer; the ranking says
which periods it covered and how to rank others.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fake_telegram import FakeTelegram
from tests.period_companies import ingest_company
from tests.telegram_harness import BotProcess as TelegramBot
from tests.test_period_rank_bounds_cli import GLOSSARY, _facts

LONGEST = "in which month was China revenue highest?"
PLAIN = "China revenue in March 2026?"


@pytest.fixture(scope="module")
def telegram(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeTelegram]:
    data = tmp_path_factory.mktemp("millennium") / "data"
    ingest_company(data, "millennium", GLOSSARY, _facts(1000))  # 12,000 months
    fake = FakeTelegram().start()
    process = TelegramBot(data, fake).start()
    yield fake
    process.stop()
    fake.stop()


def test_a_ranking_of_twelve_thousand_months_holds_no_other_chat(
    telegram: FakeTelegram,
) -> None:
    fake = telegram
    ranking, other = 501, 502
    fake.inject(fake.text(ranking, ranking, LONGEST))
    fake.inject(fake.text(other, other, PLAIN))
    plain = fake.wait_for(lambda: fake.sent(other), timeout=120)[0]
    assert "€" in plain["text"] and "2026-03" in plain["text"], plain["text"]
    ranked = fake.wait_for(lambda: fake.sent(ranking), timeout=120)[0]["text"]
    # the most recent months the lookup bound allows, said, never a silent cut
    assert "latest 200 of 12,000 periods" in ranked, ranked
    assert "2009-08–2026-03" in ranked
