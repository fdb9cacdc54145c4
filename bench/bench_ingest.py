"""Benchmark: `ricorda ingest` of one large fact file (issue 37 point 4), as an operator runs it.

    python bench/bench_ingest.py --rows 1000000
    python bench/bench_ingest.py --rows 1000000 --compare-with /tmp/before   # and another checkout
    python bench/bench_ingest.py --tiny      # seconds: what the smoke test runs

Writes a glossary (a group of units, one of them restricted, `disclosure = "protect"`) and a
long-format CSV of `--rows` valid rows: twenty units and the group, as many metrics as the rows
need, monthly, quarterly, half-year and yearly figures per unit from 2016, the group's figures
the exact sum of its units' and every year the sum of its periods, so the post-ingest
disclosure report has every relation to check. Then runs
`python -m bot ingest glossary.toml facts.csv` in a fresh data dir, once per checkout, and
measures wall-clock seconds, rows per second, the CPU seconds the process used (comparable on a
busy machine, where wall time is not) and its peak resident memory (its own `ru_maxrss`, from
`os.wait4`). The lines the ingest prints about disclosure are compared between
checkouts: a faster report must say the same thing.

`--compare-with DIR` runs the same ingest with DIR's code (e.g. main, from `git archive`): the
before column. `--store postgres` loads into a fresh schema of the test database instead of
SQLite (RICORDA_TEST_POSTGRES_URL, default the local test database).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
UNITS, FIRST_YEAR = 20, 2016
PER_YEAR = 1 + 2 + 4 + 12  # FY, halves, quarters, months


def glossary_text(units: int, metrics: int) -> str:
    parts = ['[scope]\ndefault_entity = "G"\nfiscal_year_end = "12-31"\n'
             'restricted_chats = ["console:admin"]\ndisclosure = "protect"\n']
    for m in range(metrics):
        parts.append(f'[metrics.M{m:03d}]\nnames = ["metric{m:03d}"]\nunit = "EUR_M"\n')
    parts.append('[entities.G]\nnames = ["Group"]\n')
    for u in range(units):
        parts.append(f'[entities.U{u:04d}]\nnames = ["Unit {u:04d}"]\nparent = "G"\n'
                     + ("restricted = true\n" if u == 0 else ""))
    parts.append('[channels.TOTAL]\nnames = ["Total"]\n')
    return "\n".join(parts)


def year_rows(metric: str, entity: str, year: int, months: list[Decimal]) -> Iterator[list[str]]:
    """A year's 19 figures, the year the sum of its halves, quarters and months."""
    quarters = [sum(months[3 * q:3 * q + 3], Decimal(0)) for q in range(4)]
    yield [metric, entity, "FY", str(year), "TOTAL", str(sum(months, Decimal(0)))]
    for h in (1, 2):
        yield [metric, entity, "HY", f"{year}H{h}", "TOTAL", str(sum(quarters[2 * h - 2:2 * h],
                                                                     Decimal(0)))]
    for q in range(4):
        yield [metric, entity, "Q", f"{year}Q{q + 1}", "TOTAL", str(quarters[q])]
    for i, v in enumerate(months):
        yield [metric, entity, "M", f"{year}-{i + 1:02d}", "TOTAL", str(v)]


