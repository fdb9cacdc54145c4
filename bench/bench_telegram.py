"""Telegram adapter throughput and latency for cached (L0a) questions, 50 concurrent chats.

The fake Bot API (tests/fake_telegram.py) runs in its own process so it does not share the
GIL with the bot; the bot is the real python-telegram-bot Application built by bot.serve.telegram,
polling the fake, with Telegram's flood limits lifted (they would cap sending at 30/s).

Timestamps are taken by the fake on one monotonic clock:
- update-to-reply: the update injected -> the reply's sendMessage arrives (includes waiting in
  the getUpdates queue);
- bot overhead: the fake hands the update to the bot (getUpdates response) -> the reply
  arrives; the fake's own handling of the reply is excluded.

    .venv/bin/python bench/bench_telegram.py [--chats 50] [--rounds 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchkit import acme_question, quantile, start_fake, warm_acme  # noqa: E402


def build(data_dir: Path, url: str) -> Any:
    from bot.settings.model import load_settings
    from bot.wiring.build import build_app
    from tests.fake_telegram import TOKEN

    settings = load_settings(data_dir=data_dir, embedder="hashing", telegram_token=TOKEN,
                             telegram_api_url=url, reference_date="2026-06-15")
    app = build_app(settings)
    warm_acme(app, "telegram:1")
    return app


def update(update_id_hint: int, chat: int, text: str) -> dict[str, Any]:
    return {"message": {
        "message_id": update_id_hint, "date": int(time.time()), "text": text,
        "chat": {"id": chat, "type": "private", "first_name": "u"},
        "from": {"id": chat, "is_bot": False, "first_name": "u", "language_code": "en"}}}


async def wait_replies(client: httpx.AsyncClient, url: str, n: int, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while (await client.post(f"{url}/_fake/count", json="sendMessage")).json() < n:
        if time.monotonic() > deadline:
            raise TimeoutError(f"fewer than {n} replies")
        await asyncio.sleep(0.02)


async def run(chats: int, rounds: int, data_dir: Path, concurrency: int) -> dict[str, Any]:
    from adapters.telegram import ALLOWED_UPDATES, Limits
    from bot.serve.telegram import telegram_application

    fake, url = start_fake("tests.fake_telegram")
    app = build(data_dir, url)
    application = telegram_application(app, limits=Limits(
        overall_per_second=None, group_per_minute=None, concurrent_updates=concurrency,
        connection_pool=concurrency + 8))
    results: dict[str, Any] = {}
    try:
        async with application:
            await application.start()
            assert application.updater is not None
            await application.updater.start_polling(allowed_updates=list(ALLOWED_UPDATES),
                                                    timeout=1)
            async with httpx.AsyncClient(timeout=30) as client:
                # 1) sequential, one chat: the bot's own cost with nothing queued
                await client.post(f"{url}/_fake/reset", json=None)
                cpu = time.process_time()
                for i in range(50):
                    await client.post(f"{url}/_fake/inject",
                                      json=[update(i, 7, acme_question(i))])
                    await wait_replies(client, url, i + 1)
                results["sequential"] = {**await measure(client, url),
                                         "cpu_ms": (time.process_time() - cpu) * 1000 / 50}
                # 2) waves: 50 chats ask at once, each waits for its reply, `rounds` times
                await client.post(f"{url}/_fake/reset", json=None)
                started, cpu = time.monotonic(), time.process_time()
                for r in range(rounds):
                    await client.post(f"{url}/_fake/inject", json=[
                        update(r, 1000 + c, acme_question(r + c))
                        for c in range(chats)])
                    await wait_replies(client, url, (r + 1) * chats)
                elapsed = time.monotonic() - started
                results["waves"] = {**await measure(client, url),
                                    "updates_per_s": rounds * chats / elapsed,
                                    "cpu_ms": (time.process_time() - cpu) * 1000 / (rounds * chats)}
                # 3) burst: everything at once, throughput only
                await client.post(f"{url}/_fake/reset", json=None)
                n = chats * rounds
                cpu = time.process_time()
                await client.post(f"{url}/_fake/inject", json=[
                    update(i, 1000 + i % chats, acme_question(i)) for i in range(n)])
                await wait_replies(client, url, n)
                replies = [c for c in (await client.post(f"{url}/_fake/calls", json=None)).json()
                           if c["method"] == "sendMessage"]
                elapsed = max(c["received"] for c in replies) - min(
                    v[0] for v in (await client.post(f"{url}/_fake/delivered",
                                                     json=None)).json().values())
                results["burst"] = {**await measure(client, url), "updates_per_s": n / elapsed,
                                    "cpu_ms": (time.process_time() - cpu) * 1000 / n}
            await application.updater.stop()
            await application.stop()
    finally:
        fake.terminate()
        fake.wait(5)
        app.close()
    return results


async def measure(client: httpx.AsyncClient, url: str) -> dict[str, Any]:
    """Pair each update with its chat's reply, in order, and compute latencies (ms)."""
    delivered = (await client.post(f"{url}/_fake/delivered", json=None)).json()
    calls = (await client.post(f"{url}/_fake/calls", json=None)).json()
    replies: dict[str, list[float]] = {}
    for c in calls:
        if c["method"] == "sendMessage":
            replies.setdefault(str(c["params"]["chat_id"]), []).append(c["received"])
    other = sum(1 for c in calls if c["method"] not in ("sendMessage", "getUpdates"))
    # update ids are handed out in injection order; chat order follows from the injections
    return {"n": sum(len(v) for v in replies.values()), "other_calls": other,
            "_delivered": delivered, "_replies": replies}


