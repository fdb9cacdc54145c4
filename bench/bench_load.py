"""Load: 200 concurrent chats, 20,000 questions (half Telegram, half Slack), on SQLite.

Telegram: the adapter in this process polling the fake Bot API (tests/load_driver.py). Slack:
the real `ricorda serve` in HTTP mode, signed events posted to it (tests/slack_load_driver.py).
Each round every chat asks one question (a mix of cached and planner-answered ones) and waits
for its answer; then every chat reacts to one answer. Reports throughput and latency
percentiles (question injected into the fake Bot API -> the answer's sendMessage arrives) and
checks no question lost, none answered twice, no reaction lost, no "database is locked".
tests/test_load.py runs both scaled down.

    .venv/bin/python bench/bench_load.py [--chats 200] [--rounds 50] [--platform both]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def main() -> None:
    from tests.load_driver import run_load
    from tests.slack_load_driver import run_slack_load

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chats", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=50, help="questions per chat")
    parser.add_argument("--platform", choices=("both", "telegram", "slack"), default="both")
    args = parser.parse_args()
    runs = {"telegram": run_load, "slack": run_slack_load}
    ok = True
    for name, run in runs.items():
        if args.platform not in ("both", name):
            continue
        with tempfile.TemporaryDirectory() as folder:
            report = run(Path(folder), chats=args.chats, rounds=args.rounds, timeout=3600)
        print(f"{name} load, SQLite: {report.text()}")
        print(f"  latency p90 {report.pct(90):.1f} ms, p99 {report.pct(99):.1f} ms, "
              f"max {max(report.latencies_ms, default=0):.1f} ms", flush=True)
        ok = ok and not (report.lost or report.duplicated or report.locked_lines) and (
            report.feedback_recorded == report.reactions)
    print("PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
