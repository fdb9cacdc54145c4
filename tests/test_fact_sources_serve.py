"""End to end: a real `ricorda serve` (on the fake Telegram Bot API) reloads a declared SQL
fact source every `fact_refresh_minutes`: a changed database row is answered after the refresh,
by the bot and by a second process (`ricorda ask`); a source that starts failing keeps its last
good figures and says so in the log and /healthz (issue 37 point 3)."""

from __future__ import annotations

import json
import re
import sqlite3
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.fake_telegram import FakeTelegram
from tests.telegram_harness import BotProcess
from tests.test_cli import ricorda
from tests.test_fact_sources import QUERY, _fill, _sql_glossary
from tests.test_telegram_adapter import ask

REVENUE_2019 = "What was WidgetCo revenue in FY2019?"


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeTelegram]:
    server = FakeTelegram().start()
    yield server
    server.stop()


def _wait_for(condition: Callable[[], object], timeout: float = 240.0) -> object:
    """Poll until `condition()` is truthy (a busy machine may take long), else fail."""
    deadline = time.monotonic() + timeout
    while not (found := condition()):
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.2)
    return found


def test_serve_refreshes_a_sql_source_and_keeps_the_last_good_figures(
        db_url: str, tmp_path: Path, fake: FakeTelegram) -> None:
    """ricorda's own store on SQLite, or on PostgreSQL shared by the bot and the second
    process (replicas); the source is an SQLite file either way."""
    source = tmp_path / "finance.db"
    with sqlite3.connect(source) as conn:
        _fill(lambda sql, params=(): conn.execute(sql, params), "?")
    env = {"FIN_DB_URL": f"sqlite:///{source}"}
    if not db_url.startswith("sqlite"):
        env["RICORDA_DATABASE_URL"] = db_url
    bot_dir = tmp_path / "bot"
    bot_dir.mkdir()
    ricorda(bot_dir, "ingest", str(_sql_glossary(tmp_path, QUERY)), env=env)
    bot = BotProcess(bot_dir, fake, RICORDA_FACT_REFRESH_MINUTES="0.01", **env).start()
    try:
        assert "$1.234M" in ask(fake, 5, REVENUE_2019)["text"]
        with sqlite3.connect(source) as conn:
            conn.execute("UPDATE finance_facts SET value = 1.5 WHERE metric = 'REVENUE' "
                         "AND period = '2019'")
        _wait_for(lambda: re.search(r"refresh: facts finance: .* 1 updated", bot.output()))
        other = tmp_path / ("bot" if "RICORDA_DATABASE_URL" not in env else "other")
        second = json.loads(ricorda(other, "ask", REVENUE_2019, "--json", env=env).stdout)
        assert second["facts"][0]["value_exact"] == "1.5"  # another process sees it
        assert "$1.5M" in ask(fake, 5, REVENUE_2019)["text"]  # and the bot answers it

        with sqlite3.connect(source) as conn:  # the source breaks: the table is renamed away
            conn.execute("ALTER TABLE finance_facts RENAME TO moved")
        _wait_for(lambda: "refresh: finance: the query failed (no such table: finance_facts)"
                  in bot.output())
        port = re.search(r"health and metrics on http://[\d.]+:(\d+)/healthz",
                         bot.output()).group(1)  # type: ignore[union-attr]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as reply:
            health = json.loads(reply.read())
        assert reply.status == 200 and health["fact_sources"].startswith("stale: finance: ")
        assert "$1.5M" in ask(fake, 5, REVENUE_2019)["text"]  # the last good figures stay
    finally:
        bot.stop()
    assert "Traceback" not in bot.output()
