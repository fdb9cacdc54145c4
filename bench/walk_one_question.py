"""How far one question travels through core: the files it crosses, and how often it comes back.

A reader who must change how a question is answered follows it from file to file; a path that
leaves a file and comes back to it many times is one they must hold in mind at once. This
traces one answer (`app.core.answering.answer`, what every platform calls) through the code
under `core/` and counts:

- files: the core files in which at least one function ran;
- returns: how often the answer moved (by a call or a return) into a core file it had already
  left, counted on the sequence of files with repeats collapsed ("a.py b.py a.py" is 1);
- package returns: the same, counted on core's subpackages (planning, fastpath, figures ...):
  how often the answer goes back into a part of core it had left;
- calls: the core function calls made.

Two questions, each asked twice on the demo knowledge base: a structured one (first ask: the
planner; repeat: an exact plan-cache hit) and a "why" question (documents). `--tree DIR` runs
the same trace on another checkout (an earlier commit from `git worktree add`), side by side:

    python bench/walk_one_question.py [--tree ../old] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

QUESTIONS = {
    "structured": "What was Orbis China revenue in FY2024?",
    "why": "Why did revenue fall in 2025?",
}

# run inside the tree measured, with its own code: only the public entry every platform uses
CHILD = r"""
import json, os, sys
from pathlib import Path
tree = Path(sys.argv[1]).resolve()
data = sys.argv[2]
sys.path.insert(0, str(tree))
from bot.settings.model import load_settings
from bot.wiring.build import build_app
from core.contracts.types import Request

app = build_app(load_settings(data_dir=data, embedder="hashing", reference_date="2026-06-15"))
core_dir = str(tree / "core") + os.sep
out = {}
for kind, text in json.loads(sys.argv[3]).items():
    for ask in ("first", "repeat"):
        seq, calls, files = [], 0, set()
        def profile(frame, event, arg):
            global calls
            if event not in ("call", "return"):
                return
            name = frame.f_code.co_filename
            if not name.startswith(core_dir):
                return
            if event == "call":
                calls += 1
                files.add(name)
            if not seq or seq[-1] != name:
                seq.append(name)
        request = Request(text, chat="telegram:1", user="walk")
        sys.setprofile(profile)
        try:
            app.core.answering.answer(request)
        finally:
            sys.setprofile(None)
        def comebacks(names):
            seen, n, last = set(), 0, None
            for name in names:
                if name != last:
                    n += name in seen
                    seen.add(name)
                last = name
            return n
        packages = [n[len(core_dir):].split(os.sep)[0] for n in seq]
        out[f"{kind} ({ask})"] = {"files": len(files), "returns": comebacks(seq),
                                  "package returns": comebacks(packages), "calls": calls}
print(json.dumps(out))
"""


def walk(tree: Path) -> dict[str, dict[str, int]]:
    """The trace of each question in `tree`, on a demo knowledge base ingested by that tree."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RICORDA_")}
    env |= {"RICORDA_EMBEDDER": "hashing", "PYTHONPATH": str(tree)}
    with tempfile.TemporaryDirectory(prefix="ricorda-walk-") as data:
        env["RICORDA_DATA_DIR"] = data
        subprocess.run([sys.executable, "-m", "bot", "demo", "--no-chat"], cwd=tree, env=env,
                       check=True, capture_output=True, timeout=600)
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(tree), data, json.dumps(QUESTIONS)],
            cwd=tree, env=env, check=True, capture_output=True, text=True, timeout=600)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _cell(r: dict[str, int]) -> str:
    return f"{r['files']} files, {r['returns']}/{r['package returns']} returns"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, help="another checkout, traced the same way")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    trees = {"this tree": ROOT} | ({"--tree": args.tree.resolve()} if args.tree else {})
    results = {label: walk(tree) for label, tree in trees.items()}
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    rows = next(iter(results.values()))
    print("files crossed, returns to a file / to a subpackage already left")
    print(f"{'question':<24}" + "".join(f"{label:>34}" for label in results))
    for row in rows:
        cells = "".join(f"{_cell(r[row]):>34}" for r in results.values() if row in r)
        print(f"{row:<24}{cells}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
