"""Faults: the user always gets an honest answer or an apology, the bot keeps running, and after
recovery nothing recorded is missing.

Each fault is real where it can be: a misbehaving LLM server, a vector store on a closed port, a
PostgreSQL connection cut by a TCP proxy, a Bot API answering 5xx, a bot process SIGKILLed while
its answer is on the wire. Only the embedder failure is injected in-process.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sqlalchemy import select

from bot.kb.ingest import ingest_paths
from bot.models.embedders import HASHING_THRESHOLDS
from bot.settings.model import load_settings
from bot.wiring.build import build_app
from core.contracts.types import Request
from storage.db import open_database
from storage.delivery_log import SqlDeliveryLog
from storage.tables import MessageMapRow
from tests.acme import ACME, load_acme
from tests.fake_llm import FakeLLM
from tests.fake_slack import FakeSlack
from tests.fake_telegram import FakeTelegram
from tests.loopback import free_port
from tests.slack_harness import BotProcess as SlackBot
from tests.slack_harness import text_of
from tests.tcp_proxy import TcpProxy
from tests.telegram_harness import BotProcess as TelegramBot

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "bot" / "demo"
NUMBER = "What was Orbis China revenue in FY2024?"
WHY = "What drove the decline of the online channel?"
CHINA_2024 = "What was ACME China revenue in FY2024?"
METRICS = {"RICORDA_METRICS_PORT": "0"}  # any free port: tests may run side by side


@pytest.fixture(scope="module")
def demo_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo knowledge base (facts and documents) on SQLite and embedded Chroma."""
    folder = tmp_path_factory.mktemp("demo")
    app = build_app(load_settings(data_dir=folder, embedder="hashing"))
    ingest_paths(app, [DEMO / "glossary.toml", DEMO / "facts.csv", DEMO / "docs"])
    app.close()
    return folder


@pytest.fixture(scope="module")
def slack() -> Iterator[FakeSlack]:
    server = FakeSlack().start()
    yield server
    server.stop()


def ask(bot: SlackBot, fake: FakeSlack, channel: str, question: str,
        timeout: float = 30) -> str:
    before = len(fake.posted(channel))
    assert bot.sender.mention(channel, "U0000301", question).status_code == 200
    return text_of(fake.wait_for(lambda: fake.posted(channel)[before:], timeout=timeout)[0])


def alive(bot: SlackBot | TelegramBot) -> bool:
    return bot.proc is not None and bot.proc.poll() is None


# -- the LLM ---------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["slow", "drop"])
def test_llm_timeout_or_crash_still_gives_a_cited_answer(demo_dir: Path, slack: FakeSlack,
                                                          mode: str) -> None:
    llm = FakeLLM(mode, delay=6).start()
    bot = SlackBot(demo_dir, slack, RICORDA_LLM="openai", RICORDA_LLM_BASE_URL=llm.url,
                   RICORDA_LLM_TIMEOUT_S="1", **METRICS)
    try:
        bot.start()
        started = time.monotonic()
        shown = ask(bot, slack, f"C03{mode[:4].upper()}1", WHY)
        assert llm.requests >= 1  # the LLM was really asked, and failed
        assert time.monotonic() - started < 15  # the timeout bounds the wait
        assert "[1]" in shown and "*Sources*" in shown, shown  # the cited snippets, extractively
        assert "560.4" in ask(bot, slack, f"C03{mode[:4].upper()}2", NUMBER)
        assert alive(bot)
    finally:
        bot.stop()
        llm.stop()
    assert "Traceback" not in bot.output()


# -- the embedder ----------------------------------------------------------------------------


class BrokenEmbedder:
    """A model that crashes when it runs: its calibrated thresholds are still known (they are
    the embedder's constants), only `embed` fails."""

    name, dimension = "broken", 256
    thresholds = HASHING_THRESHOLDS

    def embed(self, texts: Any) -> np.ndarray:
        raise RuntimeError("the embedding model crashed")


def test_embedder_failure_leaves_the_planner_answering(tmp_path: Path) -> None:
    app = build_app(load_settings(data_dir=tmp_path, embedder="hashing"))
    try:
        ingest_paths(app, [ACME / "glossary.toml", ACME / "facts.csv"])
        # what every cached lookup will use now
        app.core.documents.__dict__["embedder"] = BrokenEmbedder()
        for question in (CHINA_2024, "ACME China revenue FY2024, please", CHINA_2024):
            answer = app.core.pipeline.answer(Request(text=question, chat="console:f", user="u"))
            assert [f.fact.value for f in answer.facts if f.fact] == [1320.0], answer.text
            assert answer.served_by in ("planner", "L0a")
        assert len(app.storage.turns.recent_turns(10, chat="console:f")) == 3
    finally:
        app.close()


# -- the vector store ------------------------------------------------------------------------


