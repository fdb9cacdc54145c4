"""Every script in bench/ runs, at a tiny size, so a benchmark that breaks fails CI (issue 39).

A smoke run, not a timing: each script is started as a person would start it, with the smallest
settings that still walk its whole path, and must exit 0 and print its figures (a line the
script prints only once it has measured). A new script in bench/ must be listed here (the first
test fails until it is), so no benchmark can rot unseen.

The scripts run side by side, a few at a time (most of a smoke run is starting Python and
waiting for a server or a subprocess), so the module takes about a minute, not the sum of them.
No figure is judged: speed is what the benches measure, never this test.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from tests.fake_planner_llm import FakePlannerLLM, reading

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "bench"
SAMPLE_TATQA = REPO / "tests" / "data" / "tatqa_sample.json"
AT_ONCE = 4  # scripts running at the same time
# started first, so that the run does not end waiting for one of them alone (a hint only)
LONGEST = ("bench_cascade.py", "bench_freshness.py", "bench_load.py", "bench_companies.py",
           "bench_startup.py", "bench_fairness.py")


@dataclass(frozen=True)
class Smoke:
    """One run of a script: its arguments, a pattern its output must hold, its exit code."""

    args: tuple[str, ...]
    prints: str  # a regular expression searched in stdout + stderr
    exit: int = 0


# script -> its smoke runs, or the reason it is run elsewhere
SMOKE: dict[str, tuple[Smoke, ...] | str] = {
    "bench_cascade.py": (Smoke(
        ("--n", "2", "--serve-n", "2", "--history", "10", "--history-n", "2", "--busy", "0",
         "--no-llm", "--embedder", "hashing"),
        r"serve mode, repeat by L0a.*\d\.\d{3}[\s\S]*serve_first largest / smallest p50"
        r"[\s\S]*narrative, no LLM\s+\d"),),
    "bench_charts.py": (Smoke(("--n", "1"), r"chart, 20-bar ranking \(en\)\s+[\d.]+[\s\S]*"
                                            r"chart_for \(chart thread, from the loop\): p50 \d"),),
    "bench_companies.py": (Smoke(("--company", "alpina", "--lang", "en", "--only", "control",
                                  "--embedder", "hashing"), r"\| alpina \| \d+/3 \|"),),
    "bench_disclosure_property.py": (Smoke(("--examples", "3"),
                                           r"3 knowledge bases checked in [\d.]+ s: no restricted "
                                           r"figure can be worked out"),),
    "bench_fairness.py": (Smoke(("--chats", "2", "--rounds", "1"),
                                r"no heavy: other chats 2/2 answered, p50 \d"),),
    "bench_fastpath.py": (Smoke(("--sizes", "100", "--dims", "64", "--store-dim", "64",
                                 "--queries", "3", "--no-postgres"),
                                r"L0b nearest p50 \(index \+ re-read\), ms\s+\d"),),
    "bench_freshness.py": (Smoke(("--n", "3", "--runs", "1", "--chunks", "40"),
                                 r"ingest commit .*a document.*: p50 \d"),),
    "bench_ingest.py": (Smoke(("--tiny",), r"this checkout\s+2,000\s+[\d.]+\s+\d"),),
    "bench_load.py": (Smoke(("--chats", "2", "--rounds", "1"),
                            r"telegram load, SQLite: .*latency p50 \d[\s\S]*"
                            r"slack load, SQLite: .*latency p50 \d[\s\S]*PASS"),),
    "bench_maintenance.py": (Smoke(("--entries", "60", "--turns", "60", "--dim", "16"),
                                   r"slowest maintenance: [\d.]+ s"),),
    "bench_metric_phrases.py": (Smoke(("--matchers", "stems,token_set"),  # use: the model
                                      r"\| stems \| \d+ \| \d+ \| \d+ \| [\d.]+ \|\n"
                                      r"\| token_set \| \d+"),),
    # a real model: tests/test_model_planner_gguf.py (slow); here a scripted server, {llm}
    "bench_planner.py": (Smoke(("--base-url", "{llm}", "--limit", "2", "--replays", "1",
                                "--embedder", "hashing"),
                               r"accuracy on 2 questions[\s\S]*\"correct\": \d"),),
    "bench_retrieval.py": (Smoke(("--chunks", "200", "--iterations", "2", "--ingest-docs", "2",
                                  "--query-sets", "2", "--embedder", "hashing"),
                                 r"retrieval, BM25 only \(5 queries\)\s+\d"),),
    "bench_scale.py": (
        # the full scale run at --tiny: tests/test_bench_scale.py, which reads its figures
        # here BM25 alone, this tree beside itself: the same rankings
        Smoke(("--lexical-only", "--chunks", "300", "--iterations", "3",
               "--compare-with", str(REPO)),
              r"this tree\s+[\d.]+\s+[\d.]+\s+1\.00x\s+0\n\S+\s+[\d.]+\s+[\d.]+\s+[\d.]+x\s+0\n"),),
    "bench_slack.py": (Smoke(("--senders", "2", "--per-sender", "1", "--slow", "0"),
                             r"cached\s+2\s+\d+\s+\d+\s+[\d.]+[\s\S]*busy core\s+\d+"),),
    "bench_startup.py": (
        Smoke(("--runs", "1", "--questions", "2", "--embedder", "hashing"),
              r"first / steady, warmed\s+\d"),
        # `ask` cold start against a release unpacked from git (this checkout's HEAD here)
        *([Smoke(("--ask", "--baseline", "HEAD", "--runs", "1"),
                 r"current / baseline \(median of the rounds' ratios\): [\d.]+x")]
          if (REPO / ".git").exists() else []),
    ),
    "bench_storage.py": (Smoke(("--facts", "100", "--turns", "20"), r"record_turn: p50 \d"),),
    "bench_structured.py": (Smoke(("--n", "3", "--runs", "1"),
                                  r"ricorda ask cold start \(median\)\s+\d+ ms"),),
    "bench_tatqa.py": (
        Smoke(("--data", str(SAMPLE_TATQA), "--questions", "3"),
              r"3 questions on \d+ tables"),
        # no local copy of the dataset (as in CI): it says so, where to get it, and stops
        Smoke((), r"no TAT-QA train file at .*tatqa_dataset_train\.json.*download the TRAIN "
                  r"split from https://github\.com/NExTplusplus/TAT-QA", exit=1),
    ),
    "bench_telegram.py": (Smoke(("--chats", "2", "--rounds", "1"),
                                r"burst\s+2\s+\d+\s+[\d.]+"),),
    "bench_understanding.py": (Smoke(("--ids", "en-control-01,en-control-02", "--embedder",
                                      "hashing"), r"score \d+/2 = [\d.]+%"),),
    "bench_slow_model.py": (Smoke(("--rounds", "1"), r"drip\.other_chat\s+median\s+[\d.]+ s"
                                                      r"[\s\S]*why\.other_chat\s+median"),),
    "walk_one_question.py": (Smoke((), r"structured \(first\)\s+\d+ files, \d+/\d+ returns"
                                        r"[\s\S]*why \(repeat\)\s+\d+ files"),),
    "calibrate_l0.py": (Smoke(("--embedder", "hashing", "--pairs", "6", "--thresholds",
                               "0.6,0.9"), r"lowest threshold with no wrong answer"),),
    "calibrate_thresholds.py": (Smoke(("--embedder", "hashing"),
                                      r"zero false positives from [\d.]+"),),
    "run_all": (Smoke(("--quick", "--only", "storage", "--results", "results"),
                      r"storage: .*\n\s+ok \(\d+ s\)\nreport: results/report\.md"),),
}
LIBRARIES = {"benchkit.py"}  # imported by the scripts, not run


def test_every_bench_script_has_a_smoke_run() -> None:
    scripts = {p.name for p in BENCH.iterdir()
               if p.is_file() and (p.suffix == ".py" or os.access(p, os.X_OK))}
    scripts -= LIBRARIES | {"__init__.py"}
    assert not scripts - set(SMOKE), f"no smoke run in SMOKE for {sorted(scripts - set(SMOKE))}"
    gone = sorted(set(SMOKE) - scripts)
    assert not gone, f"SMOKE lists scripts bench/ no longer has: {gone}"


@dataclass
class Ran:
    script: str
    smoke: Smoke
    code: int | None
    output: str
    seconds: float


def run(script: str, smoke: Smoke, tmp: Path, llm: str) -> Ran:
    """One smoke run in its own directory and data dir, as a person would start it; `llm`:
    the URL of an OpenAI-compatible server ({llm} in the arguments)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RICORDA_")}
    env |= {"PYTHONPATH": str(REPO), "RICORDA_DATA_DIR": str(tmp / "data"),
            "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1"}
    tmp.mkdir(parents=True)
    started = time.monotonic()
    try:
        args = [a.replace("{llm}", llm) for a in smoke.args]
        done = subprocess.run([sys.executable, str(BENCH / script), *args], cwd=tmp,
                              env=env, capture_output=True, text=True, timeout=600,
                              check=False)
    except subprocess.TimeoutExpired as exc:  # a hang guard, not a timing
        return Ran(script, smoke, None, f"{exc.stdout or ''}\n{exc.stderr or ''}",
                   time.monotonic() - started)
    return Ran(script, smoke, done.returncode, f"{done.stdout}\n{done.stderr}",
               time.monotonic() - started)


