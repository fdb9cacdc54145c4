"""Fairness between chats: a heavy question in one chat while other chats ask (issue 26).

The Telegram adapter of tests/load_driver.py polls the fake Bot API in this process, on SQLite,
over the demo knowledge base. Each round every one of `--chats` group chats asks one question
(cached and planner-answered ones) and, with `--heavy`, one more chat first asks the issue's
2,000-character question (eight metrics, the units and channels, a century of years). Reports
the latency percentiles of the *other* chats' answers (question injected -> its sendMessage
arrives) and how many messages the heavy chat received.

    .venv/bin/python bench/bench_fairness.py [--chats 20] [--rounds 10] [--heavy]

Run it on the old code and the new (`PYTHONPATH=<checkout>`) for the before/after figures in
docs/disclosure.md.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

QUESTIONS = [
    "What was Orbis China revenue in FY2024?",
    "What was Orbis Hong Kong revenue in FY2025?",
    "What was Orbis Italia revenue in FY2025?",
    "What was revenue?",
    "Orbis China EBITDA in FY2025",
]
YEARS = ", ".join(str(y) for y in range(1990, 2100))
HEAVY = ("Revenue, gross margin, EBITDA, net income, headcount, orders, EBITDA margin and "
         "revenue per employee for Orbis Group, Orbis China, Orbis Italia, Orbis Hong Kong, "
         f"online and retail in {YEARS} ")
HEAVY = (HEAVY * 3)[:2000]
FIRST_CHAT, HEAVY_CHAT = -6000, -7000


def run(data_dir: Path, chats: int, rounds: int, heavy: bool) -> dict[str, Any]:
    from adapters.telegram import Limits
    from bot.kb.ingest import ingest_paths
    from bot.serve.telegram import telegram_application
    from bot.settings.model import load_settings
    from bot.wiring.build import build_app
    from tests.fake_telegram import TOKEN
    from tests.load_driver import start_fake

    fake, url = start_fake()
    app = None
    try:
        settings = load_settings(data_dir=data_dir, embedder="hashing", telegram_token=TOKEN,
                                 telegram_api_url=url, reference_date="2026-06-15",
                                 charts=False)
        app = build_app(settings)
        demo = REPO / "bot" / "demo"
        ingest_paths(app, [demo / "glossary.toml", demo / "facts.csv"])
        application = telegram_application(app, limits=Limits(
            overall_per_second=None, group_per_minute=None, concurrent_updates=64,
            connection_pool=72))
        return asyncio.run(_drive(application, url, chats, rounds, heavy))
    finally:
        fake.terminate()
        fake.wait(5)
        if app is not None:
            app.close()


async def _drive(application: Any, url: str, chats: int, rounds: int, heavy: bool
                 ) -> dict[str, Any]:
    import httpx

    from adapters.telegram import ALLOWED_UPDATES
    from bench.benchkit import quantile
    from tests.load_driver import _message, _replied_to

    asked: dict[tuple[int, int], float] = {}
    async with application, httpx.AsyncClient(timeout=120) as client:
        await application.start()
        await application.updater.start_polling(allowed_updates=list(ALLOWED_UPDATES),
                                                timeout=1)
        started = time.monotonic()
        for r in range(rounds):
            batch = [_message(HEAVY_CHAT, 10_000 + r, HEAVY)] if heavy else []
            for c in range(chats):
                chat, mid = FIRST_CHAT - c, 10_000 + r
                batch.append(_message(chat, mid, QUESTIONS[(r + c) % len(QUESTIONS)]))
                asked[(chat, mid)] = time.monotonic()
            await client.post(f"{url}/_fake/inject", json=batch)
            while True:  # every other chat of this round answered
                calls = (await client.post(f"{url}/_fake/calls", json=None)).json()
                done = {(int(c["params"]["chat_id"]), _replied_to(c["params"]) or 0)
                        for c in calls if c["method"] == "sendMessage"}
                if all(k in done for k in asked):
                    break
                if time.monotonic() - started > 1800:
                    break
                await asyncio.sleep(0.05)
        await asyncio.sleep(2.0)  # the heavy chat's last messages
        calls = (await client.post(f"{url}/_fake/calls", json=None)).json()
        await application.updater.stop()
        await application.stop()
    latencies, heavy_messages = [], 0
    for c in calls:
        if c["method"] not in ("sendMessage", "sendDocument", "sendPhoto"):
            continue
        chat = int(c["params"]["chat_id"])
        if chat == HEAVY_CHAT:
            heavy_messages += 1
            continue
        key = (chat, _replied_to(c["params"]) or 0)
        if key in asked and c["method"] == "sendMessage":
            latencies.append((c["received"] - asked[key]) * 1000)
    return {"questions": len(asked), "answered": len(latencies),
            "p50": quantile(latencies, 50), "p99": quantile(latencies, 99),
            "max": max(latencies, default=0.0), "heavy_messages": heavy_messages,
            "heavy_questions": rounds if heavy else 0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chats", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--heavy", action="store_true", help="one chat asks the heavy question")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        out = run(Path(folder), args.chats, args.rounds, args.heavy)
    print(f"{'heavy' if args.heavy else 'no heavy'}: other chats {out['answered']}/"
          f"{out['questions']} answered, p50 {out['p50']:.1f} ms, p99 {out['p99']:.1f} ms, "
          f"max {out['max']:.1f} ms; heavy chat: {out['heavy_questions']} questions, "
          f"{out['heavy_messages']} messages", flush=True)


if __name__ == "__main__":
    main()
