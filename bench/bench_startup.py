"""Ready means ready: the first question after start against the hundredth, side by side.

Each run is a fresh process on the same data dir (ACME, the offline USE embedder, the L0 cache
filled by an earlier process), as `ricorda serve` starts:

- lazy: the app is built and the first update answered at once (what serve did before: the
  embedder, the L0 indexes and the autopaths load inside the first question);
- warmed: `bot.warmup.warm` runs first, as serve now does before /healthz says ok and before
  it takes updates; its time is reported as "start until ready".

Two kinds of first question: one the L0 cache knows (an L0a hit) and a new one (a miss that
embeds the question, served by L0b). Every run gets its own copy of the data dir. Then 100
more questions, cycling through the ACME set; "steady" is the p50 of the last 50 of them.

    python bench/bench_startup.py [--runs 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchkit import ACME_QUESTIONS, acme_question  # noqa: E402

# "new": another metric than the cached revenue questions: a miss that embeds (served by L0b)
NEW = {"hit": ACME_QUESTIONS[0], "new": "What was the ACME China headcount in FY2024?"}


def child(data: Path, mode: str, kind: str) -> dict[str, float]:
    started = time.perf_counter()
    from bot.app import build_app
    from bot.settings import load_settings
    from core.types import Request

    app = build_app(load_settings(data_dir=data, embedder="use", reference_date="2026-06-15"))
    app.cascade  # noqa: B018  (what serve did before: the glossary checked, nothing else)
    if mode == "warmed":
        from bot.warmup import warm

        warm(app)
    ready = (time.perf_counter() - started) * 1000

    def ask(text: str) -> float:
        t = time.perf_counter()
        app.cascade.answer(Request(text=text, chat="bench:1", user="bench"))
        return (time.perf_counter() - t) * 1000

    first = ask(NEW[kind])
    rest = [ask(acme_question(i)) for i in range(100)]
    app.close()
    return {"ready_ms": ready, "first_ms": first, "steady_p50_ms": statistics.median(rest[50:]),
            "hundredth_ms": rest[-1]}


def prepare(data: Path) -> None:
    """The knowledge base, and each ACME question asked once (the L0 cache knows them)."""
    from benchkit import warm_acme

    from bot.app import build_app
    from bot.settings import load_settings

    app = build_app(load_settings(data_dir=data, embedder="use", reference_date="2026-06-15"))
    warm_acme(app, "bench:setup")
    app.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="fresh processes per cell")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", nargs=3, metavar=("DATA", "MODE", "KIND"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(Path(args.child[0]), args.child[1], args.child[2])))
        return
    data = Path(tempfile.mkdtemp(prefix="ricorda-bench-startup-"))
    prepare(data)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1",
           "RICORDA_LOG_LEVEL": "ERROR"}
    table: dict[str, dict[str, dict[str, float]]] = {}
    for kind in ("hit", "new"):
        for mode in ("lazy", "warmed"):
            runs = []
            for n in range(args.runs):
                copy = data.with_name(f"{data.name}-{kind}-{mode}-{n}")  # no run sees another's
                shutil.copytree(data, copy)
                out = subprocess.run([sys.executable, __file__, "--child", str(copy), mode, kind],
                                     env=env, capture_output=True, text=True, check=True)
                runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
                shutil.rmtree(copy, ignore_errors=True)
            table.setdefault(kind, {})[mode] = {
                key: statistics.median(r[key] for r in runs) for key in runs[0]}
    shutil.rmtree(data, ignore_errors=True)
    if args.json:
        print(json.dumps(table, indent=1))
        return
    print(f"medians of {args.runs} fresh processes per cell, ms")
    print(f"{'':44}{'lazy (before)':>16}{'warmed (now)':>16}")
    for kind, label in (("hit", "first question, an L0a hit"),
                        ("new", "first question, a new one (embeds)")):
        cells = table[kind]
        print(f"{label}")
        for key, name in (("ready_ms", "  start until ready"), ("first_ms", "  first question"),
                          ("hundredth_ms", "  100th question"),
                          ("steady_p50_ms", "  steady state p50 (questions 51-100)")):
            print(f"{name:44}{cells['lazy'][key]:16.1f}{cells['warmed'][key]:16.1f}")
        for mode in ("lazy", "warmed"):
            ratio = cells[mode]["first_ms"] / cells[mode]["steady_p50_ms"]
            print(f"  first / steady, {mode:38}{ratio:10.1f}x")


if __name__ == "__main__":
    main()
