"""Two `ricorda serve` replicas behind one Slack app (and one Telegram bot), sharing PostgreSQL
and a Chroma server.

Slack HTTP mode and Telegram webhooks: each replica listens on its own port, as two backends
behind a load balancer would. Both platforms deliver at least once, so the same signed event
(same event_id) or the same update (same update_id) reaching both must be answered once;
feedback given through either replica changes the one shared fast path; the nightly job runs
once however many replicas start it. The test starts PostgreSQL's schema, the Chroma server
and the replicas, and stops every one of them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from bot.kb.ingest import ingest_paths
from bot.settings.model import load_settings
from bot.wiring.build import build_app
from tests.chroma_server import ChromaServer
from tests.conftest import fresh_postgres_schema
from tests.fake_slack import BOT_USER, FakeSlack
from tests.fake_telegram import FakeTelegram
from tests.loopback import free_port, post_when_up
from tests.slack_harness import BotProcess, text_of
from tests.telegram_harness import BotProcess as TelegramBot
from tests.test_slack_adapter import served_by, wait_until

pytestmark = pytest.mark.postgres

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "bot" / "demo"
NUMBER = "What was Orbis China revenue in FY2024?"
WHY = "What drove the decline of the online channel?"


@pytest.fixture(scope="module")
def schema_url() -> Iterator[str]:
    """One PostgreSQL schema for the whole cluster of replicas."""
    with fresh_postgres_schema("ricorda_r") as url:
        yield url


@pytest.fixture(scope="module")
def chroma(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChromaServer]:
    server = ChromaServer(tmp_path_factory.mktemp("chroma") / "db")
    try:
        server.start()
    except RuntimeError as exc:
        pytest.skip(f"no Chroma server: {exc}")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def shared_env(schema_url: str, chroma: ChromaServer) -> dict[str, str]:
    return {"RICORDA_DATABASE_URL": schema_url, "RICORDA_CHROMA_URL": chroma.url,
            "RICORDA_MAINTENANCE_TIME": "23:59"}


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory, shared_env: dict[str, str]) -> Iterator[Any]:
    """The demo knowledge base, loaded once into the shared database and vector store."""
    app = build_app(load_settings(data_dir=tmp_path_factory.mktemp("loader"), embedder="hashing",
                                  database_url=shared_env["RICORDA_DATABASE_URL"],
                                  chroma_url=shared_env["RICORDA_CHROMA_URL"]))
    ingest_paths(app, [DEMO / "glossary.toml", DEMO / "facts.csv", DEMO / "docs"])
    yield app
    app.close()


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeSlack]:
    server = FakeSlack().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def replicas(tmp_path_factory: pytest.TempPathFactory, fake: FakeSlack, db: Any,
             shared_env: dict[str, str]) -> Iterator[tuple[BotProcess, BotProcess]]:
    """Replicas A and B: separate processes and data dirs, one database, one Chroma."""
    pair = tuple(BotProcess(tmp_path_factory.mktemp(name), fake, **shared_env,
                            RICORDA_METRICS_PORT=str(free_port()))  # one host, two ports
                 for name in ("replica_a", "replica_b"))
    try:
        for bot in pair:
            bot.start()
        yield pair  # type: ignore[misc]
    finally:
        for bot in pair:
            bot.stop()
    for bot in pair:
        assert "Traceback" not in bot.output(), bot.output()[-3000:]


def mention(channel: str, ts: str, question: str) -> dict[str, Any]:
    return {"type": "app_mention", "user": "U0000201", "channel": channel,
            "text": f"<@{BOT_USER}> {question}", "ts": ts}


def ask(bot: BotProcess, fake: FakeSlack, channel: str, question: str) -> dict[str, Any]:
    before = len(fake.posted(channel))
    assert bot.sender.mention(channel, "U0000201", question).status_code == 200
    return fake.wait_for(lambda: fake.posted(channel)[before:], timeout=30)[0]


def test_an_event_delivered_to_both_replicas_is_answered_once(
        replicas: tuple[BotProcess, BotProcess], fake: FakeSlack) -> None:
    a, b = replicas
    for n in range(5):  # several rounds: whichever replica claims first, the other stays quiet
        channel, event_id = f"C02000{n:02d}", f"EvREPLICA{n:04d}"
        event = mention(channel, f"17000002{n:02d}.000100", NUMBER)
        assert a.sender.event(event, event_id=event_id).status_code == 200
        assert b.sender.event(event, event_id=event_id).status_code == 200
        reply = fake.wait_for(lambda ch=channel: fake.posted(ch), timeout=30)[0]
        assert "560.4" in text_of(reply)
    time.sleep(1.0)  # a second answer would have arrived by now
    for n in range(5):
        assert len(fake.posted(f"C02000{n:02d}")) == 1


def test_feedback_on_one_replica_reaches_the_shared_fast_path(
        replicas: tuple[BotProcess, BotProcess], fake: FakeSlack, db: Any) -> None:
    a, b = replicas
    channel, question = "C0000210", "What was Orbis Italy revenue in FY2025?"
    first, second = ask(a, fake, channel, question), ask(a, fake, channel, question)
    assert (served_by(first), served_by(second)) == ("planner", "L0a")
    assert "352.6" in text_of(second)
    assert served_by(ask(b, fake, channel, question)) == "L0a"  # B sees A's cached plan
    turn: list[str | None] = [None]

    def mapped() -> str | None:
        turn[0] = db.storage.turns.turn_for_message("slack", f"slack:{channel}", second["ts"])
        return turn[0]

    wait_until(mapped)
    fake.react(channel, second["ts"], "U0000201", "x")
    assert b.sender.reaction(channel, second["ts"], "U0000201", "x").status_code == 200
    wait_until(lambda: [f.verdict for f in db.storage.turns.feedback_for(turn[0])] == ["negative"])
    # B stored the verdict, then put the rejection marker in place of the plan
    # (core.fastpath.rejections)
    wait_until(lambda: "rejected" in [e.origin for e in db.storage.fastpaths.list()])
    assert served_by(ask(a, fake, channel, question)) == "planner"  # A forgot it too


def test_a_narrative_question_is_answered_with_citations_by_each_replica(
        replicas: tuple[BotProcess, BotProcess], fake: FakeSlack) -> None:
    for bot, channel in zip(replicas, ("C0000220", "C0000221"), strict=True):
        shown = text_of(ask(bot, fake, channel, WHY))
        assert "[1]" in shown and "*Sources*" in shown, shown


def test_nightly_maintenance_started_by_two_replicas_runs_once(
        shared_env: dict[str, str], db: Any, tmp_path: Path) -> None:
    script = ("from bot.wiring.build import build_app; "
              "from bot.settings.model import load_settings; "
              "import json, sys; app = build_app(load_settings()); "
              "r = app.core.maintenance.maintenance.run_nightly(); "
              "print(json.dumps({'skipped': r.skipped, 'run_id': r.run_id}))")
    env = {**os.environ, **shared_env, "RICORDA_EMBEDDER": "hashing", "HF_HUB_OFFLINE": "1"}
    procs = [subprocess.Popen([sys.executable, "-c", script], cwd=REPO, text=True,
                              env={**env, "RICORDA_DATA_DIR": str(tmp_path / f"m{i}")},
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for i in range(2)]
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        results.append(json.loads(out.strip().splitlines()[-1]))
    assert sorted(r["skipped"] is None for r in results) == [False, True], results
    with db.storage.engine.connect() as conn:
        runs = conn.execute(text("SELECT run_id FROM maintenance_runs")).all()
    ran = next(r["run_id"] for r in results if r["skipped"] is None)
    assert [r.run_id for r in runs] == [ran]


def test_a_telegram_update_posted_to_both_webhook_replicas_is_answered_once(
        db: Any, shared_env: dict[str, str], tmp_path: Path) -> None:
    """Telegram retries a webhook delivery it saw no 200 for; behind a load balancer the retry
    may reach the other replica while the first is still answering."""
    fake = FakeTelegram().start()
    public = f"http://127.0.0.1:{free_port()}/telegram"  # what a load balancer would expose
    secret = "replica-hook-secret"
    ports = [free_port(), free_port()]
    pair = [TelegramBot(tmp_path / name, fake, **shared_env, RICORDA_TELEGRAM_WEBHOOK_URL=public,
                        RICORDA_TELEGRAM_WEBHOOK_PORT=str(port),
                        RICORDA_TELEGRAM_WEBHOOK_SECRET=secret,
                        RICORDA_METRICS_PORT=str(free_port()))
            for name, port in zip(("tg_a", "tg_b"), ports, strict=True)]
    try:
        for n, bot in enumerate(pair, start=1):
            bot.data_dir.mkdir()
            bot.start(ready=lambda n=n: len(fake.calls("setWebhook")) >= n)
        hooks = [f"http://127.0.0.1:{port}/telegram" for port in ports]
        headers = {"Content-Type": "application/json",
                   "X-Telegram-Bot-Api-Secret-Token": secret}
        for n in range(5):
            chat = 300 + n
            update = json.dumps({"update_id": 880000 + n, **fake.text(chat, chat, NUMBER)})
            for hook in hooks if n % 2 else reversed(hooks):
                assert post_when_up(hook, update, headers).status_code == 200
            reply = fake.wait_for(lambda c=chat: fake.sent(c), timeout=30)[0]
            assert "560.4" in reply["text"]
        time.sleep(1.0)  # a second answer would have arrived by now
        assert [len(fake.sent(300 + n)) for n in range(5)] == [1] * 5
        again = json.dumps({"update_id": 880100, **fake.text(310, 310, NUMBER)})
        assert post_when_up(hooks[1], again, headers).status_code == 200
        cached = fake.wait_for(lambda: fake.sent(310), timeout=30)[0]
        assert "L0a" in cached["text"]  # B serves the plan A's answers registered
    finally:
        for bot in pair:
            bot.stop()
        fake.stop()
    for bot in pair:
        log = "".join(path.read_text(errors="replace") for path in bot.logs)
        assert "Traceback" not in log and secret not in log, log[-3000:]

