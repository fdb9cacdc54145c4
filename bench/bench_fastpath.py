"""L0 plan-cache latencies and memory against the design targets (docs/fast-path.md, issue 4).

    .venv/bin/python bench/bench_fastpath.py [--sizes 1000,10000,100000] [--dims 512,1024]
        [--store-dim 1024] [--queries 400] [--postgres URL | --no-postgres]

- L0a `by_hash`: p50 <= 1 ms at 100,000 entries (SQLite; PostgreSQL when reachable).
- L0b `nearest`: p50 <= 5 ms at 100,000 entries, the query embedding excluded: the cosine index
  alone at 512 (USE) and 1024 (BGE-M3) dimensions, and through the store (index search + re-read
  by id + exact re-score) at `--store-dim`.
- Index build time (from vectors in memory; from the database on a store's first search), memory
  per 100,000 entries, and recall@1 of the sketch search against an exact scan for exact
  duplicates and near-duplicates (cosine 0.90-0.99) of stored vectors.

Vectors are "clustered" like sentence embeddings: a shared direction plus 2,000 centres, so
unrelated entries sit at cosine ~0.3-0.6. PostgreSQL runs in a throwaway schema, dropped at the
end. Columns are the sizes; the last column is the ratio of the largest size to the smallest.
"""

from __future__ import annotations

import argparse
import datetime as dt
import secrets
import statistics
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from sqlalchemy import select
from sqlalchemy.engine import Engine

from core.contracts.fastpath import FastpathEntry, new_fastpath_id
from core.fastpath.canonical import canonical_hash
from core.fastpath.cosine_index import CosineIndex
from storage.db import open_database
from storage.fastpath_store import SqlFastpathStore
from storage.fastpath_tables import FastpathGenerationRow, FastpathRow

DEFAULT_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
TABLE = FastpathRow.__table__  # type: ignore[attr-defined]
GENERATION = FastpathGenerationRow.__table__  # type: ignore[attr-defined]
T0 = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)

Row = dict[str, float | str]


# --- data ------------------------------------------------------------------------------------


def unit(matrix: np.ndarray) -> np.ndarray:
    return (matrix / np.linalg.norm(matrix, axis=-1, keepdims=True)).astype(np.float32)


def clustered(n: int, dim: int, seed: int = 0, centres: int = 2000) -> np.ndarray:
    rng = np.random.default_rng(seed)
    common = unit(rng.standard_normal(dim))
    centre = unit(rng.standard_normal((centres, dim)))
    noise = unit(rng.standard_normal((n, dim), dtype=np.float32))
    return unit(0.6 * common + 0.55 * centre[rng.integers(0, centres, n)] + 0.55 * noise)


def uniform(n: int, dim: int, seed: int = 0) -> np.ndarray:
    return unit(np.random.default_rng(seed).standard_normal((n, dim), dtype=np.float32))


def near_copies(x: np.ndarray, seed: int, low: float = 0.90, high: float = 0.99) -> np.ndarray:
    rng = np.random.default_rng(seed)
    target = rng.uniform(low, high, (len(x), 1)).astype(np.float32)
    noise = rng.standard_normal(x.shape).astype(np.float32)
    noise -= (noise * x).sum(axis=1, keepdims=True) * x
    return unit(target * x + np.sqrt(1 - target**2) * unit(noise))


# --- measuring -------------------------------------------------------------------------------


def latencies(
    fn: Callable[[object], object], inputs: list[object], warmup: int = 20
) -> list[float]:
    for item in inputs[:warmup]:
        fn(item)
    samples = []
    for item in inputs:
        start = time.perf_counter()
        fn(item)
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def p50(samples: list[float]) -> float:
    return statistics.median(samples)


