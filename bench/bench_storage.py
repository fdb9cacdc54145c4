"""Storage latencies against the design targets.

    .venv/bin/python bench/bench_storage.py [--facts 10000] [--turns 2000] [--postgres URL]

- fact load: 10,000 facts in "a couple of seconds at most" (first load, then an idempotent reload)
- fact lookup: what one structured answer asks of the store (periods + lookup), target well under
  the 0.5 ms budget of a whole structured answer
- turn write: one recorded turn per answered request, target p50 <= 2 ms, p99 <= 10 ms on SQLite

PostgreSQL runs in a throwaway schema, dropped at the end.
"""

from __future__ import annotations

import argparse
import secrets
import statistics
import tempfile
import time
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

from sqlalchemy.engine import Engine

from core.contracts.ports import TurnRecord
from core.contracts.types import Fact, Period, PeriodType, Source
from storage.db import open_database
from storage.fact_store import SqlFactStore
from storage.turn_store import SqlTurnStore, new_turn_id

ENTITIES = [f"ENTITY_{i:02d}" for i in range(20)]
METRICS = [f"METRIC_{i:02d}" for i in range(10)]


def make_facts(n: int) -> list[Fact]:
    facts: list[Fact] = []
    i = 0
    while len(facts) < n:
        metric = METRICS[i % len(METRICS)]
        entity = ENTITIES[(i // len(METRICS)) % len(ENTITIES)]
        month = i // (len(METRICS) * len(ENTITIES))
        period = Period(PeriodType.M, f"{2000 + month // 12}-{month % 12 + 1:02d}")
        facts.append(
            Fact(metric, entity, period, "TOTAL", Decimal(f"{i}.25"), "EUR_M", Source("b.csv", ""))
        )
        i += 1
    return facts


def percentiles(samples_ms: list[float]) -> str:
    ordered = sorted(samples_ms)
    p50 = statistics.median(ordered)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"p50 {p50:.3f} ms  p99 {p99:.3f} ms  max {ordered[-1]:.3f} ms  (n={len(ordered)})"


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def bench(label: str, engine: Engine, n_facts: int, n_turns: int) -> None:
    facts = make_facts(n_facts)
    store = SqlFactStore(engine)
    load_ms = timed(lambda: store.upsert_facts(facts))
    reload_ms = timed(lambda: store.upsert_facts(facts))
    print(f"[{label}] load {n_facts} facts: {load_ms:.0f} ms; reload unchanged: {reload_ms:.0f} ms")

    probes = facts[:: max(1, len(facts) // 2000)]
    samples = []
    for f in probes:
        start = time.perf_counter()
        latest = store.periods(f.metric, f.entity, f.channel)[0]
        store.lookup(f.metric, f.entity, latest, f.channel)
        store.lookup(f.metric, f.entity, f.period, f.channel)
        samples.append((time.perf_counter() - start) * 1000)
    print(f"[{label}] periods + 2 lookups: {percentiles(samples)}")

    turns = SqlTurnStore(engine)
    samples = []
    for i in range(n_turns):
        record = TurnRecord(
            id=new_turn_id(),
            chat="telegram:1",
            user="telegram:42",
            question=f"What was revenue of entity {i % 20} in FY2024?",
            language="en",
            route="structured",
            served_by="planner",
            plan=[{"tool": "query_metric", "args": {"metric": "REVENUE", "period": "FY2024"}}],
            answer_text="Revenue FY2024: 1,320 EUR_M (source: review.pptx, slide=2)",
            options=[{"label": "Orbis China", "slot": "entity", "value": "ORBIS_CN"}],
            fixed_slots={},
            latency_ms=1.2,
            answer={"facts": [{"status": "found", "value": 1320}], "text": "Revenue ..."},
        )
        samples.append(timed(lambda r=record: turns.record_turn(r)))
    print(f"[{label}] record_turn: {percentiles(samples[10:])}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=10_000)
    parser.add_argument("--turns", type=int, default=2_000)
    parser.add_argument("--postgres", help="e.g. postgresql+psycopg://postgres@127.0.0.1:5432/test")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        engine = open_database(f"sqlite:///{Path(tmp) / 'bench.db'}")
        try:
            bench("sqlite", engine, args.facts, args.turns)
        finally:
            engine.dispose()

    if args.postgres:
        import psycopg

        libpq = args.postgres.replace("postgresql+psycopg://", "postgresql://", 1)
        schema = f"ricorda_bench_{secrets.token_hex(4)}"
        with psycopg.connect(libpq, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')
        try:
            engine = open_database(f"{args.postgres}?options=-csearch_path%3D{schema}")
            try:
                bench("postgres", engine, args.facts, args.turns)
            finally:
                engine.dispose()
        finally:
            with psycopg.connect(libpq, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


if __name__ == "__main__":
    main()
