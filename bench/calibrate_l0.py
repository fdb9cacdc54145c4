"""Calibrate the L0b cosine threshold on what matters: wrong answers served, not raw cosine.

For every labeled pair of tests/fixtures/paraphrases.jsonl, on the demo knowledge base: ask `a`
(its plan is cached), then ask `b` through the cascade with L0b at threshold t, and compare the
answer with a planner that has no cache. A replayed plan re-resolves every slot from `b` and is
refused when `b` has another shape, so a high cosine between "revenue FY2024" and "revenue
FY2025" is harmless; what the threshold must stop is a slot-free plan (the clock) reaching a
vague question. Prints, per threshold, L0b hits on paraphrases and wrong answers (must be 0):
an L0b answer that differs from the planner's where the planner had a real answer, or on a
pair labeled "not the same question".

    python bench/calibrate_l0.py [--embedder use|hashing] [--pairs N] [--thresholds 0.6,0.8]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.models.embedders import HashingEmbedder, UseEmbedder  # noqa: E402
from core.contracts.types import Request  # noqa: E402
from core.fastpath.plan_cache import PlanCache  # noqa: E402
from core.knowledge.glossary import load_glossary  # noqa: E402
from core.pipeline.pipeline import Pipeline  # noqa: E402
from core.planning.answering import Answerer  # noqa: E402
from storage.db import open_database  # noqa: E402
from storage.fact_files import read_fact_file  # noqa: E402
from storage.fact_store import SqlFactStore  # noqa: E402
from storage.fastpath_store import SqlFastpathStore  # noqa: E402

DEMO = ROOT / "bot" / "demo"
PAIRS = ROOT / "tests" / "fixtures" / "paraphrases.jsonl"
REF = dt.date(2026, 6, 15)
NOW = dt.datetime(2026, 6, 15, 9, 30, tzinfo=dt.UTC)
THRESHOLDS = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)


def visible(answer) -> dict:  # type: ignore[no-untyped-def]
    d = answer.to_dict()
    for key in ("turn_id", "served_by", "latency_ms"):
        d.pop(key)
    return d


def calibrate(
    embedder_name: str = "use", thresholds: tuple[float, ...] = THRESHOLDS,
    limit: int | None = None,
) -> list[tuple[float, int, int, int, int]]:
    """Rows of (threshold, L0b hits on label 1, label-1 pairs, L0b hits on label 0, wrong);
    `limit`: the first pairs only (the smoke test)."""
    embedder = UseEmbedder() if embedder_name == "use" else HashingEmbedder()
    glossary = load_glossary(DEMO / "glossary.toml")
    pairs = [json.loads(x) for x in PAIRS.read_text(encoding="utf-8").splitlines() if x.strip()]
    pairs = pairs[:limit]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        engine = open_database(f"sqlite:///{Path(tmp) / 'c.db'}")
        facts = SqlFactStore(engine)
        report = read_fact_file(
            DEMO / "facts.csv",
            known_metrics=glossary.metrics,
            known_entities=glossary.entities,
            known_channels=glossary.channels,
        )
        facts.upsert_facts(report.facts)
        planner = Answerer(glossary=glossary, facts=facts, today=lambda: REF, now=lambda: NOW)
        fastpaths = SqlFastpathStore(engine)
        for t in thresholds:
            cascade = Pipeline(planner, PlanCache(
                fastpaths=fastpaths,
                catalog=planner.catalog,
                embedder=lambda: embedder,
                thresholds=lambda: embedder.thresholds,
                l0_threshold=t,
                clock=lambda: NOW,
            ))
            hits1 = hits0 = wrong = 0
            for pair in pairs:
                fastpaths.purge_all()
                cascade.answer(Request(pair["a"], reference_date=REF))
                request = Request(pair["b"], reference_date=REF)
                got = cascade.answer(request)
                if got.served_by == "L0b":
                    hits1 += pair["label"] == 1
                    hits0 += pair["label"] == 0
                    expected = Pipeline(planner).answer(request)
                    # a paraphrase the rules do not know is the point of L0b: only a differing
                    # answer where the planner itself had a real answer, or any differing
                    # answer on a non-paraphrase, is wrong
                    differs = visible(got) != visible(expected)
                    wrong += differs and (pair["label"] == 0 or expected.succeeded)
            positives = sum(p["label"] == 1 for p in pairs)
            rows.append((t, hits1, positives, hits0, wrong))
        engine.dispose()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedder", default="use", choices=["use", "hashing"])
    parser.add_argument("--pairs", type=int, default=None, help="the first N pairs only")
    parser.add_argument("--thresholds", default=",".join(map(str, THRESHOLDS)),
                        help="comma-separated cosine thresholds")
    args = parser.parse_args()
    try:
        thresholds = tuple(float(t) for t in args.thresholds.split(",") if t.strip())
    except ValueError:
        parser.error(f"--thresholds: numbers separated by commas, not {args.thresholds!r}")
    rows = calibrate(args.embedder, thresholds, args.pairs)
    print(f"{'l0':>5} {'L0b on paraphrases':>20} {'L0b on non-paraphrases':>24} {'wrong':>6}")
    for t, h1, n1, h0, wrong in rows:
        print(f"{t:5.2f} {h1:>10}/{n1:<9} {h0:>24} {wrong:>6}")
    safe = [t for t, *_, wrong in rows if wrong == 0]
    print(f"lowest threshold with no wrong answer: {min(safe) if safe else 'none'}")


if __name__ == "__main__":
    main()
