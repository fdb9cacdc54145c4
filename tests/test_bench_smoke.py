"""Every script in bench/ runs, at a tiny size, so a benchmark that breaks fails CI (issue 39).

A smoke run, not a timing: each script is started as a person would start it, with the smallest
settings that still walk its whole path, and must exit 0. A new script in bench/ must be listed
here (the first test fails until it is), so no benchmark can rot unseen.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "bench"

# script -> the tiny arguments it runs with here; None: tested elsewhere (the reason given)
SMOKE: dict[str, list[str] | None] = {
    "bench_cascade.py": ["--n", "2", "--serve-n", "2", "--history", "", "--busy", "0",
                         "--no-llm"],
    "bench_charts.py": ["--n", "1"],
    "bench_companies.py": ["--company", "alpina", "--lang", "en", "--only", "control"],
    "bench_disclosure_property.py": ["--examples", "3"],
    "bench_fairness.py": ["--chats", "2", "--rounds", "1"],
    "bench_fastpath.py": ["--sizes", "100", "--dims", "64", "--store-dim", "64",
                          "--queries", "3", "--no-postgres"],
    "bench_freshness.py": ["--n", "3", "--runs", "1", "--chunks", "40"],
    "bench_ingest.py": ["--tiny"],
    "bench_load.py": ["--chats", "2", "--rounds", "1"],
    "bench_maintenance.py": ["--entries", "60", "--turns", "60", "--dim", "16"],
    "bench_metric_phrases.py": [],
    "bench_planner.py": None,  # runs a real model: tests/test_model_planner_gguf.py (slow)
    "bench_retrieval.py": ["--chunks", "200", "--iterations", "2", "--ingest-docs", "2"],
    "bench_scale.py": None,  # tests/test_bench_scale.py runs it --tiny and reads its figures
    "bench_slack.py": ["--senders", "2", "--per-sender", "1", "--slow", "0"],
    "bench_startup.py": ["--runs", "1"],
    "bench_storage.py": ["--facts", "100", "--turns", "20"],
    "bench_structured.py": ["--n", "3"],
    "bench_tatqa.py": ["--data", str(REPO / "tests" / "data" / "tatqa_sample.json"),
                       "--questions", "3"],
    "bench_telegram.py": ["--chats", "2", "--rounds", "1"],
    "bench_understanding.py": ["--only", "control", "--lang", "en"],
    "calibrate_l0.py": ["--embedder", "hashing"],
    "calibrate_thresholds.py": ["--embedder", "hashing"],
    "run_all": ["--quick", "--only", "structured"],
}
LIBRARIES = {"benchkit.py"}  # imported by the scripts, not run


def test_every_bench_script_has_a_smoke_run() -> None:
    scripts = {p.name for p in BENCH.iterdir()
               if p.is_file() and (p.suffix == ".py" or os.access(p, os.X_OK))}
    assert scripts - LIBRARIES - {"__init__.py"} == set(SMOKE)


@pytest.mark.slow
@pytest.mark.parametrize("script", sorted(k for k, v in SMOKE.items() if v is not None))
def test_the_bench_script_runs_at_a_tiny_size(script: str, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RICORDA_")}
    env |= {"PYTHONPATH": str(REPO), "RICORDA_DATA_DIR": str(tmp_path / "data")}
    args = SMOKE[script]
    assert args is not None
    done = subprocess.run(
        [sys.executable, str(BENCH / script), *args],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900, check=False,
    )
    assert done.returncode == 0, f"{script} exited {done.returncode}\n{done.stderr[-3000:]}"
