"""Drive many concurrent chats through the real Telegram adapter and check nothing is lost.

The fake Bot API runs in its own process (`python -m tests.fake_telegram`) so it never shares
the GIL with the bot; the bot is the Application `ricorda serve` builds, polling the fake, on
SQLite, with Telegram's flood limits lifted (they would cap sending at 30 messages/s and
measure Telegram, not ricorda). Each round every chat asks one question and waits for its
answer; afterwards every chat reacts 👍 to one of its answers. Checked: each question answered
exactly once (replies are matched by the message they reply to), every reaction recorded as
feedback, no "database is locked" anywhere in the bot's log. Used by tests/test_load.py
(scaled down) and bench/bench_load.py (full size).
"""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import select

from bench.benchkit import quantile
from tests.fake_telegram import BOT

REPO = Path(__file__).resolve().parents[1]
QUESTIONS = [  # cached after their first answer, plus ones the planner answers each time anew
    "What was ACME China revenue in FY2024?",
    "What was ACME HK revenue in FY2025?",
    "What was ACME Italia revenue in FY2025?",
    "What was ACME Group revenue in FY2023?",
    "What was ACME China revenue in H1 2025?",
    "What was ACME HK revenue in FY2024?",
    "What was ACME Group revenue in FY2025?",
    "What was revenue?",
]
FIRST_CHAT = -5000


@dataclass
class LoadReport:
    chats: int
    questions: int
    answered: int
    lost: list[tuple[int, int]]  # (chat, message id) never answered
    duplicated: list[tuple[int, int]]  # answered more than once
    reactions: int
    feedback_recorded: int
    locked_lines: list[str]
    errors: list[str]  # ERROR log lines
    elapsed_s: float
    latencies_ms: list[float] = field(repr=False, default_factory=list)

    def pct(self, q: int) -> float:
        return quantile(self.latencies_ms, q)

    def text(self) -> str:
        return (f"{self.chats} chats, {self.questions} questions in {self.elapsed_s:.1f} s "
                f"({self.questions / self.elapsed_s:.0f}/s): answered {self.answered}, "
                f"lost {len(self.lost)}, duplicated {len(self.duplicated)}; reactions "
                f"{self.reactions}, feedback recorded {self.feedback_recorded}; "
                f"latency p50 {self.pct(50):.1f} ms, p99 {self.pct(99):.1f} ms; "
                f"'database is locked' lines {len(self.locked_lines)}, errors {len(self.errors)}")


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if record.exc_info:
            text += "\n" + logging.Formatter().formatException(record.exc_info)
        self.lines.append(f"{record.levelname} {record.name}: {text}")


def start_fake() -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-m", "tests.fake_telegram"], cwd=REPO,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


def _group(chat: int) -> dict[str, Any]:
    return {"id": chat, "type": "supergroup", "title": f"group{chat}"}


def _message(chat: int, message_id: int, text: str) -> dict[str, Any]:
    """A mention in a group: the bot's answer replies to it, which pairs them up."""
    handle = f"@{BOT['username']}"
    return {"message": {
        "message_id": message_id, "date": int(time.time()), "text": f"{handle} {text}",
        "entities": [{"type": "mention", "offset": 0, "length": len(handle)}],
        "chat": _group(chat),
        "from": {"id": -chat, "is_bot": False, "first_name": "u", "language_code": "en"}}}


def _reaction(chat: int, message_id: int) -> dict[str, Any]:
    return {"message_reaction": {
        "chat": _group(chat), "message_id": message_id,
        "user": {"id": -chat, "is_bot": False, "first_name": "u"}, "date": int(time.time()),
        "old_reaction": [], "new_reaction": [{"type": "emoji", "emoji": "👍"}]}}


def _replied_to(params: dict[str, Any]) -> int | None:
    reply = params.get("reply_parameters") or {}
    value = reply.get("message_id") if isinstance(reply, dict) else None
    return int(value or params.get("reply_to_message_id") or 0) or None


