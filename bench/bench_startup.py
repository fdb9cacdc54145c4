"""Ready means ready: the first question after start against the hundredth, side by side.

Each run is a fresh process on the same data dir (ACME, the offline USE embedder, the L0 cache
filled by an earlier process), as `ricorda serve` starts:

- lazy: the app is built and the first update answered at once (what serve did before: the
  embedder, the L0 indexes and the autopaths load inside the first question);
- warmed: `bot.serve.warmup.warm` runs first, as serve now does before /healthz says ok and before
  it takes updates; its time is reported as "start until ready".

Two kinds of first question: one the L0 cache knows (an L0a hit) and a new one (a miss that
embeds the question, served by L0b). Every run gets its own copy of the data dir. Then 100
more questions, cycling through the ACME set; "steady" is the p50 of the last 50 of them.

    python bench/bench_startup.py [--runs 3] [--json]
    python bench/bench_startup.py --runs 1 --questions 2 --embedder hashing   # the smoke test

`--ask` measures something else: the cold start of a one-shot `ricorda ask` (process start to
printed answer, a structured question answered from the plan cache), the current tree against
an earlier release side by side. The earlier release is unpacked from git (`git archive REF`);
both trees get compiled bytecode first, as `pip install` writes it, and each ingests the demo
glossary and facts into its own data dir with its own code. The runs alternate (who goes first
swaps every round) so a machine that slows down mid-run slows both; the ratio is the median of
each round's current/baseline ratio.

    python bench/bench_startup.py --ask [--baseline 6a1f750] [--runs 21] [--json]
    python bench/bench_startup.py --ask --baseline HEAD --runs 1     # the smoke test
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchkit import ACME_QUESTIONS, acme_question  # noqa: E402

# "new": another metric than the cached revenue questions: a miss that embeds (served by L0b)
NEW = {"hit": ACME_QUESTIONS[0], "new": "What was the ACME China headcount in FY2024?"}


def child(data: Path, mode: str, kind: str, questions: int = 100,
          embedder: str = "use") -> dict[str, float]:
    started = time.perf_counter()
    from bot.settings.model import load_settings
    from bot.wiring.build import build_app
    from core.contracts.types import Request

    app = build_app(load_settings(data_dir=data, embedder=embedder, reference_date="2026-06-15"))
    app.core.pipeline  # noqa: B018  (what serve did before: the glossary checked, nothing else)
    if mode == "warmed":
        from bot.serve.warmup import warm

        warm(app)
    ready = (time.perf_counter() - started) * 1000

    def ask(text: str) -> float:
        t = time.perf_counter()
        app.core.pipeline.answer(Request(text=text, chat="bench:1", user="bench"))
        return (time.perf_counter() - t) * 1000

    first = ask(NEW[kind])
    rest = [ask(acme_question(i)) for i in range(questions)]
    app.close()
    return {"ready_ms": ready, "first_ms": first,
            "steady_p50_ms": statistics.median(rest[len(rest) // 2:]), "hundredth_ms": rest[-1]}


def prepare(data: Path, embedder: str = "use") -> None:
    """The knowledge base, and each ACME question asked once (the L0 cache knows them)."""
    from benchkit import warm_acme

    from bot.settings.model import load_settings
    from bot.wiring.build import build_app

    app = build_app(load_settings(data_dir=data, embedder=embedder, reference_date="2026-06-15"))
    warm_acme(app, "bench:setup")
    app.close()


# the last commit before the one-shot ask was trimmed to what its question needs (issue 28)
ASK_BASELINE = "6a1f750"
ASK_QUESTION = "What was Orbis China revenue in FY2024?"


def unpack(ref: str, into: Path) -> Path:
    """The tree of `ref` (a release, a commit) as plain files: no checkout, no .git."""
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", ref],
                             capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def _ricorda(tree: Path, data: Path, *args: str, importtime: bool = False,
             ) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RICORDA_", "PYTHONDONT"))}
    env |= {"PYTHONPATH": str(tree), "HF_HUB_OFFLINE": "1"}
    flags = ["-X", "importtime"] if importtime else []
    return subprocess.run([sys.executable, *flags, "-m", "bot", "--data-dir", str(data), *args],
                          env=env, capture_output=True, text=True, check=True, cwd=data.parent)


def _own_modules(importtime: str) -> int:
    names = {ln.rsplit("|", 1)[-1].strip() for ln in importtime.splitlines() if "|" in ln}
    return len({n for n in names if n.split(".")[0] in ("bot", "core", "storage", "adapters")})


def compare_ask(baseline: str, runs: int) -> dict[str, object]:
    """Cold start of `ricorda ask --json` on this tree and on `baseline`, alternating."""
    work = Path(tempfile.mkdtemp(prefix="ricorda-bench-ask-"))
    try:
        trees = {"current": ROOT, "baseline": unpack(baseline, work / "baseline")}
        data = {}
        for side, tree in trees.items():
            for package in ("bot", "core", "storage", "adapters"):  # cached bytecode, both
                subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / package)],
                               check=True, capture_output=True)
            data[side] = work / f"data-{side}"
            _ricorda(tree, data[side], "ingest", str(ROOT / "bot/demo/glossary.toml"),
                     str(ROOT / "bot/demo/facts.csv"))
        texts, modules = {}, {}
        for side, tree in trees.items():  # the planner answers once; then the plan cache
            _ricorda(tree, data[side], "ask", ASK_QUESTION, "--json")
            probe = _ricorda(tree, data[side], "ask", ASK_QUESTION, "--json", importtime=True)
            texts[side] = json.loads(probe.stdout)["text"]
            modules[side] = _own_modules(probe.stderr)
        if texts["current"] != texts["baseline"]:
            raise SystemExit(f"the two trees answer differently: {texts}")
        walls: dict[str, list[float]] = {"current": [], "baseline": [], "bare": []}
        for n in range(runs):
            order = ("current", "baseline") if n % 2 == 0 else ("baseline", "current")
            for side in order:
                started = time.perf_counter()
                _ricorda(trees[side], data[side], "ask", ASK_QUESTION, "--json")
                walls[side].append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], check=True)
            walls["bare"].append((time.perf_counter() - started) * 1000)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    pairs = [c / b for c, b in zip(walls["current"], walls["baseline"], strict=True)]
    return {
        "baseline": baseline, "runs": runs, "question": ASK_QUESTION,
        "median_ms": {side: statistics.median(w) for side, w in walls.items()},
        # one round (the smoke test) has no spread: its quartiles are its value
        "quartiles_ms": {side: statistics.quantiles(w, n=4)[::2] if len(w) > 1 else [w[0], w[0]]
                         for side, w in walls.items()},
        "ratio": statistics.median(pairs),
        "own_modules": modules,
    }


def print_ask(result: dict[str, object]) -> None:
    median = result["median_ms"]
    quartiles = result["quartiles_ms"]
    modules = result["own_modules"]
    assert isinstance(median, dict) and isinstance(quartiles, dict) and isinstance(modules, dict)
    print(f"`ricorda ask \"{result['question']}\" --json`, cold start with cached bytecode, "
          f"{result['runs']} alternating rounds, ms")
    print(f"{'':34}{'median':>10}{'p25':>10}{'p75':>10}{'ricorda modules':>18}")
    for side, label in (("current", "current tree"),
                        ("baseline", f"baseline {result['baseline']}"),
                        ("bare", "python -c pass")):
        low, high = quartiles[side]
        count = str(modules.get(side, ""))
        print(f"{label:34}{median[side]:10.0f}{low:10.0f}{high:10.0f}{count:>18}")
    print(f"current / baseline (median of the rounds' ratios): {result['ratio']:.2f}x "
          "(target <= 1.0x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=None,
                        help="fresh processes per cell (default 3; with --ask, rounds: 21)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--ask", action="store_true",
                        help="cold start of `ricorda ask`, this tree against --baseline")
    parser.add_argument("--baseline", default=ASK_BASELINE,
                        help=f"the git ref --ask compares with (default {ASK_BASELINE})")
    parser.add_argument("--questions", type=int, default=100,
                        help="questions after the first (steady state: the last half)")
    parser.add_argument("--embedder", choices=("use", "hashing"), default="use",
                        help="hashing: no model to load (the smoke test), figures not USE's")
    parser.add_argument("--child", nargs=3, metavar=("DATA", "MODE", "KIND"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.ask:
        result = compare_ask(args.baseline, args.runs or 21)
        if args.json:
            print(json.dumps(result, indent=1))
        else:
            print_ask(result)
        return
    args.runs = args.runs or 3
    if args.child:
        print(json.dumps(child(Path(args.child[0]), args.child[1], args.child[2],
                               args.questions, args.embedder)))
        return
    data = Path(tempfile.mkdtemp(prefix="ricorda-bench-startup-"))
    prepare(data, args.embedder)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1",
           "RICORDA_LOG_LEVEL": "ERROR"}
    table: dict[str, dict[str, dict[str, float]]] = {}
    for kind in ("hit", "new"):
        for mode in ("lazy", "warmed"):
            runs = []
            for n in range(args.runs):
                copy = data.with_name(f"{data.name}-{kind}-{mode}-{n}")  # no run sees another's
                shutil.copytree(data, copy)
                out = subprocess.run([sys.executable, __file__, "--child", str(copy), mode, kind,
                                      "--questions", str(args.questions),
                                      "--embedder", args.embedder],
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
                          ("hundredth_ms", f"  the last question (#{args.questions})"),
                          ("steady_p50_ms", f"  steady state p50 (questions "
                                            f"{args.questions // 2 + 1}-{args.questions})")):
            print(f"{name:44}{cells['lazy'][key]:16.1f}{cells['warmed'][key]:16.1f}")
        for mode in ("lazy", "warmed"):
            ratio = cells[mode]["first_ms"] / cells[mode]["steady_p50_ms"]
            print(f"  first / steady, {mode:38}{ratio:10.1f}x")


if __name__ == "__main__":
    main()