def test_every_bench_script_runs_at_a_tiny_size_and_prints_its_figures(tmp_path: Path) -> None:
    runs = [(script, smoke) for script, smokes in SMOKE.items() if not isinstance(smokes, str)
            for smoke in smokes]
    runs.sort(key=lambda run: run[0] not in LONGEST)  # stable: the rest in the listed order
    with FakePlannerLLM(reading(["REVENUE"], ["ORBIS_CN"], ["FY2024"])) as llm, \
            ThreadPoolExecutor(AT_ONCE) as pool:
        done = list(pool.map(lambda item: run(item[1][0], item[1][1],
                                              tmp_path / f"{item[0]:02d}-{item[1][0]}", llm.url),
                             enumerate(runs)))
    for r in sorted(done, key=lambda r: -r.seconds):  # shown with -rP or on a failure
        print(f"{r.seconds:6.1f} s  {r.script} {' '.join(r.smoke.args)}")
    failed = [
        f"{r.script} {' '.join(r.smoke.args)}: "
        + ("did not finish" if r.code is None else
           f"exited {r.code} (expected {r.smoke.exit})" if r.code != r.smoke.exit else
           f"printed no /{r.smoke.prints}/")
        + f" after {r.seconds:.0f} s\n{r.output[-2500:]}"
        for r in done
        if r.code != r.smoke.exit or not re.search(r.smoke.prints, r.output)
    ]
    assert not failed, "\n\n".join(failed)
