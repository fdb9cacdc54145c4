"""Two `ricorda serve` replicas on one PostgreSQL deliver each of many scheduled messages
exactly once, and one killed while it is sending leaves its delivery to the other: nothing
lost, nothing doubled (issue 36). The scheduler's clock is a file the test writes."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.kb.ingest import ingest_paths
from bot.settings.model import load_settings
from bot.wiring.build import build_app
from storage.db import open_database
from storage.subscription_store import SqlSubscriptionStore
from tests.acme import ACME
from tests.conftest import fresh_postgres_schema
from tests.fake_telegram import FakeTelegram
from tests.loopback import free_port
from tests.telegram_harness import BotProcess

pytestmark = pytest.mark.postgres

CHATS = range(900, 940)  # forty chats, one subscription each, all due at the same minute
DUE = dt.datetime(2026, 1, 12, 8, 0, tzinfo=dt.UTC)  # Monday 09:00 in Rome
QUESTION = "What was ACME China revenue in FY2024?"


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with fresh_postgres_schema("ricorda_s") as schema_url:
        app = build_app(load_settings(data_dir=tmp_path_factory.mktemp("loader"),
                                      embedder="hashing", database_url=schema_url))
        try:
            ingest_paths(app, [ACME / "glossary.toml", ACME / "facts.csv"])
        finally:
            app.close()
        yield schema_url


def test_two_replicas_deliver_each_exactly_once_even_when_one_dies_sending(
        url: str, tmp_path: Path) -> None:
    engine = open_database(url)
    store = SqlSubscriptionStore(engine)
    for chat in CHATS:
        assert store.add(platform="telegram", chat=f"telegram:{chat}", user=f"telegram:{chat}",
                         language="en", schedule="daily@09:00", timezone="Europe/Rome",
                         question=QUESTION, next_run_at=DUE, limit=1) is not None
    clock = tmp_path / "clock.txt"
    clock.write_text((DUE - dt.timedelta(minutes=1)).isoformat())
    fake = FakeTelegram().start()
    pair = [BotProcess(tmp_path / name, fake, RICORDA_DATABASE_URL=url,
                       RICORDA_TEST_CLOCK_FILE=str(clock), RICORDA_TIMEZONE="Europe/Rome",
                       RICORDA_METRICS_PORT=str(free_port()), RICORDA_MAINTENANCE_TIME="23:59")
            for name in ("a", "b")]
    try:
        for bot in pair:
            bot.data_dir.mkdir()
            bot.start(ready=lambda bot=bot: "subscriptions: delivering" in bot.output())
        fake.hold("sendMessage")  # each replica stops in the middle of its first delivery
        clock.write_text((DUE + dt.timedelta(seconds=5)).isoformat())
        fake.wait_for(lambda: fake.holding("sendMessage") >= 2, timeout=60)
        pair[0].proc.kill()  # type: ignore[union-attr]  # died with a delivery claimed
        pair[0].proc.wait(30)  # type: ignore[union-attr]
        fake.release("sendMessage")

        def states() -> list[str]:
            return [d.status for d in store.deliveries()]

        # the survivor sends all but the dead replica's one, which waits for its lease …
        fake.wait_for(lambda: states().count("sent") == len(CHATS) - 1, timeout=240)
        assert sorted(states()) == ["sending"] + ["sent"] * (len(CHATS) - 1)
        clock.write_text((DUE + dt.timedelta(minutes=6)).isoformat())  # … run out now
        fake.wait_for(lambda: states() == ["sent"] * len(CHATS), timeout=120)
        per_chat = {chat: [m["text"] for m in fake.sent(chat)] for chat in CHATS}
        doubled = {chat: texts for chat, texts in per_chat.items() if len(texts) != 2}
        assert doubled == {}  # a header and the answer, once each, in every chat
        assert all(texts[0].startswith("Scheduled (#") and "$1,320M" in texts[1]
                   for texts in per_chat.values())
        taken_over = [d for d in store.deliveries() if d.attempts == 2]
        assert len(taken_over) == 1
    finally:
        for bot in pair:
            bot.stop()
        fake.stop()
        engine.dispose()
    log: Any = pair[1].output()
    assert "Traceback" not in log, log[-3000:]
