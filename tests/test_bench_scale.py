"""The scale bench at a tiny size (issue 28), so it cannot rot: every measure is produced, and
what it shows about a one-document ingest is what the design promises."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_the_scale_bench_runs_and_a_one_document_ingest_rebuilds_nothing(tmp_path: Path) -> None:
    out = tmp_path / "scale.json"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "bench/bench_scale.py", "--tiny", "--store", "sqlite",
         "--embedder", "hashing", "--json", str(out)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=600, check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "| hybrid retrieval p50 (ms) |" in done.stdout
    [result] = json.loads(out.read_text())
    assert result["store"] == "sqlite" and result["chunks"] == 400
    ingest = result["ingest"]
    assert min(ingest["facts_per_s"], ingest["chunks_per_s"], ingest["vectors_per_s"]) > 0
    [replica] = result["replicas"]
    for key in ("structured_ready_s", "hybrid_ready_s", "rss_mb", "hybrid_p50_ms",
                "hybrid_p99_ms", "structured_p50_ms", "sees_new_doc_s"):
        assert replica[key] > 0, key
    assert replica["hybrid_p50_ms"] <= replica["hybrid_p99_ms"]
    assert result["baseline_structured_p50_ms"] > 0
    assert replica["chunk_rows_read_at_start"] == 400
    assert replica["chunks_tokenised_at_start"] == 0  # the tokens stored at ingest were read
    assert ingest["tokens_per_s"] > 0 and ingest["db_mb"] > 0
    assert replica["chunk_rows_read_for_one_doc"] == 1  # the new document only
    # restarted on the same data dir: the saved index is mapped; only the document ingested
    # since it was saved is read
    assert result["restarted"]["chunk_rows_read_at_start"] == 1
