"""Benchmark: ricorda at a company's size (issue 28): N chunks and M fact rows, on the embedded
default (SQLite + embedded Chroma) and on PostgreSQL + a Chroma server with replicas.

    python bench/bench_scale.py --chunks 100000 --facts 1000000 --store sqlite
    python bench/bench_scale.py --chunks 100000 --facts 1000000 --store postgres --replicas 2
    python bench/bench_scale.py --tiny      # seconds: what the smoke test runs
    python bench/bench_scale.py --lexical-only --chunks 1000000 --compare-with /tmp/before

Every measured part runs in its own process, as in production, so start-up time and memory are
those of a real replica: `build_app(load_settings(...))`, the first structured answer, the first
hybrid retrieval. Measures (one table per store):

- ingest: fact rows/s, chunk rows/s (SQL), chunk tokens/s (made for storing with the chunks),
  vectors/s (Chroma), the ingest process's peak RSS, the SQLite database's size;
- replica: seconds from process start to the first structured answer and to the first hybrid
  retrieval (split into the lexical index, the query embedder and the first search), how many
  chunks it had to tokenise, resident memory (RSS) after both, peak RSS;
- hybrid retrieval p50/p99 (5 rewritten queries, BM25 + vector + RRF; query embeddings made
  beforehand, as bench/bench_retrieval.py), uncleared chat;
- structured answer p50/p99 (`app.core.answering.answer`, as a serving adapter calls it)
  against the same questions on a 10,000-fact knowledge base with the same glossary, in the
  same run;
- a one-document ingest while the replicas serve: seconds until each replica retrieves the new
  chunk, how long its index update took and how many chunk rows it read for it (all of them
  means the lexical index was rebuilt from scratch).

The corpus is bench_retrieval's generator (80% en/it word salad with glossary names, 20%
Chinese sentences, every tenth chunk restricted, 20 chunks a document); chunk vectors are random
unit vectors (search cost does not depend on what they mean, and embedding a million chunks
with USE would take hours); queries are embedded with USE, the offline default. Facts are
monthly, quarterly, half-year and yearly figures per unit, metric and channel.

`--lexical-only` times BM25 search alone in one process (no database: the index is built from
the generated chunks), the 5 rewritten queries of each hybrid retrieval; each `--compare-with
DIR` (repeatable: e.g. `git worktree add --detach /tmp/t 9409d2f`) also searches the same index
with that checkout's core/documents/lexical.py, the trees taking turns query set by query set,
and counts the rankings that differ from this tree's. The bench runs against such a copy
too (then no tokens are stored at ingest): the before column of docs/scale.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_retrieval import ENTITIES, METRICS, QUESTIONS, synthetic_chunks  # noqa: E402
from benchkit import quantile  # noqa: E402

N_METRICS, N_CHANNELS, YEARS = 20, 5, range(2016, 2026)
CHANNELS = ["TOTAL", "ONLINE", "RETAIL", "WHOLESALE", "OUTLET"]
PER_ENTITY = N_METRICS * N_CHANNELS * len(YEARS) * (1 + 2 + 4 + 12)
BASELINE_FACTS = 10_000
CHUNKS_PER_DOC = 20
DIMENSIONS = {"use": 512, "hashing": 256}  # the chunk vectors match the query embedder
MARKER = "zebracornquokka"  # a word only the one-document ingest contains
TARGETS = {"hybrid_p50_ms": 50.0, "hybrid_p99_ms": 200.0, "ready_s": 30.0, "structured_ratio": 1.5}


# --- the knowledge base ----------------------------------------------------------------------


def n_entities(facts: int) -> int:
    return max(1, -(-facts // PER_ENTITY))


def glossary_text(entities: int) -> str:
    parts = ['[scope]\ndefault_entity = "E0000"\nfiscal_year_end = "12-31"\n']
    for m in range(N_METRICS):
        parts.append(f'[metrics.M{m:02d}]\nnames = ["metric{m:02d}", "misura{m:02d}"]\n'
                     'unit = "EUR_M"\n')
    for e in range(entities):
        parts.append(f'[entities.E{e:04d}]\nnames = ["Unit {e:04d}", "Unità {e:04d}"]\n')
    for c in CHANNELS:
        parts.append(f'[channels.{c}]\nnames = ["{c.title()} channel"]\n')
    return "\n".join(parts)


def periods(year: int) -> Iterator[tuple[str, str]]:
    yield "FY", str(year)
    for h in (1, 2):
        yield "HY", f"{year}H{h}"
    for q in range(1, 5):
        yield "Q", f"{year}Q{q}"
    for m in range(1, 13):
        yield "M", f"{year}-{m:02d}"


def facts(n: int) -> Iterator[Any]:
    """`n` fact rows, unit by unit; the first 10,000 are the baseline's."""
    from core.contracts.types import Fact, Period, PeriodType, Source

    made = 0
    for e in range(n_entities(n)):
        for m in range(N_METRICS):
            for c in CHANNELS:
                for y in YEARS:
                    for ptype, value in periods(y):
                        if made == n:
                            return
                        made += 1
                        yield Fact(f"M{m:02d}", f"E{e:04d}", Period(PeriodType(ptype), value), c,
                                   Decimal(f"{1000 + m * 7 + e}.{made % 100:02d}"), "EUR_M",
                                   Source("ledger.xlsx", f"row={made}"))


