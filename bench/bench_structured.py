"""Structured-question latency with 10,000 facts, and `ricorda ask` cold start.

Prints a table. Targets (issue 2): answer text without the turn write p50 <= 0.5 ms; with the
turn written to SQLite p50 <= 2 ms, p99 <= 10 ms; cold start <= 0.6 s with no heavy imports.
Issue 17: a 5-period x 4-entity series table (20 lookups, changes computed) p50 <= 5 ms.

    python bench/bench_structured.py [--n 2000] [--runs 7]
    python bench/bench_structured.py --n 3 --runs 1     # seconds: what the smoke test runs
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import subprocess
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchkit import nearest_rank  # noqa: E402

from core.contracts.types import Fact, Period, PeriodType, Request, Source  # noqa: E402
from core.knowledge.glossary import parse_glossary  # noqa: E402
from core.pipeline.pipeline import Pipeline  # noqa: E402
from core.planning.answering import Answerer  # noqa: E402
from storage.db import open_database  # noqa: E402
from storage.fact_store import SqlFactStore  # noqa: E402
from storage.turn_store import SqlTurnStore  # noqa: E402

HEAVY = (
    "chromadb",
    "torch",
    "llama_cpp",
    "jieba",
    "FlagEmbedding",
    "transformers",
    "typer",
    "numpy",
)
REF = dt.date(2026, 6, 15)
N_ENTITIES, N_METRICS = 50, 10
YEARS = range(2006, 2026)  # 20 fiscal years: 50 x 10 x 20 = 10,000 facts


def glossary_text() -> str:
    parts = ['[scope]\ndefault_entity = "E00"\nfiscal_year_end = "12-31"\n']
    for m in range(N_METRICS):
        parts.append(
            f'[metrics.M{m:02d}]\nnames = ["metric{m:02d}", "misura{m:02d}"]\nunit = "EUR_M"\n'
        )
    for e in range(N_ENTITIES):
        parts.append(f'[entities.E{e:02d}]\nnames = ["Entity {e:02d}", "Unità {e:02d}"]\n')
    parts.append('[competitors]\nnames = ["Vortex Corp"]\n')
    # rendering as users see it: the unit's form per language (core.knowledge.units)
    parts.append('[units.EUR_M]\nen = "€{value}M"\nit = "{value} M€"\n'
                 'zh = { format = "{value}亿欧元", shift = -2 }\n')
    return "\n".join(parts)


def facts() -> list[Fact]:
    return [
        Fact(
            f"M{m:02d}",
            f"E{e:02d}",
            Period(PeriodType.FY, str(y)),
            "TOTAL",
            Decimal(f"{1000 + m * 7 + e}.{y % 10}"),
            "EUR_M",
            Source("report.pdf", f"page={m}"),
        )
        for m in range(N_METRICS)
        for e in range(N_ENTITIES)
        for y in YEARS
    ]


def time_answers(answerer: Answerer, n: int, *, render: bool = False) -> list[float]:
    """Per question, ms to the answer; with `render`, to the Telegram HTML a user receives
    (core.catalog.presentation + adapters/telegram/render.py, as the chat flow sends it)."""
    from adapters.telegram.render import answer_messages
    from core.catalog.presentation import present

    out = []
    pipeline = Pipeline(answerer)  # the bare answer: every question planned, no plan cache
    for i in range(n):
        request = Request(
            text=f"What was Entity {i % N_ENTITIES:02d} metric{i % N_METRICS:02d} "
            f"in FY{2006 + i % 20}?",
            reference_date=REF,
        )
        start = time.perf_counter()
        answer = pipeline.answer(request)
        if render:
            answer_messages(present(answer))
        out.append((time.perf_counter() - start) * 1000)
        assert answer.facts and answer.facts[0].status.value == "found", answer.text
    return out


def time_tables(answerer: Answerer, n: int) -> list[float]:
    """A 5-period x 4-entity series: 20 exact lookups and the table, no turn write."""
    out = []
    pipeline = Pipeline(answerer)
    for i in range(n):
        first = 2006 + i % 15
        entities = ", ".join(f"Entity {(i + k) % N_ENTITIES:02d}" for k in range(3))
        request = Request(
            text=f"{entities} and Entity {(i + 3) % N_ENTITIES:02d} metric{i % N_METRICS:02d} "
            f"from FY{first} to FY{first + 4}",
            reference_date=REF,
        )
        start = time.perf_counter()
        answer = pipeline.answer(request)
        out.append((time.perf_counter() - start) * 1000)
        assert len(answer.facts) == 20 and answer.plan["steps"][0]["tool"] == "series_table"
    return out


QUESTION = "What was Entity 01 metric02 in FY2020?"
QUICK = [sys.executable, "-m", "bot"]  # what `ricorda` runs: bot.entry
# the typer CLI for every line
FULL_CLI = [sys.executable, "-c", "from bot.cli.commands import app; app()"]


def cold_start(data_dir: Path, runs: int = 7) -> tuple[dict[str, float], list[str]]:
    """Median wall time per way of starting, interleaved so machine noise hits each alike.

    .pyc files are written as an installed package has them (pip compiles at install), even
    where PYTHONDONTWRITEBYTECODE is set for the shell.
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["RICORDA_DATA_DIR"] = str(data_dir)
    commands = {
        "bare": [sys.executable, "-c", "pass"],
        "quick": [*QUICK, "ask", QUESTION],
        "full": [*FULL_CLI, "ask", QUESTION],
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    for run in range(runs + 1):
        for name, command in commands.items():
            t = time.perf_counter()
            proc = subprocess.run(command, check=True, env=env, capture_output=True, text=True)
            if run:  # the first round writes the .pyc files
                times[name].append(time.perf_counter() - t)
            assert name == "bare" or "1,015.0" in proc.stdout, proc.stdout
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", *QUICK[1:], "ask", QUESTION],
        env=env,
        capture_output=True,
        text=True,
    )
    loaded = {ln.rsplit("|", 1)[-1].strip() for ln in proc.stderr.splitlines() if "|" in ln}
    heavy = [m for m in HEAVY if m in loaded]
    return {name: statistics.median(t) for name, t in times.items()}, heavy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000, help="questions per measurement")
    parser.add_argument("--runs", type=int, default=7, help="cold starts per way of starting")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        engine = open_database(f"sqlite:///{data / 'ricorda.db'}")
        store = SqlFactStore(engine)
        store.upsert_facts(facts())
        from storage.glossary_store import SqlGlossaryStore

        SqlGlossaryStore(engine).save(glossary_text(), "bench")
        glossary = parse_glossary(glossary_text())
        no_write = Answerer(glossary=glossary, facts=store, today=lambda: REF)
        with_write = Answerer(
            glossary=glossary, facts=store, turns=SqlTurnStore(engine), today=lambda: REF
        )
        time_answers(no_write, min(200, args.n))  # warm-up
        a = time_answers(no_write, args.n)
        r = time_answers(no_write, args.n, render=True)
        b = time_answers(with_write, args.n)
        time_tables(no_write, min(50, args.n))  # warm-up
        t = time_tables(no_write, max(min(50, args.n), args.n // 4))
        cold, heavy = cold_start(data, args.runs)
        engine.dispose()
    rows = [
        (
            "answer, no turn write (10k facts)",
            nearest_rank(a, 0.5),
            nearest_rank(a, 0.99),
            "p50 <= 0.5 ms",
        ),
        (
            "answer rendered as Telegram HTML",
            nearest_rank(r, 0.5),
            nearest_rank(r, 0.99),
            "p50 <= 0.5 ms",
        ),
        (
            "answer + turn written to SQLite",
            nearest_rank(b, 0.5),
            nearest_rank(b, 0.99),
            "p50 <= 2 ms, p99 <= 10 ms",
        ),
        (
            "5-period x 4-entity table, no write",
            nearest_rank(t, 0.5),
            nearest_rank(t, 0.99),
            "p50 <= 5 ms",
        ),
    ]
    print(f"{'measurement':40} {'p50 ms':>8} {'p99 ms':>8}  target")
    for name, p50, p99, target in rows:
        print(f"{name:40} {p50:8.3f} {p99:8.3f}  {target}")
    print(
        f"{'turn write share (p50 ratio b/a)':40} "
        f"{nearest_rank(b, 0.5) / nearest_rank(a, 0.5):8.2f}x"
    )
    print(
        f"{'ricorda ask cold start (median)':40} {cold['quick'] * 1000:8.0f} ms  target <= 600 ms "
        f"(bare python: {cold['bare'] * 1000:.0f} ms)"
    )
    print(
        f"{'  same line through the typer CLI':40} {cold['full'] * 1000:8.0f} ms  "
        f"(quick entry / typer: {cold['quick'] / cold['full']:.2f}x)"
    )
    print(f"{'heavy modules loaded on that path':40} {heavy or 'none'}")


if __name__ == "__main__":
    main()
