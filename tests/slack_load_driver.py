"""Many concurrent Slack channels through the real `ricorda serve` (HTTP mode) on SQLite.

The fake Web API runs in its own process (`python -m tests.fake_slack`). Each round every
channel mentions the bot once (a signed `app_mention`, as Slack sends it) and waits for its
answer; afterwards every channel adds a 👍 reaction to one answer. Checked as for Telegram
(tests/load_driver.py): each question answered exactly once (the answer is posted in the
question's thread), every reaction recorded, no "database is locked" in the bot's log.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from tests.fake_slack import BOT_TOKEN, BOT_USER, TEAM
from tests.load_driver import QUESTIONS, LoadReport
from tests.loopback import free_port
from tests.slack_harness import SIGNING_SECRET, sign

REPO = Path(__file__).resolve().parents[1]


def _event(event_id: str, event: dict[str, Any]) -> str:
    return json.dumps({"token": "unused", "team_id": TEAM, "api_app_id": "A0000001",
                       "type": "event_callback", "event_id": event_id,
                       "event_time": int(time.time()), "event": event})


def run_slack_load(data_dir: Path, *, chats: int, rounds: int,
                   timeout: float = 600) -> LoadReport:
    from bot.kb.ingest import ingest_paths
    from bot.settings.model import load_settings
    from bot.wiring.build import build_app
    from tests.acme import ACME

    app = build_app(load_settings(data_dir=data_dir, embedder="hashing"))
    ingest_paths(app, [ACME / "glossary.toml", ACME / "facts.csv"])
    app.close()
    fake = subprocess.Popen([sys.executable, "-m", "tests.fake_slack"], cwd=REPO,
                            stdout=subprocess.PIPE, text=True)
    assert fake.stdout is not None
    fake_url = fake.stdout.readline().strip()
    port = free_port()
    log = data_dir / "slack-load.log"
    env = {**os.environ, "RICORDA_DATA_DIR": str(data_dir), "RICORDA_EMBEDDER": "hashing",
           "RICORDA_SLACK_BOT_TOKEN": BOT_TOKEN, "RICORDA_SLACK_SIGNING_SECRET": SIGNING_SECRET,
           "RICORDA_SLACK_API_URL": f"{fake_url}/api/", "RICORDA_SLACK_HOST": "127.0.0.1",
           "RICORDA_SLACK_PORT": str(port), "RICORDA_REFERENCE_DATE": "2026-06-15",
           "RICORDA_LOG_LEVEL": "WARNING", "HF_HUB_OFFLINE": "1",
           "RICORDA_METRICS_PORT": "0"}  # any free port
    with log.open("wb") as out:
        bot = subprocess.Popen([sys.executable, "-m", "bot", "serve"], cwd=REPO, env=env,
                               stdout=out, stderr=subprocess.STDOUT)
    try:
        _wait_healthy(port)
        report = asyncio.run(_drive(f"http://127.0.0.1:{port}/slack/events", fake_url, chats,
                                    rounds, timeout, data_dir))
    finally:
        bot.terminate()
        bot.wait(30)
        fake.terminate()
        fake.wait(5)
    app = build_app(load_settings(data_dir=data_dir, embedder="hashing"))
    try:
        report.feedback_recorded = sum(
            1 for channel, ts in report.reacted  # type: ignore[attr-defined]
            if (turn := app.storage.turns.turn_for_message("slack", f"slack:{channel}", ts))
            and any(f.verdict == "positive" for f in app.storage.turns.feedback_for(turn)))
    finally:
        app.close()
    lines = log.read_text(errors="replace").splitlines()
    report.locked_lines = [x for x in lines if "database is locked" in x]
    report.errors = [x for x in lines if " ERROR " in x or "Traceback" in x]
    return report


def _one_answer_per_channel(data_dir: Path) -> list[tuple[str, str]]:
    """(channel, ts) of one answer per channel, read from the bot's message mapping."""
    from sqlalchemy import select

    from storage.db import make_engine, sqlite_url
    from storage.tables import MessageMapRow

    table = MessageMapRow.__table__  # type: ignore[attr-defined]
    engine = make_engine(sqlite_url(data_dir))
    firsts: dict[str, str] = {}
    try:
        with engine.connect() as conn:
            for chat, ts in conn.execute(select(table.c.chat, table.c.message_id)
                                         .where(table.c.platform == "slack")):
                channel = chat.removeprefix("slack:")
                firsts[channel] = min(firsts.get(channel, ts), ts)
    finally:
        engine.dispose()
    return sorted(firsts.items())


def _wait_healthy(port: int, timeout: float = 300) -> None:  # generous: a busy machine
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz").status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise TimeoutError("the Slack bot did not start")


async def _drive(url: str, fake_url: str, chats: int, rounds: int, timeout: float,
                 data_dir: Path) -> LoadReport:
    asked: dict[tuple[str, str], float] = {}
    limits = httpx.Limits(max_connections=chats, max_keepalive_connections=chats)
    async with httpx.AsyncClient(timeout=60, limits=limits) as client:

        async def post(body: str) -> None:
            headers = {"Content-Type": "application/json", **sign(body)}
            response = await client.post(url, content=body, headers=headers)
            assert response.status_code == 200, response.text

        async def count() -> int:
            r = await client.get(f"{fake_url}/_fake/calls", params={"method": "chat.postMessage"})
            return len(r.json())

        started = time.monotonic()
        deadline = started + timeout
        for r in range(rounds):
            bodies = []
            for c in range(chats):
                channel, ts = f"CL{c:07d}", f"{1_800_000_000 + r}.{c:06d}"
                asked[(channel, ts)] = time.monotonic()
                bodies.append(_event(f"EvLOAD{r:05d}{c:05d}", {
                    "type": "app_mention", "user": f"UL{c:07d}", "channel": channel,
                    "text": f"<@{BOT_USER}> {QUESTIONS[(r + c) % len(QUESTIONS)]}", "ts": ts}))
            await asyncio.gather(*(post(b) for b in bodies))
            while await count() < (r + 1) * chats and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
        elapsed = time.monotonic() - started
        reacted = _one_answer_per_channel(data_dir)
        await asyncio.gather(*(post(_event(f"EvREACT{i:07d}", {
            "type": "reaction_added", "user": f"UL{i:07d}", "reaction": "+1",
            "item_user": BOT_USER, "item": {"type": "message", "channel": channel, "ts": ts},
            "event_ts": f"{time.time():.6f}"})) for i, (channel, ts) in enumerate(reacted)))
        await asyncio.sleep(2.0)  # late duplicates and reactions land meanwhile
        posts = (await client.get(f"{fake_url}/_fake/calls",
                                  params={"method": "chat.postMessage"})).json()
    counts = Counter((p["params"].get("channel"), p["params"].get("thread_ts")) for p in posts)
    latencies = [(p["received"] - asked[key]) * 1000 for p in posts
                 if (key := (p["params"].get("channel"), p["params"].get("thread_ts"))) in asked]
    report = LoadReport(
        chats=chats, questions=len(asked), answered=sum(1 for k in asked if counts[k] >= 1),
        lost=[k for k in asked if counts[k] == 0],  # type: ignore[misc]
        duplicated=[k for k in asked if counts[k] > 1],  # type: ignore[misc]
        reactions=len(reacted), feedback_recorded=0, locked_lines=[], errors=[],
        elapsed_s=elapsed, latencies_ms=latencies)
    report.reacted = reacted  # type: ignore[attr-defined]
    return report
