"""Slack adapter throughput and ack latency through the HTTP endpoint, 50 concurrent senders.

The fake Web API (tests/fake_slack.py) runs in its own process; the bot is the real
`ricorda serve` process (slack-bolt + aiohttp) on a temp data dir with the ACME
knowledge base, every benchmark question already cached (L0a). Senders post signed
`app_mention` events exactly as Slack does.

- cached: events/s acknowledged, events/s answered (the last chat.postMessage arriving at the
  fake), p50/p99 ack latency as the sender sees it.
- busy core: the same senders while every answer takes `--slow` seconds on the core thread (a
  stand-in for an LLM generating; run in this process with a stub core): acks must not wait.

    .venv/bin/python bench/bench_slack.py [--senders 50] [--per-sender 20] [--slow 0.5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchkit import acme_question, quantile, start_fake, warm_acme  # noqa: E402

from tests.fake_slack import BOT_TOKEN, BOT_USER, TEAM  # noqa: E402
from tests.loopback import free_port  # noqa: E402
from tests.slack_harness import SIGNING_SECRET, sign  # noqa: E402


def prepare(data_dir: Path) -> None:
    from bot.settings.model import load_settings
    from bot.wiring.build import build_app

    app = build_app(load_settings(data_dir=data_dir, embedder="hashing",
                                  reference_date="2026-06-15"))
    warm_acme(app, "slack:C1")
    app.close()


def mention_body(n: int, channel: str) -> str:
    return json.dumps({
        "token": "unused", "team_id": TEAM, "api_app_id": "A0000001", "type": "event_callback",
        "event_id": f"EvBENCH{os.getpid()}{n:07d}", "event_time": int(time.time()),
        "event": {"type": "app_mention", "user": "U0BENCH1", "channel": channel,
                  "text": f"<@{BOT_USER}> {acme_question(n)}",
                  "ts": f"{time.time():.6f}"}})


async def send_all(url: str, senders: int, per_sender: int, offset: int = 0
                   ) -> tuple[list[float], float, float]:
    """(ack latencies in ms, start, end): `senders` workers, each waits for its ack only."""
    latencies: list[float] = []
    limits = httpx.Limits(max_connections=senders, max_keepalive_connections=senders)
    async with httpx.AsyncClient(timeout=30, limits=limits) as client:
        async def sender(s: int) -> None:
            for i in range(per_sender):
                n = offset + s * per_sender + i
                body = mention_body(n, f"C{s:08d}")
                headers = {"Content-Type": "application/json", **sign(body)}
                t0 = time.perf_counter()
                response = await client.post(url, content=body, headers=headers)
                latencies.append((time.perf_counter() - t0) * 1000)
                assert response.status_code == 200, response.text

        started = time.monotonic()
        await asyncio.gather(*(sender(s) for s in range(senders)))
        return latencies, started, time.monotonic()


def posts(fake_url: str) -> list[dict[str, Any]]:
    return httpx.get(f"{fake_url}/_fake/calls", params={"method": "chat.postMessage"},
                     timeout=30).json()


def cached_phase(senders: int, per_sender: int, data_dir: Path, fake_url: str) -> dict[str, Any]:
    port = free_port()
    env = {**os.environ, "RICORDA_DATA_DIR": str(data_dir), "RICORDA_EMBEDDER": "hashing",
           "RICORDA_SLACK_BOT_TOKEN": BOT_TOKEN, "RICORDA_SLACK_SIGNING_SECRET": SIGNING_SECRET,
           "RICORDA_SLACK_API_URL": f"{fake_url}/api/", "RICORDA_SLACK_HOST": "127.0.0.1",
           "RICORDA_SLACK_PORT": str(port), "RICORDA_REFERENCE_DATE": "2026-06-15",
           "RICORDA_LOG_LEVEL": "WARNING", "HF_HUB_OFFLINE": "1", "RICORDA_METRICS_PORT": "0"}
    bot = subprocess.Popen([sys.executable, "-m", "bot", "serve"], cwd=REPO, env=env)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
            if time.monotonic() > deadline:
                raise TimeoutError("bot did not start")
        url = f"http://127.0.0.1:{port}/slack/events"
        asyncio.run(send_all(url, 5, 2, offset=9_000_000))  # warm-up: auth.test, connections
        while len(posts(fake_url)) < 10:
            time.sleep(0.05)
        base = len(posts(fake_url))
        latencies, started, acked = asyncio.run(send_all(url, senders, per_sender))
        n = senders * per_sender
        deadline = time.monotonic() + 300
        while len(found := posts(fake_url)) < base + n:
            if time.monotonic() > deadline:
                raise TimeoutError("answers missing")
            time.sleep(0.1)
        answered = max(c["received"] for c in found[base:])
        return {"events": n, "acked_per_s": n / (acked - started),
                "answered_per_s": n / (answered - started),
                "ack_p50_ms": statistics.median(latencies), "ack_p99_ms": quantile(latencies, 99),
                "ack_max_ms": max(latencies)}
    finally:
        bot.terminate()
        bot.wait(30)


def busy_phase(senders: int, per_sender: int, slow: float, fake_url: str) -> dict[str, Any]:
    """Acks while the core thread is busy: a stub core that takes `slow` s per answer."""
    from adapters.slack import SlackServices, build_bolt_app, start_site, web_application
    from adapters.slack import web_client as make_client
    from core.chat.callback_token import CallbackSigner
    from core.contracts.types import Answer, Request, Route

    busy = threading.Event()

    def ask(request: Request) -> Answer:
        busy.set()
        time.sleep(slow)  # an LLM generating; llama.cpp releases the GIL as sleep does
        return Answer(turn_id="t", route=Route.NARRATIVE, served_by="planner", text="ok")

    class Nothing:
        def __getattr__(self, name: str) -> Any:
            return lambda *a, **k: None

    worker = ThreadPoolExecutor(1)
    services = SlackServices(ask=ask, feedback=Nothing(), admin=Nothing(),  # type: ignore[arg-type]
                             turns=Nothing(), signer=CallbackSigner(b"k" * 32),  # type: ignore[arg-type]
                             core_worker=worker)
    port = free_port()
    ready, stop = threading.Event(), threading.Event()
    loop = asyncio.new_event_loop()

    async def serve() -> None:
        client = make_client(BOT_TOKEN, base_url=f"{fake_url}/api/")
        bolt = build_bolt_app(services, client=client, signing_secret=SIGNING_SECRET)
        runner = await start_site(web_application(bolt), host="127.0.0.1", port=port)
        ready.set()
        while not stop.is_set():
            await asyncio.sleep(0.05)
        await runner.cleanup()
        for task in asyncio.all_tasks():  # answers still queued behind the slow core
            if task is not asyncio.current_task():
                task.cancel()

    thread = threading.Thread(target=loop.run_until_complete, args=(serve(),), daemon=True)
    thread.start()
    ready.wait(30)
    try:
        url = f"http://127.0.0.1:{port}/slack/events"
        latencies, started, acked = asyncio.run(send_all(url, senders, per_sender,
                                                         offset=5_000_000))
        assert busy.is_set(), "the core never started an answer"
        n = senders * per_sender
        return {"events": n, "acked_per_s": n / (acked - started),
                "ack_p50_ms": statistics.median(latencies), "ack_p99_ms": quantile(latencies, 99),
                "ack_max_ms": max(latencies), "core_s_per_answer": slow}
    finally:
        stop.set()
        thread.join(10)
        worker.shutdown(wait=False, cancel_futures=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--senders", type=int, default=50)
    parser.add_argument("--per-sender", type=int, default=20)
    parser.add_argument("--slow", type=float, default=0.5, help="core seconds per answer")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    fake, fake_url = start_fake("tests.fake_slack")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            prepare(Path(tmp))
            table = {"cached": cached_phase(args.senders, args.per_sender, Path(tmp), fake_url),
                     "busy core": busy_phase(args.senders, 4, args.slow, fake_url)}
    finally:
        fake.terminate()
        fake.wait(5)
    if args.json:
        print(json.dumps(table, indent=2))
        return
    print(f"Slack adapter, HTTP endpoint, {args.senders} concurrent senders")
    print(f"{'phase':<10} {'events':>6} {'acked/s':>8} {'answered/s':>10} {'ack p50':>8} "
          f"{'ack p99':>8} {'ack max':>8}")
    for name, r in table.items():
        answered = f"{r['answered_per_s']:.0f}" if "answered_per_s" in r else "-"
        print(f"{name:<10} {r['events']:>6} {r['acked_per_s']:>8.0f} {answered:>10} "
              f"{r['ack_p50_ms']:>8.1f} {r['ack_p99_ms']:>8.1f} {r['ack_max_ms']:>8.1f}")


if __name__ == "__main__":
    main()
