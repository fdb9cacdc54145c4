"""The test companies' question sets (issue 40): understanding on data nobody tuned for.

For each company folder of bench/companies (glossary.toml, facts.csv, docs/, questions.jsonl)
it loads the knowledge base into a temporary data dir as a user does (`python -m bot --data-dir
D ingest glossary.toml facts.csv docs/`), asks every question through the `ricorda ask --json`
code path and scores each answer correct / missed / wrong (bench/understanding/score.py, with
the company rules: withheld totals, counts, units, reply language, figures the table does not
hold). Prints a table by kind x language per company, one by company, and how many why-answers
quote the expected reason.

    python bench/bench_companies.py [--company alpina,meridian] [--only KIND[,KIND]]
        [--lang it] [--ids ID,..] [--show-failures] [--json REPORT.json|-] [--subprocess]
        [--compare N]

In process (the default) answers as `ricorda ask` does (bench_understanding.InProcess, the app
opened once per reference date); `--subprocess` runs a real `python -m bot ask --json` per
question; `--compare N` asks N questions spread over each set both ways and reports any answer
whose verdict differs. Exit 0, or 1 when --compare finds a difference.
"""

from __future__ import annotations

import argparse
import datetime as dt
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.bench_understanding import (  # noqa: E402
    LANGS,
    InProcess,
    Subprocess,
    cli_env,
    print_failures,
    question_arguments,
    run,
    select,
    summarise,
    table,
    use_embedder,
    write_report,
)
from bench.understanding.expected import company_data, load_set  # noqa: E402
from bench.understanding.score import CORRECT, MISSED, WRONG  # noqa: E402

COMPANIES = ROOT / "bench" / "companies"
NAMES = ("alpina", "meridian", "kestrel")
HELD_OUT = ("tessaro", "vireo")  # written blind (docs/understanding.md, "Held-out companies")
Json = dict[str, Any]


def load_company(folder: Path, data_dir: Path) -> str:
    """`ricorda ingest glossary.toml facts.csv docs/` from the company's folder, as a user
    would after `ricorda init` and `ricorda check`. Returns what ingest printed."""
    proc = subprocess.run(
        [sys.executable, "-m", "bot", "--data-dir", str(data_dir), "ingest", "glossary.toml",
         "facts.csv", "docs/"],
        cwd=folder, env=cli_env(data_dir), capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        raise SystemExit(f"ingest of {folder.name} failed:\n{proc.stdout}\n{proc.stderr}")
    return proc.stdout


def spread(entries: list[Json], n: int) -> list[Json]:
    """n entries spread evenly over the set (every kind gets a chance)."""
    if n >= len(entries):
        return entries
    step = len(entries) / n
    return [entries[int(i * step)] for i in range(n)]


def run_company(folder: Path, args: argparse.Namespace) -> Json:
    """Load one company, ask its questions, score them; its report."""
    data = company_data(folder)
    entries = select(load_set(folder / "questions.jsonl"), args.only, args.lang, args.ids)
    with tempfile.TemporaryDirectory(prefix=f"ricorda-{folder.name}-") as tmp:
        data_dir = Path(tmp) / "data"
        start = time.perf_counter()
        load_company(folder, data_dir)
        loaded = time.perf_counter() - start
        ask = Subprocess(data_dir) if args.subprocess else InProcess(data_dir)
        start = time.perf_counter()
        try:
            results = run(entries, ask, data)
        finally:
            ask.close()
        elapsed = time.perf_counter() - start
        disagree: list[Json] = []
        if args.compare:
            sample = spread(entries, args.compare)
            other = InProcess(data_dir) if args.subprocess else Subprocess(data_dir)
            try:
                again = {r["id"]: r for r in run(sample, other, data)}
            finally:
                other.close()
            disagree = [{"id": r["id"], "this": r["verdict"], "other": again[r["id"]]["verdict"]}
                        for r in results if r["id"] in again
                        and again[r["id"]]["verdict"] != r["verdict"]]
    quoted = [r["reason_quoted"] for r in results if "reason_quoted" in r]
    return {"company": folder.name, "seconds_ingest": round(loaded, 1),
            "seconds": round(elapsed, 1), **summarise(results),
            "reason_quoted": {"yes": sum(quoted), "asked": len(quoted)},
            "compared": args.compare or 0, "disagreements": disagree, "results": results}


def by_company(reports: list[Json]) -> str:
    head = ["company", *LANGS, "all", "missed", "wrong", "reason quoted"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in reports:
        o = r["overall"]
        cells = [f"{r['by_lang'][lang][CORRECT]}/{r['by_lang'][lang]['n']}"
                 if r["by_lang"][lang]["n"] else "-" for lang in LANGS]
        pct = f"{100 * o['score']:.0f}%" if o["n"] else "-"
        lines.append("| " + " | ".join([
            r["company"], *cells, f"{o[CORRECT]}/{o['n']} {pct}", str(o[MISSED]),
            str(o[WRONG]), f"{r['reason_quoted']['yes']}/{r['reason_quoted']['asked']}"]) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--company", default=",".join(NAMES + HELD_OUT),
                        help="comma-separated names under bench/companies, or folders")
    question_arguments(parser)
    parser.add_argument("--compare", type=int, default=0, metavar="N",
                        help="also ask N questions per company the other way; report changes")
    args = parser.parse_args(argv)
    use_embedder(args.embedder)

    folders = [Path(c) if "/" in c else COMPANIES / c for c in args.company.split(",")]
    out = sys.stderr if args.json_path == "-" else sys.stdout
    reports = []
    for folder in folders:
        report = run_company(folder, args)
        reports.append(report)
        if args.show_failures:
            print_failures(report["results"], out, prefix=f"{folder.name}/")
        order = list(dict.fromkeys(r["kind"] for r in report["results"]))
        print(f"## {folder.name} ({report['seconds']} s, ingest {report['seconds_ingest']} s)\n",
              file=out)
        print(table(report, order) + "\n", file=out)
        for d in report["disagreements"]:
            print(f"DISAGREE {folder.name}/{d['id']}: {d['this']} vs {d['other']}", file=out)
    print(by_company(reports), file=out)
    if args.json_path:
        write_report({"date": dt.date.today().isoformat(),
                      "mode": "subprocess" if args.subprocess else "in-process",
                      "companies": reports}, args.json_path)
    return 1 if any(r["disagreements"] for r in reports) else 0


if __name__ == "__main__":
    sys.exit(main())