STRUCTURED_QUESTIONS = [f"What was Unit 0000 metric{m:02d} in FY{y}?"
                        for m in range(8) for y in (2019, 2022, 2025)]


def hybrid_query_sets() -> list[list[str]]:
    from core.documents.query_rewrite import rewrite_queries

    rng = random.Random(3)
    questions = [q.format(e=rng.choice(ENTITIES)[i % 3], m=rng.choice(METRICS)[0])
                 for i, q in enumerate(QUESTIONS * 4)]
    return [rewrite_queries(q, ENTITIES + METRICS, 5) for q in questions]


# --- processes -------------------------------------------------------------------------------


EMBEDDER = "use"  # --embedder; hashing only for the smoke test (no model to load)


def settings(data_dir: Path, db: str | None, chroma: str | None) -> Any:
    from bot.settings.model import load_settings

    return load_settings(data_dir=data_dir, database_url=db, chroma_url=chroma, embedder=EMBEDDER,
                         llm="none", retrieval_relevance_floor=-1.0, kb_check_interval_ms=200)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def rss_mb() -> float:
    import psutil

    return psutil.Process().memory_info().rss / 2**20


def run_ingest(args: argparse.Namespace) -> dict[str, Any]:
    """Load the glossary, the facts and the chunks (SQL rows + vectors) into a fresh KB."""
    from bot.kb.ingest import ingest_paths
    from bot.wiring.build import build_app
    from core.contracts.documents import DocumentRecord, DocumentSource
    from storage.columns import utcnow

    data = Path(args.data_dir)
    app = build_app(settings(data, args.db, args.chroma))
    glossary = data / "glossary.toml"
    glossary.write_text(glossary_text(n_entities(args.max_facts)))
    ingest_paths(app, [glossary])
    out: dict[str, Any] = {}
    start = time.perf_counter()
    app.storage.facts.upsert_facts(facts(args.facts))
    out["facts_per_s"] = args.facts / (time.perf_counter() - start)
    chunks = synthetic_chunks(args.chunks, random.Random(7))
    dim = DIMENSIONS[EMBEDDER]
    n_vectors = 0 if args.no_vectors else len(chunks)
    vectors = np.random.default_rng(7).standard_normal((n_vectors, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    sql_s = vec_s = tok_s = 0.0
    index = app.core.documents.vector_index() if chunks else None
    app.core.documents.chunks.save_source(DocumentSource("default", data / "docs", False, False))
    stored = tokens_of(app)
    for s in range(0, len(chunks), CHUNKS_PER_DOC):
        part = chunks[s : s + CHUNKS_PER_DOC]
        record = DocumentRecord(path=part[0].doc, sha256=f"{s:064x}", restricted=False,
                                ingested_at=utcnow(), n_chunks=len(part), source="default")
        t = time.perf_counter()
        tokens = stored(part) if stored is not None else None
        tok_s += time.perf_counter() - t
        t = time.perf_counter()
        if tokens is None:
            app.core.documents.chunks.replace_document(record, part)
        else:
            app.core.documents.chunks.replace_document(record, part, tokens)
        sql_s += time.perf_counter() - t
    t = time.perf_counter()
    for s in range(0, n_vectors, 5000):
        assert index is not None
        index.upsert(chunks[s : s + 5000], vectors[s : s + 5000])
    vec_s = time.perf_counter() - t
    if chunks:
        out["chunks_per_s"] = len(chunks) / sql_s
        if n_vectors:
            out["vectors_per_s"] = n_vectors / vec_s
        if stored is not None:
            out["tokens_per_s"] = len(chunks) / tok_s
    out["peak_rss_mb"] = peak_rss_mb()
    app.close()
    if args.db is None:  # SQLite: the database file (WAL included) the chunks live in
        out["db_mb"] = sum(f.stat().st_size for f in data.glob("ricorda.db*")) / 2**20
    return out


def tokens_of(app: Any) -> Any:
    """What ingest stores with each chunk (`ChunkTokenizer.stored`); None on an older release,
    which stores no tokens (the bench runs against a copy of one for the before column)."""
    documents = getattr(getattr(app, "core", None), "documents", None)
    tokenizer = getattr(documents, "chunk_tokenizer", None)
    return tokenizer().stored if tokenizer is not None else None


def run_one_doc(args: argparse.Namespace) -> dict[str, Any]:
    """Ingest one new document (chunk rows + vectors) the replicas have never seen."""
    from bot.wiring.build import build_app
    from core.contracts.documents import DocumentRecord
    from core.contracts.ports import Chunk
    from storage.columns import utcnow

    app = build_app(settings(Path(args.data_dir), args.db, args.chroma), one_shot=True)
    chunk = Chunk(id="new-000", doc="new.md", locator="para=0",
                  text=f"The {MARKER} programme changed how Orbis China sells online.")
    vector = np.random.default_rng(1).standard_normal((1, DIMENSIONS[EMBEDDER]))
    record = DocumentRecord(path="new.md", sha256="f" * 64, restricted=False,
                            ingested_at=utcnow(), n_chunks=1, source="default")
    start = time.perf_counter()
    app.core.documents.vector_index().upsert([chunk], vector / np.linalg.norm(vector))
    stored = tokens_of(app)  # the version moves with the chunks' commit
    if stored is None:
        app.core.documents.chunks.replace_document(record, [chunk])
    else:
        app.core.documents.chunks.replace_document(record, [chunk], stored([chunk]))
    out = {"committed_at": time.time(), "writer_s": time.perf_counter() - start}
    app.close()
    return out


def count_reads(app: Any) -> dict[str, int]:
    """Count the chunk rows this process reads to index them (a rebuild reads them all; the
    few an answer quotes, `get_chunks`, are not counted)."""
    counter = {"rows": 0}
    store = app.core.documents.chunks
    for name in ("all_chunks", "chunks_of", "indexed_chunks"):
        method = getattr(store, name, None)
        if method is None:
            continue

        def counted(*a: Any, _m: Any = method, **k: Any) -> Any:
            rows = _m(*a, **k)
            rows = list(rows)
            counter["rows"] += len(rows)
            return rows

        setattr(store, name, counted)
    return counter


def run_replica(args: argparse.Namespace) -> None:
    """A serving replica: start, answer, measure, then wait for the one-document ingest."""
    from bot.wiring.build import build_app
    from core.contracts.types import Request

    spawned = args.spawned
    out: dict[str, Any] = {}
    app = build_app(settings(Path(args.data_dir), args.db, args.chroma))
    chat = "console:bench"
    app.core.answering.answer(Request(text=STRUCTURED_QUESTIONS[0], chat=chat, user=chat))
    out["structured_ready_s"] = time.time() - spawned
    samples = []
    for i in range(args.iterations):
        q = STRUCTURED_QUESTIONS[i % len(STRUCTURED_QUESTIONS)]
        t = time.perf_counter()
        answer = app.core.answering.answer(Request(text=q, chat=chat, user=chat))
        samples.append((time.perf_counter() - t) * 1000)
        assert answer.facts, f"no figure for {q!r}: {answer.text}"
    out["structured_p50_ms"] = quantile(samples, 50)
    out["structured_p99_ms"] = quantile(samples, 99)
    if args.structured_only:
        out["rss_mb"], out["peak_rss_mb"] = rss_mb(), peak_rss_mb()
        print(json.dumps(out), flush=True)
        return
    reads = count_reads(app)
    t = time.perf_counter()
    retriever = app.core.documents.narrative.retriever()
    assert retriever is not None
    out["lexical_index_s"] = time.perf_counter() - t  # read the chunks, build or map the index
    query_sets = hybrid_query_sets()
    t = time.perf_counter()
    embeddings = [app.core.documents.embedder.embed(qs) for qs in query_sets]
    out["embedder_s"] = time.perf_counter() - t  # the query embedder loaded, queries embedded
    t = time.perf_counter()
    retriever.search(query_sets[0], embeddings[0], cleared=False, filters=None, k=8)
    out["first_search_s"] = time.perf_counter() - t  # Chroma opened, the first search
    out["hybrid_ready_s"] = time.time() - spawned
    samples = []
    for i in range(args.iterations):
        qs, emb = query_sets[i % len(query_sets)], embeddings[i % len(query_sets)]
        t = time.perf_counter()
        found = retriever.search(qs, emb, cleared=False, filters=None, k=8)
        samples.append((time.perf_counter() - t) * 1000)
        assert found and not any(s.chunk.restricted for s in found)
    out["hybrid_p50_ms"], out["hybrid_p99_ms"] = quantile(samples, 50), quantile(samples, 99)
    out["rss_mb"] = rss_mb()
    out["chunk_rows_read_at_start"] = reads["rows"]
    # an older release keeps no tokens: it tokenises every chunk row it reads
    lexical = app.core.documents._lexical
    out["chunks_tokenised_at_start"] = getattr(lexical, "tokenised", reads["rows"])
    print(json.dumps(out), flush=True)  # ready: the driver ingests one document now
    if args.restart:
        return
    sys.stdin.readline()
    marker = [MARKER]  # searched lexically: a random vector ranks the new chunk anywhere
    most, took = 0, 0.0  # the largest update: chunk rows read, seconds
    while True:
        app.core.answering.ensure_fresh()
        reads["rows"] = 0
        t = time.perf_counter()
        retriever = app.core.documents.narrative.retriever()
        assert retriever is not None
        if reads["rows"] > most:
            most, took = reads["rows"], time.perf_counter() - t
        found = retriever.search(marker, None, cleared=False, filters=None, k=1)
        if found and found[0].chunk.id == "new-000":
            break
        time.sleep(0.01)  # polling for the state itself: the new chunk retrieved
    seen = {"seen_at": time.time(), "update_s": took, "chunk_rows_read_for_one_doc": most,
            "peak_rss_mb": peak_rss_mb()}
    print(json.dumps(seen), flush=True)


# --- the lexical channel alone ----------------------------------------------------------------


def load_lexical(tree: Path) -> Any:
    """Another checkout's core/documents/lexical.py, loaded apart from this tree's modules."""
    import importlib.util

    path = tree / "core" / "documents" / "lexical.py"
    if not path.is_file():
        raise SystemExit(f"--compare-with {tree}: no core/documents/lexical.py there")
    spec = importlib.util.spec_from_file_location(f"lexical_{abs(hash(str(tree)))}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def tree_label(tree: Path) -> str:
    """A compared tree's name in the table: its commit when it is a git checkout."""
    done = subprocess.run(["git", "-C", str(tree), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True, check=False)
    return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else tree.name


def run_lexical_only(args: argparse.Namespace) -> dict[str, Any]:
    """BM25 search alone over `args.chunks` chunks, in this process: the 5 rewritten queries of
    a hybrid retrieval, uncleared, at the retriever's depth. Each `--compare-with DIR` tree's
    core/documents/lexical.py searches the same index (its arrays, not rebuilt; a tree from
    before the saved index, like 9409d2f, builds its own from the same tokens), the trees take
    turns query set by query set (who goes first rotates), and the rankings are compared."""
    from core.documents.lexical import Bm25Index, Tokenizer
    from core.documents.retrieval import DEPTH_PER_K, MIN_DEPTH

    names = tuple(sorted({n for group in ENTITIES + METRICS for n in group}))
    others = {tree_label(tree): load_lexical(tree) for tree in args.compare_with or ()}
    # a tree whose index cannot map this one's arrays is built from the chunks and tokens
    keep = [label for label, module in others.items()
            if not hasattr(module.Bm25Index, "from_state")]
    kept_chunks: list[Any] = []
    kept_tokens: list[list[str]] = []
    start = time.perf_counter()
    tokenizer = Tokenizer(names)
    index = Bm25Index((), tokenizer)
    batch = 50_000
    for b in range(0, args.chunks, batch):  # never the whole corpus in memory as text
        part = [replace(c, id=f"c{b + i:07d}", doc=f"doc{(b + i) // CHUNKS_PER_DOC:06d}")
                for i, c in enumerate(synthetic_chunks(min(batch, args.chunks - b),
                                                       random.Random(7 + b)))]
        tokens = [tokenizer.tokenize(c.text) for c in part]
        index._append(part, tokens)
        if keep:
            kept_chunks += part
            kept_tokens += tokens
    out: dict[str, Any] = {"chunks": args.chunks, "build_s": time.perf_counter() - start}
    searchers: dict[str, Any] = {"this tree": index}
    if others:
        arrays, header = index.state()
    for label, module in others.items():
        if label in keep:
            searchers[label] = module.Bm25Index(kept_chunks, module.Tokenizer(names),
                                                corpus=kept_tokens)
        else:
            searchers[label] = module.Bm25Index.from_state(arrays, header, tokenizer)
    del kept_chunks, kept_tokens
    depth = max(DEPTH_PER_K * 8, MIN_DEPTH)
    allowed = index.mask(cleared=False)
    query_sets = [[tokenizer.tokenize(q) for q in qs] for qs in hybrid_query_sets()]
    for searcher in searchers.values():  # warm: weights computed once per term, as a replica
        for qs in query_sets:
            for tokens in qs:
                searcher.search(tokens, depth, allowed=allowed)
    labels = list(searchers)
    samples: dict[str, list[float]] = {label: [] for label in labels}
    found: dict[str, list[list[str]]] = {label: [] for label in labels}
    for i in range(args.iterations):
        qs = query_sets[i % len(query_sets)]
        for label in labels[i % len(labels):] + labels[:i % len(labels)]:
            search = searchers[label].search
            t = time.perf_counter()
            hits = [search(tokens, depth, allowed=allowed) for tokens in qs]
            samples[label].append((time.perf_counter() - t) * 1000)
            found[label].append([cid for h in hits for cid, _ in h])
    out["trees"] = {
        label: {
            "p50_ms": quantile(samples[label], 50),
            "p99_ms": quantile(samples[label], 99),
            "rankings_differ": sum(a != b for a, b in zip(found[label], found["this tree"],
                                                          strict=True)),
            # the median of the query sets' own ratios: a slow moment slows both sides
            "ratio_to_this_tree": statistics.median(
                o / t for o, t in zip(samples[label], samples["this tree"], strict=True)),
        }
        for label in labels
    }
    out["rss_mb"] = rss_mb()
    return out


def print_lexical(result: dict[str, Any]) -> None:
    """The `--lexical-only` table: p50/p99 per tree, its ratio to this tree, same rankings."""
    print(f"BM25 search alone, {result['chunks']:,} chunks, 5 queries per retrieval, "
          f"trees taking turns (ms)")
    print(f"{'tree':12}{'p50':>10}{'p99':>10}{'this tree / it':>16}{'rankings differ':>17}")
    for label, row in result["trees"].items():
        print(f"{label:12}{row['p50_ms']:10.3f}{row['p99_ms']:10.3f}"
              f"{1 / row['ratio_to_this_tree']:15.2f}x{row['rankings_differ']:17d}")


# --- the driver ------------------------------------------------------------------------------


def worker(mode: str, args: argparse.Namespace, **extra: Any) -> list[str]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", mode,
           "--data-dir", str(extra.pop("data_dir")),
           "--chunks", str(extra.pop("chunks", args.chunks)),
           "--facts", str(extra.pop("facts", args.facts)), "--max-facts", str(args.facts),
           "--iterations", str(args.iterations), "--embedder", args.embedder]
    for key, value in extra.items():
        if value is True:
            cmd.append(f"--{key.replace('_', '-')}")
        elif value not in (None, False):
            cmd += [f"--{key.replace('_', '-')}", str(value)]
    return cmd


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


def run_json(cmd: list[str]) -> dict[str, Any]:
    done = subprocess.run(cmd, capture_output=True, text=True, env=child_env(), check=False)
    if done.returncode:
        raise RuntimeError(f"{' '.join(cmd[2:4])} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


@contextmanager
def backend(store: str, tmp: Path, tag: str) -> Iterator[tuple[str | None, str | None]]:
    """(database URL, Chroma URL): both None for the embedded default."""
    if store == "sqlite":
        yield None, None
        return
    import psycopg

    sys.path.insert(0, str(ROOT))
    from tests.chroma_server import ChromaServer

    base = os.environ.get("RICORDA_TEST_POSTGRES_URL",
                          "postgresql+psycopg://postgres@127.0.0.1:5432/test")
    libpq = base.replace("postgresql+psycopg://", "postgresql://")
    schema = f"scale_{tag}_{secrets.token_hex(4)}"
    with psycopg.connect(libpq, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    server = ChromaServer(tmp / f"chroma-{tag}").start(timeout=120)
    try:
        sep = "&" if "?" in base else "?"
        yield f"{base}{sep}options=-csearch_path%3D{schema}", server.url
    finally:
        server.stop()
        with psycopg.connect(libpq, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def measure_store(args: argparse.Namespace, store: str, tmp: Path) -> dict[str, Any]:
    result: dict[str, Any] = {"store": store, "chunks": args.chunks, "facts": args.facts}
    with backend(store, tmp, "base") as (db, chroma):
        data = tmp / f"{store}-baseline"
        run_json(worker("ingest", args, data_dir=data, facts=BASELINE_FACTS, chunks=0, db=db,
                        chroma=chroma))
        # as many replicas answering at once as in the measured run: the same contention
        n = args.replicas if store == "postgres" else 1
        procs = [subprocess.Popen(worker("replica", args, data_dir=data / f"r{i}", db=db,
                                         chroma=chroma, structured_only=True,
                                         spawned=time.time()),
                                  stdout=subprocess.PIPE, text=True, env=child_env())
                 for i in range(n)] if store == "postgres" else []
        if store == "postgres":
            bases = [json.loads(p.communicate()[0].strip().splitlines()[-1]) for p in procs]
        else:
            bases = [run_json(worker("replica", args, data_dir=data, db=db, chroma=chroma,
                                     structured_only=True, spawned=time.time()))]
        result["baseline_structured_p50_ms"] = sorted(b["structured_p50_ms"] for b in bases)[
            len(bases) // 2]
    with backend(store, tmp, "big") as (db, chroma):
        writer = tmp / f"{store}-writer"
        start = time.perf_counter()
        result["ingest"] = run_json(worker("ingest", args, data_dir=writer, db=db, chroma=chroma,
                                           no_vectors=args.no_vectors))
        result["ingest"]["seconds"] = time.perf_counter() - start
        n = args.replicas if store == "postgres" else 1
        # the embedded default serves from the writer's data dir; replicas each have their own
        dirs = [writer] if store == "sqlite" else [tmp / f"replica-{i}" for i in range(n)]
        procs = [subprocess.Popen(worker("replica", args, data_dir=d, db=db, chroma=chroma,
                                         spawned=time.time()),
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                  env=child_env()) for d in dirs]
        replicas = []
        for proc in procs:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            if not line:
                raise RuntimeError(f"a replica died before it was ready (exit {proc.wait()})")
            replicas.append(json.loads(line))
        one = run_json(worker("one_doc", args, data_dir=tmp / "one-doc" if store == "postgres"
                              else writer, db=db, chroma=chroma))
        for proc in procs:
            assert proc.stdin is not None
            proc.stdin.write("go\n")
            proc.stdin.flush()
        for proc, rep in zip(procs, replicas, strict=True):
            assert proc.stdout is not None
            seen = json.loads(proc.stdout.readline())
            rep["sees_new_doc_s"] = seen.pop("seen_at") - one["committed_at"]
            rep.update(seen)
            proc.wait(timeout=60)
        result["replicas"] = replicas
        # a replica restarted on the first one's data dir: what a redeploy costs
        result["restarted"] = run_json(worker("replica", args, data_dir=dirs[0], db=db,
                                              chroma=chroma, restart=True, spawned=time.time()))
    return result


def table(results: list[dict[str, Any]]) -> str:
    rows = ["| measure | " + " | ".join(f"{r['store']} ({r['chunks']:,} chunks, {r['facts']:,} "
                                         "facts)" for r in results) + " | target |",
            "|---|" + "---|" * (len(results) + 1)]

    def row(label: str, fn: Any, target: str = "") -> None:
        cells = []
        for r in results:
            try:
                cells.append(fn(r))
            except (KeyError, IndexError):
                cells.append("–")
        rows.append(f"| {label} | " + " | ".join(cells) + f" | {target} |")

    def per_replica(key: str, fmt: str) -> Any:
        return lambda r: " / ".join(format(rep[key], fmt) for rep in r["replicas"])

    row("ingest facts (rows/s)", lambda r: f"{r['ingest']['facts_per_s']:,.0f}")
    row("ingest chunks, SQL (rows/s)", lambda r: f"{r['ingest']['chunks_per_s']:,.0f}")
    row("ingest vectors, Chroma (/s)", lambda r: f"{r['ingest']['vectors_per_s']:,.0f}")
    row("ingest chunk tokens (chunks/s)", lambda r: f"{r['ingest']['tokens_per_s']:,.0f}")
    row("ingest peak RSS (MB)", lambda r: f"{r['ingest']['peak_rss_mb']:,.0f}")
    row("database after ingest (MB)", lambda r: f"{r['ingest']['db_mb']:,.0f}")
    row("replica: first structured answer (s)", per_replica("structured_ready_s", ".1f"))
    row("replica: first hybrid retrieval (s)", per_replica("hybrid_ready_s", ".1f"), "≤ 30")
    row("of which: lexical index built or mapped (s)", per_replica("lexical_index_s", ".1f"))
    row("of which: query embedder loaded (s)", per_replica("embedder_s", ".1f"))
    row("of which: vector store opened, first search (s)", per_replica("first_search_s", ".1f"))
    row("restarted replica: first structured answer (s)",
        lambda r: f"{r['restarted']['structured_ready_s']:.1f}")
    row("restarted replica: first hybrid retrieval (s)",
        lambda r: f"{r['restarted']['hybrid_ready_s']:.1f}", "≤ 30")
    row("replica start: chunks tokenised", per_replica("chunks_tokenised_at_start", ","), "0")
    row("restarted replica: chunks tokenised",
        lambda r: f"{r['restarted']['chunks_tokenised_at_start']:,}")
    row("restarted replica: chunk rows read to index",
        lambda r: f"{r['restarted']['chunk_rows_read_at_start']:,}", "changed documents only")
    row("replica RSS after warm-up (MB)", per_replica("rss_mb", ",.0f"), "stated, bounded")
    row("replica peak RSS (MB)", per_replica("peak_rss_mb", ",.0f"))
    row("hybrid retrieval p50 (ms)", per_replica("hybrid_p50_ms", ".1f"), "≤ 50")
    row("hybrid retrieval p99 (ms)", per_replica("hybrid_p99_ms", ".1f"), "≤ 200")
    row("structured answer p50 (ms)", per_replica("structured_p50_ms", ".2f"))
    row("structured answer p99 (ms)", per_replica("structured_p99_ms", ".2f"))
    row("structured p50 at 10,000 facts (ms)", lambda r: f"{r['baseline_structured_p50_ms']:.2f}")
    row("structured p50 ratio to 10,000 facts",
        lambda r: " / ".join(f"{rep['structured_p50_ms'] / r['baseline_structured_p50_ms']:.2f}"
                             for rep in r["replicas"]), "≤ 1.5")
    row("one-doc ingest: replica sees it (s)", per_replica("sees_new_doc_s", ".2f"))
    row("one-doc ingest: index update (s)", per_replica("update_s", ".3f"))
    row("replica start: chunk rows read to index", per_replica("chunk_rows_read_at_start", ","))
    row("one-doc ingest: chunk rows read by the update",
        per_replica("chunk_rows_read_for_one_doc", ","), "1 (nothing rebuilt)")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--facts", type=int, default=1_000_000)
    parser.add_argument("--store", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--embedder", choices=sorted(DIMENSIONS), default="use")
    parser.add_argument("--tiny", action="store_true", help="a few seconds: the smoke test")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--no-vectors", action="store_true",
                        help="write no chunk vectors: the lexical side of a replica's start at "
                        "sizes where writing vectors into Chroma takes too long")
    parser.add_argument("--lexical-only", action="store_true",
                        help="BM25 search alone, in this process (no database, no Chroma)")
    parser.add_argument("--compare-with", type=Path, action="append",
                        help="with --lexical-only: also search with this checkout's BM25 "
                        "(repeatable)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--data-dir", help=argparse.SUPPRESS)
    parser.add_argument("--max-facts", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--db", help=argparse.SUPPRESS)
    parser.add_argument("--chroma", help=argparse.SUPPRESS)
    parser.add_argument("--spawned", type=float, help=argparse.SUPPRESS)
    parser.add_argument("--structured-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--restart", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    global EMBEDDER
    EMBEDDER = args.embedder
    if args.worker == "ingest":
        print(json.dumps(run_ingest(args)))
        return
    if args.worker == "one_doc":
        print(json.dumps(run_one_doc(args)))
        return
    if args.worker == "replica":
        run_replica(args)
        return
    if args.tiny:
        args.chunks, args.facts, args.iterations = 400, 12_000, 10
    if args.lexical_only:
        result = run_lexical_only(args)
        print_lexical(result)
        if args.json:
            args.json.write_text(json.dumps(result, indent=1))
        return
    stores = ["sqlite", "postgres"] if args.store == "both" else [args.store]
    results = []
    with tempfile.TemporaryDirectory(prefix="ricorda-scale-") as tmp:
        for store in stores:
            results.append(measure_store(args, store, Path(tmp)))
    print(table(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