def test_vector_store_down_degrades_to_keyword_search(demo_dir: Path, slack: FakeSlack) -> None:
    bot = SlackBot(demo_dir, slack, RICORDA_CHROMA_URL=f"http://127.0.0.1:{free_port()}",
                   **METRICS)
    try:
        bot.start()
        shown = ask(bot, slack, "C0000310", WHY)
        assert "[1]" in shown and "*Sources*" in shown, shown  # BM25 alone still finds and cites
        assert "560.4" in ask(bot, slack, "C0000311", NUMBER)
        assert alive(bot)
    finally:
        bot.stop()


# -- the database ----------------------------------------------------------------------------


@pytest.mark.postgres
def test_database_outage_gets_an_apology_then_normal_answers(
        postgres_schema_url: str, slack: FakeSlack, tmp_path: Path) -> None:
    loader = build_app(load_settings(data_dir=tmp_path / "loader", embedder="hashing",
                                     database_url=postgres_schema_url))
    proxy = TcpProxy(("127.0.0.1", 5432)).start()
    url = postgres_schema_url.replace("127.0.0.1:5432", f"127.0.0.1:{proxy.port}")
    (tmp_path / "bot").mkdir()
    bot = SlackBot(tmp_path / "bot", slack, RICORDA_DATABASE_URL=url, **METRICS)
    channel, hk = "C0000320", "What was ACME HK revenue in FY2024?"
    try:
        ingest_paths(loader, [ACME / "glossary.toml", ACME / "facts.csv"])
        bot.start()
        assert "1,320" in ask(bot, slack, channel, CHINA_2024)
        proxy.cut()  # every pooled connection reset, new ones refused
        during = ask(bot, slack, channel, hk)
        assert "410" not in during and "sorry" in during.lower(), during
        proxy.restore()
        assert "410" in ask(bot, slack, channel, hk)
        assert "1,320" in ask(bot, slack, channel, CHINA_2024)
        assert alive(bot)
        turns = loader.storage.turns.recent_turns(100, chat=f"slack:{channel}")
        # every answer the user saw is recorded; the apology is not a turn
        assert sorted(t.question for t in turns) == sorted([CHINA_2024, hk, CHINA_2024])
    finally:
        bot.stop()
        proxy.cut()
        loader.close()


def test_a_delivery_is_claimed_exactly_once(db_url: str) -> None:
    """Found by the replica test: on PostgreSQL every claim came back False (rowcount -1), so
    a bot on PostgreSQL ignored every message as a redelivery."""
    engine = open_database(db_url)
    try:
        log = SqlDeliveryLog(engine)
        assert [log.first_time("slack", "Ev1"), log.first_time("slack", "Ev1"),
                log.first_time("telegram", "Ev1")] == [True, False, True]
    finally:
        engine.dispose()


# -- the Bot API and the process -------------------------------------------------------------


class FaultyTelegram(FakeTelegram):
    """The fake Bot API, plus a 5xx once and a sendMessage held open (to kill the bot then)."""

    def __init__(self) -> None:
        super().__init__()
        self.server_errors: list[int] = []
        self.hold_send = 0.0
        self.send_arrived = threading.Event()

    def _handle(self, method: str, params: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if method == "sendMessage":
            if self.server_errors:
                status = self.server_errors.pop(0)
                return status, {"ok": False, "error_code": status, "description": "Bad Gateway"}
            if self.hold_send:
                self.send_arrived.set()
                time.sleep(self.hold_send)
        return super()._handle(method, params)


@pytest.fixture
def acme_dir(tmp_path: Path) -> Path:
    return load_acme(tmp_path)


def test_bot_api_5xx_then_sigkill_mid_answer_lose_nothing(acme_dir: Path) -> None:
    fake = FaultyTelegram().start()
    bot = TelegramBot(acme_dir, fake, **METRICS)
    try:
        bot.start()
        fake.server_errors.append(502)
        fake.inject(fake.text(31, 31, CHINA_2024))
        fake.wait_for(lambda: fake.sent(31), timeout=20)
        assert "1,320" in fake.sent(31)[0]["text"]  # retried after the 502
        fake.hold_send = 5.0
        fake.inject(fake.text(32, 32, "What was ACME HK revenue in FY2024?"))
        assert fake.send_arrived.wait(20)
        assert bot.proc is not None
        os.kill(bot.proc.pid, signal.SIGKILL)  # answered, not yet mapped to its message
        bot.proc.wait(5)
        fake.hold_send = 0.0
        bot.start()
        fake.inject(fake.text(33, 33, "What was ACME Italia revenue in 2025?"))
        fake.wait_for(lambda: fake.sent(33), timeout=20)
        assert alive(bot)
    finally:
        bot.stop()
        fake.stop()
    app = build_app(load_settings(data_dir=acme_dir, embedder="hashing"))
    try:
        recorded = {t.chat for t in app.storage.turns.recent_turns(100)}
        assert {"telegram:31", "telegram:32", "telegram:33"} <= recorded  # the killed one too
        table = MessageMapRow.__table__  # type: ignore[attr-defined]
        with app.storage.engine.connect() as conn:
            mapped = {row.chat for row in conn.execute(select(table.c.chat))}
        assert {"telegram:31", "telegram:33"} <= mapped
    finally:
        app.close()