def shape(rows: int) -> tuple[int, int, int]:
    """(units, metrics, years): twenty units and the group, ten years (two for a tiny run),
    as many metrics as the rows need."""
    years = 10 if rows >= 100_000 else 2
    per_metric = (UNITS + 1) * years * PER_YEAR
    return UNITS, max(1, -(-rows // per_metric)), years


def write_kb(root: Path, rows: int) -> tuple[Path, Path]:
    units, metrics, years = shape(rows)
    (root / "glossary.toml").write_text(glossary_text(units, metrics), encoding="utf-8")
    written = 0
    with (root / "facts.csv").open("w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh)
        out.writerow(["metric", "entity", "period_type", "period", "channel", "value", "unit",
                      "source_doc", "source_locator"])

        def emit(row: list[str]) -> bool:
            nonlocal written
            if written == rows:
                return False
            written += 1
            out.writerow([*row, "EUR_M", "ledger.xlsx", f"row={written}"])
            return True

        for m in range(metrics):
            metric = f"M{m:03d}"
            for y in range(FIRST_YEAR, FIRST_YEAR + years):
                group = [Decimal(0)] * 12
                for u in range(units):
                    months = [Decimal(f"{100 + m * 7 + u}.{(u + i) % 100:02d}")
                              for i in range(12)]
                    group = [g + v for g, v in zip(group, months, strict=True)]
                    for row in year_rows(metric, f"U{u:04d}", y, months):
                        if not emit(row):
                            return root / "glossary.toml", root / "facts.csv"
                for row in year_rows(metric, "G", y, group):
                    if not emit(row):
                        return root / "glossary.toml", root / "facts.csv"
    return root / "glossary.toml", root / "facts.csv"


@contextmanager
def database(store: str) -> Iterator[str | None]:
    """A database URL for the ingest (None: SQLite in the data dir)."""
    if store == "sqlite":
        yield None
        return
    import psycopg

    base = os.environ.get("RICORDA_TEST_POSTGRES_URL",
                          "postgresql+psycopg://postgres@127.0.0.1:5432/test")
    libpq = base.replace("postgresql+psycopg://", "postgresql://")
    schema = f"ingest_{secrets.token_hex(4)}"
    with psycopg.connect(libpq, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        sep = "&" if "?" in base else "?"
        yield f"{base}{sep}options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(libpq, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def ingest(code: Path, data: Path, files: tuple[Path, Path], db: str | None) -> dict[str, Any]:
    """One `ricorda ingest` with `code`'s checkout: seconds, peak RSS, what it printed."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RICORDA_")}
    env |= {"PYTHONPATH": str(code), "RICORDA_DATA_DIR": str(data),
            "RICORDA_EMBEDDER": "hashing", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    if db is not None:
        env["RICORDA_DATABASE_URL"] = db
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([sys.executable, "-m", "bot", "ingest", *map(str, files)],
                                cwd=code, env=env, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        printed, problems = out.read().decode(), err.read().decode()
    if proc.returncode != 0:
        raise SystemExit(f"ingest with {code} exited {proc.returncode}:\n{problems[-3000:]}")
    return {"seconds": seconds, "cpu_s": usage.ru_utime + usage.ru_stime,
            "peak_rss_mb": usage.ru_maxrss / 1024,
            "disclosure": [line for line in printed.splitlines()
                           if line.startswith(("disclosure", "  "))],
            "facts_line": next((line for line in printed.splitlines()
                                if line.startswith("facts ")), "")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--store", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--compare-with", type=Path, help="another checkout: the before column")
    parser.add_argument("--tiny", action="store_true", help="a few seconds: the smoke test")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    rows = 2_000 if args.tiny else args.rows
    checkouts = [("this checkout", ROOT)]
    if args.compare_with is not None:
        checkouts.insert(0, (f"{args.compare_with}", args.compare_with.resolve()))
    results = []
    with tempfile.TemporaryDirectory(prefix="bench-ingest-") as tmp:
        files = write_kb(Path(tmp), rows)
        for i, (label, code) in enumerate(checkouts):
            with database(args.store) as db:
                r = ingest(code, Path(tmp) / f"data{i}", files, db)
            results.append({"checkout": label, "rows": rows, "store": args.store, **r,
                            "rows_per_s": rows / r["seconds"]})
    print(f"{'checkout':<40} {'rows':>10} {'seconds':>9} {'rows/s':>9} {'CPU s':>8} "
          f"{'peak RSS MB':>12}")
    for r in results:
        print(f"{r['checkout'][:40]:<40} {r['rows']:>10,} {r['seconds']:>9.1f} "
              f"{r['rows_per_s']:>9,.0f} {r['cpu_s']:>8.1f} {r['peak_rss_mb']:>12,.0f}")
    print(results[-1]["facts_line"])
    print("\n".join(results[-1]["disclosure"][:6]))
    if len(results) == 2:
        same = results[0]["disclosure"] == results[1]["disclosure"]
        print("disclosure report: " + ("the same lines in both checkouts" if same else
                                       "DIFFERENT lines between the checkouts"))
        if not same:
            raise SystemExit(1)
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