def p99(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


@contextmanager
def allocated() -> Iterator[list[int]]:
    """Bytes still allocated (Python objects and numpy arrays) when the block ends."""
    out: list[int] = []
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    try:
        yield out
    finally:
        out.append(tracemalloc.get_traced_memory()[0] - before)
        tracemalloc.stop()


def print_table(title: str, sizes: list[int], rows: dict[str, dict[int, float]]) -> None:
    print(f"\n{title}")
    head = f"{'':44}" + "".join(f"{n:>12,}" for n in sizes) + f"{'ratio':>10}"
    print(head)
    for label, values in rows.items():
        cells = "".join(
            f"{values[n]:>12.3f}" if n in values else f"{'-':>12}" for n in sizes
        )
        first, last = values.get(sizes[0]), values.get(sizes[-1])
        ratio = f"{last / first:>9.1f}x" if first and last else f"{'-':>10}"
        print(f"{label:44}{cells}{ratio}")


# --- the cosine index alone ------------------------------------------------------------------


def bench_index(sizes: list[int], dims: list[int], queries: int) -> None:
    """Latency and memory on clustered vectors; recall on clustered and on uniform random ones
    (uniform is the hard case for any data-dependent scheme, clustered is what embeddings are)."""
    for dim in dims:
        rows: dict[str, dict[int, float]] = {}
        recall: dict[str, dict[int, float]] = {}
        for kind in ("clustered", "random"):
            make = clustered if kind == "clustered" else uniform
            vectors = make(max(sizes), dim)
            for n in sizes:
                index = CosineIndex(dim)
                ids = [f"{i:032x}" for i in range(n)]
                with allocated() as held:
                    start = time.perf_counter()
                    index.add_many(ids, vectors[:n])
                    build_ms = (time.perf_counter() - start) * 1000
                picked = vectors[np.random.default_rng(n).choice(n, min(queries, n), replace=False)]
                bands = {
                    "exact duplicate": picked,
                    "cos 0.90-0.99": near_copies(picked, seed=n),
                    "cos 0.80-0.90": near_copies(picked, seed=n + 1, low=0.80, high=0.90),
                }
                if kind == "clustered":
                    search = index.search
                    samples = latencies(lambda q, f=search: f(q, 1), list(bands["cos 0.90-0.99"]))
                    rows.setdefault("nearest p50, ms", {})[n] = p50(samples)
                    rows.setdefault("nearest p99, ms", {})[n] = p99(samples)
                    rows.setdefault("build from vectors, ms", {})[n] = build_ms
                    per_100k = held[0] / n * 100_000 / 1e6
                    rows.setdefault("memory per 100k entries, MB", {})[n] = per_100k
                for band, qs in bands.items():
                    agree = [index.search(q)[0][0] == index.search(q, exact=True)[0][0] for q in qs]
                    recall.setdefault(f"{kind}, {band}", {})[n] = float(np.mean(agree))
        print_table(f"L0b cosine index alone, {dim} dimensions", sizes, rows)
        print_table(f"recall@1 vs an exact scan, {dim} dimensions", sizes, recall)


# --- the store on a database -----------------------------------------------------------------


def bulk_insert(engine: Engine, vectors: np.ndarray, start: int, stop: int, embedder: str) -> None:
    with engine.begin() as conn:
        for lo in range(start, stop, 2000):
            batch = []
            for i in range(lo, min(stop, lo + 2000)):
                text = f"benchmark question number {i}"
                batch.append({
                    "id": f"{i:032x}",
                    "canonical_text": text,
                    "canonical_hash": canonical_hash(text),
                    "plan": {"steps": [{"tool": "query_metric", "args": {"metric": "${metric}"}}]},
                    "route": "structured",
                    "intent": "structured:REVENUE",
                    "intent_hash": "ih",
                    "framework_hash": "fh",
                    "origin": "planner",
                    "query_specific": i % 10 == 9,
                    "embedder": embedder,
                    "embedding": vectors[i].astype("<f4").tobytes(),
                    "created_at": T0,
                    "last_used_at": T0,
                    "updated_at": T0,
                    "revision": 0,  # as if written before any store watched
                    "n_uses": i % 7,
                })
            conn.execute(TABLE.insert(), batch)


def bench_store(label: str, engine: Engine, sizes: list[int], dim: int, queries: int) -> None:
    vectors = clustered(max(sizes), dim, seed=1)
    rows: dict[str, dict[int, float]] = {}
    have = 0
    for n in sizes:
        start = time.perf_counter()
        bulk_insert(engine, vectors, have, n, "bge-m3")
        insert_s = time.perf_counter() - start
        have = n
        rng = np.random.default_rng(n)
        probes = [canonical_hash(f"benchmark question number {i}") for i in rng.integers(0, n, 500)]

        store = SqlFastpathStore(engine)
        samples = latencies(store.by_hash, probes)  # type: ignore[arg-type]
        rows.setdefault("L0a by_hash p50, ms", {})[n] = p50(samples)
        rows.setdefault("L0a by_hash p99, ms", {})[n] = p99(samples)

        start = time.perf_counter()
        store.refresh()  # what the first nearest() does
        build_ms = (time.perf_counter() - start) * 1000
        picked = [i for i in rng.choice(n, min(queries * 2, n), replace=False) if i % 10 != 9]
        nears = list(near_copies(vectors[picked[:queries]], seed=n))
        samples = latencies(lambda q, s=store: s.nearest(q, embedder="bge-m3"), nears)
        rows.setdefault("L0b nearest p50 (index + re-read), ms", {})[n] = p50(samples)
        rows.setdefault("L0b nearest p99 (index + re-read), ms", {})[n] = p99(samples)
        rows.setdefault("change check p50 (at most every 2 s), ms", {})[n] = p50(
            latencies(check_changes(engine), list(range(50)), warmup=5)
        )
        rows.setdefault("catch up after a write elsewhere p50, ms", {})[n] = p50(
            catch_up_samples(engine, store, dim, rounds=7)
        )
        rows.setdefault("index build from database, ms", {})[n] = build_ms
        print(f"[{label}] {n:,} rows inserted in {insert_s:.1f} s")
    print_table(f"[{label}] store, {dim} dimensions", sizes, rows)

    fresh = SqlFastpathStore(engine)
    with allocated() as held:
        fresh.refresh()
    indexed = len(fresh._known)  # bench only: how many entries the indexes hold
    print(f"[{label}] store memory (indexes + bookkeeping): {held[0] / 1e6:.0f} MB for "
          f"{indexed:,} indexed entries = {held[0] / indexed * 100_000 / 1e6:.0f} MB per 100k")


SEEN = select(GENERATION.c.revision, GENERATION.c.deletions).where(GENERATION.c.id == 1)


def check_changes(engine: Engine) -> Callable[[object], None]:
    """The query a store runs at most every `refresh_seconds` to notice other replicas."""

    def check(_: object) -> None:
        with engine.connect() as conn:
            conn.execute(SEEN).first()

    return check


def catch_up_samples(engine: Engine, store: SqlFastpathStore, dim: int, rounds: int) -> list[float]:
    """What the one request that notices another replica's registration pays: the rows with a
    newer revision, fetched through the revision index."""
    other = SqlFastpathStore(engine)
    vectors = clustered(rounds, dim, seed=99)
    samples = []
    for i in range(rounds):
        text = f"another replica's question {secrets.token_hex(4)}"
        other.upsert(FastpathEntry(
            id=new_fastpath_id(), canonical_text=text, canonical_hash=canonical_hash(text),
            plan={}, route="structured", intent="i", intent_hash="ih", framework_hash="fh",
            origin="planner", query_specific=False, embedder="bge-m3", embedding=vectors[i],
            created_at=T0, last_used_at=T0,
        ))
        start = time.perf_counter()
        store.refresh()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def with_postgres(url: str, run: Callable[[Engine], None]) -> None:
    import psycopg

    libpq = url.replace("postgresql+psycopg://", "postgresql://", 1)
    try:
        psycopg.connect(libpq, connect_timeout=3).close()
    except Exception as exc:  # any failure means "not available here"
        print(f"\nPostgreSQL at {url} unreachable ({exc.__class__.__name__}); skipped")
        return
    schema = f"ricorda_bench_{secrets.token_hex(4)}"
    with psycopg.connect(libpq, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        separator = "&" if "?" in url else "?"
        engine = open_database(f"{url}{separator}options=-csearch_path%3D{schema}")
        try:
            run(engine)
        finally:
            engine.dispose()
    finally:
        with psycopg.connect(libpq, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--dims", default="512,1024")
    parser.add_argument("--store-dim", type=int, default=1024)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--postgres", default=DEFAULT_POSTGRES)
    parser.add_argument("--no-postgres", action="store_true")
    args = parser.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(","))
    dims = [int(d) for d in args.dims.split(",")]

    bench_index(sizes, dims, args.queries)
    with tempfile.TemporaryDirectory() as tmp:
        engine = open_database(f"sqlite:///{Path(tmp) / 'bench.db'}")
        try:
            bench_store("sqlite", engine, sizes, args.store_dim, args.queries)
        finally:
            engine.dispose()
    if not args.no_postgres:
        with_postgres(
            args.postgres,
            lambda engine: bench_store("postgres", engine, sizes, args.store_dim, args.queries),
        )


if __name__ == "__main__":
    main()
