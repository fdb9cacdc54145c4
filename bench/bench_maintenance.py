"""Nightly maintenance over a large database (issue 7): target <= 10 s for 100,000 L0 entries
in a database that also holds 1,000,000 turns.

    .venv/bin/python bench/bench_maintenance.py [--entries 100000] [--turns 1000000]
        [--dim 512] [--postgres URL]

The entries look like a busy bot's: ages over 120 days, a skewed use count, last uses spread
over the age, 1% of plans naming a retired tool, 300 recurring multi-step groups (promotion
candidates) and one approved executor whose 1,000 source entries die with inheritance. With
the default cap of 500 entries nearly everything goes, the worst case for deletion and logging;
a second database with the cap lifted measures the aging rules alone. Each scenario is timed as
a dry run (scan and decide) and as a real run (scan, decide, delete, log, propose).
"""

from __future__ import annotations

import argparse
import datetime as dt
import secrets
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from sqlalchemy.engine import Engine

from core.nightly.maintenance import Maintenance, MaintenanceReport
from core.nightly.maintenance_rules import AgingPolicy, PromotionPolicy
from core.nightly.promotion import Promotions
from core.planning.catalog import Catalog
from core.planning.plan import Plan
from storage.db import open_database
from storage.fastpath_tables import FastpathRow
from storage.maintenance_lock import MaintenanceLock
from storage.maintenance_store import SqlMaintenanceStore
from storage.maintenance_tables import ExecutorRow, PromotionRow
from storage.promotion_store import SqlPromotionStore
from storage.tables import TurnRow

NOW = dt.datetime(2026, 6, 15, 3, 30, tzinfo=dt.UTC)
FP = FastpathRow.__table__  # type: ignore[attr-defined]
TURNS = TurnRow.__table__  # type: ignore[attr-defined]
EXEC = ExecutorRow.__table__  # type: ignore[attr-defined]
PROMO = PromotionRow.__table__  # type: ignore[attr-defined]
GROUPS, HEIR_MEMBERS = 300, 1000


def plans() -> dict[str, Plan]:
    single = Plan("structured", [{"tool": "query_metric", "args": {"metric": "${metric[0]}"}}],
                  shape={"metric": 1}, intent="structured:REVENUE")
    multi = Plan("composite", [
        {"tool": "query_metric", "args": {"metric": "${metric[0]}"}},
        {"tool": "search_documents", "args": {"query": "${query}"}},
        {"tool": "compose_narrative", "args": {"rerank": False}},
    ], shape={"metric": 1}, intent="composite:REVENUE")
    retired = Plan("tool", [{"tool": "currency_convert", "args": {}}], intent="tool:fx")
    return {"single": single, "multi": multi, "retired": retired}


def fill(engine: Engine, entries: int, turns: int, dim: int) -> float:
    started = time.perf_counter()
    rng = np.random.default_rng(7)
    p = plans()
    fh = {k: v.framework_hash() for k, v in p.items()}
    with engine.begin() as conn:
        conn.execute(EXEC.insert(), {
            "name": "macro_heir", "route": "composite", "steps": p["multi"].steps,
            "shape": p["multi"].shape, "assumed": [], "intent": "composite:HEIR",
            "framework_hash": fh["multi"], "status": "active", "inherited_uses": 0,
            "approved_by": "bench", "created_at": NOW,
        })
        for lo in range(0, entries, 5000):
            hi = min(entries, lo + 5000)
            ages = rng.uniform(0, 120, hi - lo)
            uses = rng.geometric(0.3, hi - lo) - 1
            vectors = rng.standard_normal((hi - lo, dim)).astype("<f4")
            batch, links = [], []
            for j, i in enumerate(range(lo, hi)):
                if i < HEIR_MEMBERS:
                    kind, intent = "multi", "composite:HEIR"
                elif i < HEIR_MEMBERS + GROUPS * 4:
                    kind, intent = "multi", f"composite:G{i % GROUPS}"
                elif i % 100 == 0:
                    kind, intent = "retired", "tool:fx"
                else:
                    kind, intent = "single", f"structured:M{i % 50}"
                created = NOW - dt.timedelta(days=float(ages[j]))
                last = created + dt.timedelta(days=float(ages[j]) * float(rng.random()))
                h = f"{i:016x}"
                batch.append({
                    "id": f"{i:032x}", "canonical_text": f"benchmark question {i}",
                    "canonical_hash": h, "plan": p[kind].to_dict(), "route": p[kind].route,
                    "intent": intent, "intent_hash": "ih", "framework_hash": fh[kind],
                    "origin": "planner", "query_specific": False, "embedder": "bench",
                    "embedding": vectors[j].tobytes(), "created_at": created,
                    "last_used_at": last if uses[j] else created, "updated_at": created,
                    "revision": 0, "n_uses": int(uses[j]) + (20 if kind == "multi" else 0),
                })
                if i < HEIR_MEMBERS:
                    links.append({"executor_name": "macro_heir", "fastpath_id": f"{i:032x}",
                                  "canonical_hash": h, "framework_hash": fh["multi"],
                                  "created_at": NOW})
            conn.execute(FP.insert(), batch)
            if links:
                conn.execute(PROMO.insert(), links)
    for lo in range(0, turns, 20_000):
        with engine.begin() as conn:
            conn.execute(TURNS.insert(), [
                {"id": f"t{i:015x}", "chat": f"telegram:{i % 300}", "user": "u",
                 "question": f"benchmark question {i % entries}", "language": "en",
                 "route": "structured", "served_by": "L0a", "plan": [], "answer_text": "42",
                 "options": [], "fixed_slots": {}, "answer": {}, "latency_ms": 1.0,
                 "created_at": NOW - dt.timedelta(seconds=i)}
                for i in range(lo, min(turns, lo + 20_000))
            ])
    return time.perf_counter() - started


