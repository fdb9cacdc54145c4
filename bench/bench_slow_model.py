"""A slow chat model and the other chats (issue 39): seconds, under `ricorda serve`.

`ricorda serve` (Telegram, against the fake Bot API on 127.0.0.1) answers over the demo
knowledge base while a scripted OpenAI-compatible server on 127.0.0.1 is slow in two ways:
- drip: the model planner's server sends its reply one byte every two seconds, the planner's
  deadline is 3 s; one chat asks a question only the model can read, another chat a plain one
  once the model has the first. Reported: seconds until each is answered.
- why: the model holds a "why" answer's rerank/synthesis call (RICORDA_LLM_TIMEOUT_S=10); another
  chat asks a number once the model has the first. Reported: seconds until the number comes.

    .venv/bin/python bench/bench_slow_model.py [--repo PATH] [--rounds 3]

`--repo` runs the serving process (and its ingest) from another checkout, for a before/after
side by side in one run; the fakes are always this tree's.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.fake_planner_llm import FakePlannerLLM  # noqa: E402
from tests.fake_telegram import TOKEN, FakeTelegram  # noqa: E402
from tests.loopback import stop_process  # noqa: E402

UNREAD = "how much did the tills ring up in Hong Kong in FY2024?"  # no rule reads 'tills'
PLAIN = "What was Orbis China revenue in FY2024?"
WHYS = ["What drove the decline of the online channel?", "Why did the online channel decline?",
        "What caused the decline of the online channel?"]  # one per round: none is cached
WAIT = 120.0


def ingest(repo: Path, data: Path) -> None:
    demo = repo / "bot" / "demo"
    env = _env(repo, data)
    subprocess.run([sys.executable, "-m", "bot", "ingest", str(demo / "glossary.toml"),
                    str(demo / "facts.csv"), str(demo / "docs")], cwd=repo, env=env, check=True,
                   capture_output=True)


def _env(repo: Path, data: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RICORDA_")}
    return {**env, "PYTHONPATH": str(repo), "RICORDA_DATA_DIR": str(data),
            "RICORDA_EMBEDDER": "hashing", "RICORDA_METRICS_PORT": "0",
            "RICORDA_REFERENCE_DATE": "2026-06-15", "HF_HUB_OFFLINE": "1", **extra}


def serve(repo: Path, data: Path, fake: FakeTelegram, **extra: str) -> subprocess.Popen[bytes]:
    env = _env(repo, data, RICORDA_TELEGRAM_TOKEN=TOKEN, RICORDA_TELEGRAM_API_URL=fake.url,
               **extra)
    proc = subprocess.Popen([sys.executable, "-m", "bot", "serve"], cwd=repo, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    fake.wait_for(lambda: fake.calls("getUpdates"), timeout=300)
    return proc


def answered(fake: FakeTelegram, chat: int, since: float) -> float:
    fake.wait_for(lambda: fake.sent(chat), timeout=WAIT)
    return time.monotonic() - since


def drip(repo: Path, data: Path, rounds: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"model_chat": [], "other_chat": []}
    with FakePlannerLLM(drip_s=2.0) as model:
        fake = FakeTelegram().start()
        proc = serve(repo, data, fake, RICORDA_LLM="openai", RICORDA_LLM_BASE_URL=model.url,
                     RICORDA_MODEL_PLANNER="true", RICORDA_MODEL_PLANNER_TIMEOUT_S="3")
        try:
            for i in range(rounds):
                first, other = 7100 + 2 * i, 7101 + 2 * i
                model.drip()
                asked = time.monotonic()
                fake.inject(fake.text(first, first, f"{UNREAD} ({i})"))
                assert model.received.wait(WAIT)
                other_asked = time.monotonic()
                fake.inject(fake.text(other, other, PLAIN))
                out["other_chat"].append(answered(fake, other, other_asked))
                out["model_chat"].append(answered(fake, first, asked))
                model.release()
        finally:
            stop_process(proc)
            fake.stop()
    return out


def why(repo: Path, data: Path, rounds: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"other_chat": []}
    with FakePlannerLLM("A fine answer.") as model:
        fake = FakeTelegram().start()
        proc = serve(repo, data, fake, RICORDA_LLM="openai", RICORDA_LLM_BASE_URL=model.url,
                     RICORDA_LLM_TIMEOUT_S="10")
        try:
            for i in range(rounds):
                first, other = 7200 + 2 * i, 7201 + 2 * i
                model.hold()
                fake.inject(fake.text(first, first, WHYS[i % len(WHYS)]))
                assert model.received.wait(WAIT)
                other_asked = time.monotonic()
                fake.inject(fake.text(other, other, f"{PLAIN} ({i})"))
                out["other_chat"].append(answered(fake, other, other_asked))
                model.release()
                answered(fake, first, other_asked)
        finally:
            stop_process(proc)
            fake.stop()
    return out


def main() -> None:
    global WAIT
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", type=Path, default=REPO, help="the checkout that serves")
    parser.add_argument("--wait", type=float, default=WAIT,
                        help="seconds to wait for one answer (old code drips for minutes)")
    parser.add_argument("--rounds", type=int, default=3, help=f"at most {len(WHYS)}")
    args = parser.parse_args()
    repo = args.repo.resolve()
    WAIT = args.wait
    results: dict[str, Any] = {}
    for name, scenario in (("drip", drip), ("why", why)):
        with tempfile.TemporaryDirectory() as tmp:  # a knowledge base of its own each
            data = Path(tmp) / "data"
            ingest(repo, data)
            for key, values in scenario(repo, data, args.rounds).items():
                results[f"{name}.{key}"] = values
    print(f"repo: {repo}")
    for key, values in results.items():
        shown = ", ".join(f"{v:.2f}" for v in values)
        print(f"{key:20s} median {statistics.median(values):7.2f} s   ({shown})")


if __name__ == "__main__":
    main()