def run_load(data_dir: Path, *, chats: int, rounds: int, timeout: float = 600) -> LoadReport:
    """Build the bot on SQLite in `data_dir`, run the load, and report what happened."""
    from adapters.telegram import Limits
    from bot.kb.ingest import ingest_paths
    from bot.serve.telegram import telegram_application
    from bot.settings.model import load_settings
    from bot.wiring.build import build_app
    from tests.acme import ACME
    from tests.fake_telegram import TOKEN

    fake, url = start_fake()
    handler = _Lines()
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    logging.getLogger("httpx").setLevel(logging.WARNING)
    app = None
    try:
        settings = load_settings(data_dir=data_dir, embedder="hashing", telegram_token=TOKEN,
                                 telegram_api_url=url, reference_date="2026-06-15")
        app = build_app(settings)
        ingest_paths(app, [ACME / "glossary.toml", ACME / "facts.csv"])
        application = telegram_application(app, limits=Limits(
            overall_per_second=None, group_per_minute=None, concurrent_updates=64,
            connection_pool=72))
        report = asyncio.run(_drive(application, url, chats, rounds, timeout,
                                    lambda: _one_answer_per_chat(app.storage.engine)))
        report.feedback_recorded = sum(
            1 for chat, mid in report.reacted  # type: ignore[attr-defined]
            if (turn := app.storage.turns.turn_for_message("telegram", f"telegram:{chat}", mid))
            and any(f.verdict == "positive" for f in app.storage.turns.feedback_for(turn)))
    finally:
        fake.terminate()
        fake.wait(5)
        if app is not None:
            app.close()
        root.removeHandler(handler)
        root.setLevel(old_level)
    report.locked_lines = [x for x in handler.lines if "database is locked" in x]
    report.errors = [x for x in handler.lines if x.startswith(("ERROR", "CRITICAL"))]
    return report


async def _drive(application: Any, url: str, chats: int, rounds: int, timeout: float,
                 to_react: Callable[[], list[tuple[int, int]]]) -> LoadReport:
    from adapters.telegram import ALLOWED_UPDATES

    asked: dict[tuple[int, int], float] = {}
    async with application, httpx.AsyncClient(timeout=60) as client:
        await application.start()
        await application.updater.start_polling(allowed_updates=list(ALLOWED_UPDATES),
                                                timeout=1)
        started = time.monotonic()
        deadline = started + timeout
        for r in range(rounds):
            batch = []
            for c in range(chats):
                chat, mid = FIRST_CHAT - c, 10_000 + r
                batch.append(_message(chat, mid, QUESTIONS[(r + c) % len(QUESTIONS)]))
                asked[(chat, mid)] = time.monotonic()
            await client.post(f"{url}/_fake/inject", json=batch)
            await _wait_count(client, url, "sendMessage", (r + 1) * chats, deadline)
        elapsed = time.monotonic() - started
        calls = (await client.post(f"{url}/_fake/calls", json=None)).json()
        sent = [c for c in calls if c["method"] == "sendMessage"]
        reacted = to_react()  # one mapped answer per chat
        await client.post(f"{url}/_fake/inject",
                          json=[_reaction(chat, mid) for chat, mid in reacted])
        await _wait_idle(client, url)
        await asyncio.sleep(1.0)  # a late duplicate would arrive in this time
        calls = (await client.post(f"{url}/_fake/calls", json=None)).json()
        await application.updater.stop()
        await application.stop()
    sent = [c for c in calls if c["method"] == "sendMessage"]
    counts = Counter((int(c["params"]["chat_id"]), _replied_to(c["params"])) for c in sent)
    latencies = []
    for c in sent:
        key = (int(c["params"]["chat_id"]), _replied_to(c["params"]) or 0)
        if key in asked:
            latencies.append((c["received"] - asked[key]) * 1000)
    report = LoadReport(
        chats=chats, questions=len(asked), answered=sum(1 for k in asked if counts[k] >= 1),
        lost=[k for k in asked if counts[k] == 0],
        duplicated=[k for k in asked if counts[k] > 1], reactions=len(reacted),
        feedback_recorded=0, locked_lines=[], errors=[], elapsed_s=elapsed,
        latencies_ms=latencies)
    report.reacted = reacted  # type: ignore[attr-defined]
    return report


def _one_answer_per_chat(engine: Any) -> list[tuple[int, int]]:
    """(chat, message id) of one bot answer per chat, from the stored message mapping."""
    from storage.tables import MessageMapRow

    table = MessageMapRow.__table__  # type: ignore[attr-defined]
    firsts: dict[int, int] = {}
    with engine.connect() as conn:
        for chat, mid in conn.execute(select(table.c.chat, table.c.message_id)):
            key = int(chat.removeprefix("telegram:"))
            firsts[key] = min(firsts.get(key, int(mid)), int(mid))
    return sorted(firsts.items())


async def _wait_count(client: httpx.AsyncClient, url: str, method: str, n: int,
                      deadline: float) -> None:
    while (await client.post(f"{url}/_fake/count", json=method)).json() < n:
        if time.monotonic() > deadline:
            return  # the report shows what is missing
        await asyncio.sleep(0.02)


async def _wait_idle(client: httpx.AsyncClient, url: str, quiet: float = 1.0) -> None:
    """Until the bot made no new call (other than polling) for `quiet` seconds."""
    last, since = -1, time.monotonic()
    while time.monotonic() - since < quiet:
        calls = (await client.post(f"{url}/_fake/calls", json=None)).json()
        n = sum(1 for c in calls if c["method"] != "getUpdates")
        if n != last:
            last, since = n, time.monotonic()
        await asyncio.sleep(0.1)
