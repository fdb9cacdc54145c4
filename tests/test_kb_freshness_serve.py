"""End to end: a real `ricorda serve` on the fake Telegram Bot API keeps answering from the
knowledge base as another process (`ricorda ingest`) changes it, on SQLite and PostgreSQL.

Before: the bot answered the old number, kept serving a newly restricted entity to an uncleared
chat and kept serving a revoked chat, until it was restarted (observed for 95 s and more).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.settings.checks import KB_CHECK_MS
from tests.acme import ACME
from tests.fake_telegram import FakeTelegram
from tests.kb_change import (
    CHINA_2024,
    FACTS,
    HK_2024,
    HK_RESTRICTED,
    LABS_2025,
    NEW_CN,
    OLD_CN,
    TELEGRAM_9001_REVOKED,
    ingest_process,
    write,
)
from tests.telegram_harness import BotProcess
from tests.test_telegram_adapter import ask, served_by

UNCLEARED, CLEARED = 5, 9001  # private chats: telegram:5, telegram:9001 (cleared in ACME)
REFUSED = "outside what I can answer"


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeTelegram]:
    server = FakeTelegram().start()
    yield server
    server.stop()


def test_serve_answers_fresh_facts_and_permissions_after_another_process_ingests(
    db_url: str, tmp_path: Path, fake: FakeTelegram
) -> None:
    shared = None if db_url.startswith("sqlite") else db_url
    bot_dir, other = tmp_path / "bot", tmp_path / ("bot" if shared is None else "ingest")
    bot_dir.mkdir()
    ingest_process(bot_dir, ACME / "glossary.toml", ACME / "facts.csv", database_url=shared)
    env = {"RICORDA_DATABASE_URL": shared} if shared else {}
    bot = BotProcess(bot_dir, fake, **env).start()
    try:
        assert "1,320" in ask(fake, UNCLEARED, CHINA_2024)["text"]
        assert served_by(ask(fake, UNCLEARED, CHINA_2024)) == "L0a"
        assert "410" in ask(fake, UNCLEARED, HK_2024)["text"]
        assert "77" in ask(fake, CLEARED, LABS_2025)["text"]

        both = HK_RESTRICTED.replace(*_revoked_line())
        glossary = write(tmp_path / "kb", "glossary.toml", both)
        facts = write(tmp_path / "kb", "facts.csv", FACTS.replace(OLD_CN, NEW_CN))
        done = ingest_process(other, glossary, facts, database_url=shared)
        # the documented bound: a question taken up this long after the commit is fresh
        bound = KB_CHECK_MS["postgresql" if shared else "sqlite"] / 1000
        time.sleep(max(0.0, done + bound - time.monotonic()))

        china = ask(fake, UNCLEARED, CHINA_2024)
        assert "1,999" in china["text"] and "1,320" not in china["text"]
        assert served_by(china) == "L0a"  # the cached plan, replayed on the current facts
        hk = ask(fake, UNCLEARED, HK_2024)["text"]  # newly restricted: out of scope here
        assert REFUSED in hk and "410" not in hk and "ACME HK" not in hk
        labs = ask(fake, CLEARED, LABS_2025)["text"]  # the chat's clearance was revoked
        assert REFUSED in labs and "77" not in labs and "ACME Labs" not in labs
    finally:
        bot.stop()
    assert "Traceback" not in bot.output()


def _revoked_line() -> tuple[str, str]:
    """The restricted_chats line before and after telegram:9001 is revoked."""
    old = 'restricted_chats = ["telegram:9001", "slack:C0123"]'
    new = 'restricted_chats = ["slack:C0123"]'
    assert new in TELEGRAM_9001_REVOKED
    return old, new