def job(engine: Engine, max_entries: int) -> Maintenance:
    store = SqlPromotionStore(engine)
    catalog = Catalog(composites=store.composites)
    promotions = Promotions(store, catalog=catalog, policy=PromotionPolicy(), clock=lambda: NOW)
    return Maintenance(
        store=SqlMaintenanceStore(engine), promotions=promotions, catalog=catalog,
        aging=AgingPolicy(max_entries=max_entries), clock=lambda: NOW,
        lock=MaintenanceLock(engine), tz=dt.UTC,
    )


def timed(run: Callable[[], MaintenanceReport]) -> tuple[float, MaintenanceReport]:
    started = time.perf_counter()
    report = run()
    return time.perf_counter() - started, report


def scenario(label: str, make_engine: Callable[[], Engine], args: argparse.Namespace,
             max_entries: int) -> list[tuple[str, str, str, str, str]]:
    engine = make_engine()
    try:
        filled = fill(engine, args.entries, args.turns, args.dim)
        print(f"[{label}] filled {args.entries:,} entries and {args.turns:,} turns "
              f"in {filled:.0f} s")
        rows = []
        for mode in ("dry run", "run"):
            seconds, report = timed(lambda m=mode: job(engine, max_entries).run(
                dry_run=m == "dry run"))
            counts = ", ".join(f"{k}={v:,}" for k, v in report.counts().items())
            proposed = sum(1 for n in report.promotions if "propose" in n.action)
            rows.append((label, mode, f"{seconds:.2f}", counts, str(proposed)))
        return rows
    finally:
        engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--turns", type=int, default=1_000_000)
    parser.add_argument("--dim", type=int, default=512)
    parser.add_argument("--postgres", default=None, help="also run on this PostgreSQL URL")
    args = parser.parse_args()

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for cap, name in ((500, "cap 500"), (10**9, "no cap")):
            path = Path(tmp) / f"{secrets.token_hex(3)}.db"
            rows += scenario(f"SQLite, {name}", lambda p=path: open_database(f"sqlite:///{p}"),
                             args, cap)
            path.unlink()
    if args.postgres:
        rows += postgres_rows(args)

    widths = [max(len(r[i]) for r in [*rows, HEADER]) for i in range(5)]
    for r in [HEADER, *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))
    worst = max(float(r[2]) for r in rows)
    print(f"\nslowest maintenance: {worst:.2f} s (target <= 10 s) -> "
          f"{'OK' if worst <= 10 else 'OVER'}")


HEADER = ("database", "mode", "seconds", "removed by rule", "proposed")


def postgres_rows(args: argparse.Namespace) -> list[tuple[str, str, str, str, str]]:
    import psycopg

    libpq = args.postgres.replace("postgresql+psycopg://", "postgresql://", 1)
    schema = f"ricorda_bench_{secrets.token_hex(4)}"
    with psycopg.connect(libpq, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        sep = "&" if "?" in args.postgres else "?"
        url = f"{args.postgres}{sep}options=-csearch_path%3D{schema}"
        return scenario("PostgreSQL, cap 500", lambda: open_database(url), args, 500)
    finally:
        with psycopg.connect(libpq, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


if __name__ == "__main__":
    main()