def summarise(section: dict[str, Any], chats_of: Any) -> dict[str, Any]:
    delivered = section.pop("_delivered")
    replies = section.pop("_replies")
    per_chat: dict[str, list[tuple[float, float]]] = {}
    for uid in sorted(delivered, key=int):
        per_chat.setdefault(chats_of(int(uid)), []).append(tuple(delivered[uid]))
    e2e, own = [], []
    for chat, times in per_chat.items():
        for (injected, handed), replied in zip(times, sorted(replies.get(chat, [])), strict=False):
            e2e.append((replied - injected) * 1000)
            own.append((replied - handed) * 1000)
    return {**section, "p50_ms": statistics.median(e2e), "p99_ms": quantile(e2e, 99),
            "overhead_p50_ms": statistics.median(own), "overhead_p99_ms": quantile(own, 99)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chats", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--concurrency", type=int, default=32, help="updates in flight")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    with tempfile.TemporaryDirectory() as tmp:
        raw = asyncio.run(run(args.chats, args.rounds, Path(tmp), args.concurrency))
    # chat of an update: recomputed from the injection order of each phase
    chat_maps = {
        "sequential": lambda i, _b: "7",
        "waves": lambda i, b: str(1000 + (i - b) % args.chats),
        "burst": lambda i, b: str(1000 + (i - b) % args.chats),
    }
    table = {}
    for name, section in raw.items():
        base = min(int(k) for k in section["_delivered"])
        table[name] = summarise(section, lambda uid, f=chat_maps[name], b=base: f(uid, b))
    if args.json:
        print(json.dumps(table, indent=2))
        return
    print(f"Telegram adapter, cached (L0a) questions, {args.chats} chats x {args.rounds} rounds")
    print(f"{'phase':<11} {'updates':>7} {'upd/s':>8} {'p50 ms':>8} {'p99 ms':>8} "
          f"{'bot p50':>8} {'bot p99':>8} {'CPU ms/upd':>10} {'extra calls':>11}")
    for name, r in table.items():
        rate = f"{r['updates_per_s']:.0f}" if "updates_per_s" in r else "-"
        print(f"{name:<11} {r['n']:>7} {rate:>8} {r['p50_ms']:>8.2f} {r['p99_ms']:>8.2f} "
              f"{r['overhead_p50_ms']:>8.2f} {r['overhead_p99_ms']:>8.2f} {r['cpu_ms']:>10.2f} "
              f"{r['other_calls']:>11}")


if __name__ == "__main__":
    main()
