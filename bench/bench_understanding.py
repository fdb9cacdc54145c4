"""The labelled question set (issue 23): how many everyday questions the bot gets right.

Loads the demo knowledge base (`ricorda demo --no-chat`) into a temporary data dir, asks every
question of bench/understanding/questions.jsonl through the `ricorda ask --json` code path and
scores each answer correct / missed / wrong (bench/understanding/score.py; docs/understanding.md
explains the rules). Prints a table by kind and language, the overall score and the wrong count.

    python bench/bench_understanding.py [--only KIND[,KIND]] [--lang en] [--show-failures]
        [--json REPORT.json|-] [--subprocess] [--min-score 0.95] [--data-dir DIR]

In process (the default) it opens the application once per reference date, as `ricorda ask`
does (one-shot: exact lookups, nothing learnt between questions), and answers each question as
a standalone one; `--subprocess` runs a real `python -m bot ask ... --json` per question (there
a `chat` continues that chat's conversation, as the CLI does). Exit 0, or 1 when --min-score is
given and not met.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.understanding.expected import SET_FILE, Data, load_set  # noqa: E402
from bench.understanding.score import (  # noqa: E402
    CORRECT,
    MISSED,
    WRONG,
    Verdict,
    reason_quoted,
    score,
)

REFERENCE_DATE = "2026-03-15"  # FY2025 is the last complete fiscal year
LANGS = ("en", "it", "zh")
Json = dict[str, Any]
Asker = Callable[[Json], Json]


EMBEDDER: str | None = None  # --embedder: None, the settings' default (use_embedder)


def use_embedder(name: str | None) -> None:
    """Every app of this run (ingest subprocesses, `ask` in process or not) embeds with `name`
    (hashing: no model to load, for the smoke test; the verdicts of figure questions do not
    depend on it)."""
    global EMBEDDER
    EMBEDDER = name
    if name is not None:
        os.environ["RICORDA_EMBEDDER"] = name


def cli_env(data_dir: Path) -> dict[str, str]:
    """The environment of a `ricorda` subprocess: no RICORDA_* setting but the data dir (and
    the embedder when --embedder chose one)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RICORDA_")}
    env["RICORDA_DATA_DIR"] = str(data_dir)
    if EMBEDDER is not None:
        env["RICORDA_EMBEDDER"] = EMBEDDER
    path = env.get("PYTHONPATH", "")
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + path if path else "")
    return env


def load_demo(data_dir: Path) -> None:
    """`ricorda demo --no-chat`: the demo glossary, facts and documents, as a user loads them."""
    proc = subprocess.run([sys.executable, "-m", "bot", "demo", "--no-chat"],
                          env=cli_env(data_dir), capture_output=True, text=True, timeout=600)
    if proc.returncode != 0 or "rejected" in proc.stderr:
        raise SystemExit(f"ricorda demo failed:\n{proc.stdout}\n{proc.stderr}")


def reference_date(entry: Json) -> str:
    return entry.get("reference_date") or REFERENCE_DATE


class InProcess:
    """`ricorda ask --json` without a process per question: bot.wiring.ask_once's steps, the app
    opened once per reference date."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.apps: dict[str, Any] = {}

    def __call__(self, entry: Json) -> Json:
        from bot.wiring.ask_once import _json_line
        from core.contracts.types import Request
        from core.question.conversation import STANDALONE

        app = self._app(reference_date(entry))
        answer = app.core.pipeline.answer(
            Request(text=entry["question"], chat=entry.get("chat") or "console:local",
                    user="cli", reference_date=app.core.today(), conversation=STANDALONE)
        )
        return json.loads(_json_line(answer.to_dict()))  # exactly the line the CLI prints

    def _app(self, date: str) -> Any:
        if date not in self.apps:
            from bot.wiring.startup import open_app

            self.apps[date] = open_app(self.data_dir, one_shot=True, reference_date=date)
        return self.apps[date]

    def close(self) -> None:
        for app in self.apps.values():
            app.close()


class Subprocess:
    """A real `python -m bot ask QUESTION --json` per question."""

    def __init__(self, data_dir: Path) -> None:
        self.env = cli_env(data_dir)

    def __call__(self, entry: Json) -> Json:
        command = [sys.executable, "-m", "bot", "ask", entry["question"], "--json",
                   "--reference-date", reference_date(entry)]
        if entry.get("chat"):
            command += ["--chat", entry["chat"]]
        proc = subprocess.run(command, env=self.env, capture_output=True, text=True,
                              timeout=300)
        if proc.returncode != 0:
            raise RuntimeError(f"exit {proc.returncode}: {proc.stderr.strip()[-300:]}")
        return json.loads(proc.stdout)

    def close(self) -> None:
        pass


def run(entries: Iterable[Json], ask: Asker, data: Data) -> list[Json]:
    """Each entry asked and scored: id, kind, lang, verdict, reason, and what the bot said."""
    results = []
    for entry in entries:
        start = time.perf_counter()
        try:
            answer = ask(entry)
            verdict = score(entry, answer, data)
        except Exception as exc:  # an error is a miss, reported, never a crash of the run
            answer, verdict = {}, Verdict(MISSED, f"error: {type(exc).__name__}: {exc}")
        result = {
            "id": entry["id"], "kind": entry["kind"], "lang": entry["lang"],
            "question": entry["question"], "chat": entry.get("chat"),
            "verdict": verdict.verdict, "reason": verdict.reason,
            "route": answer.get("route"), "text": answer.get("text", ""),
            "seconds": round(time.perf_counter() - start, 3),
        }
        if entry["expect"].get("reason_any"):  # scored apart: is the cause quoted?
            result["reason_quoted"] = bool(reason_quoted(entry, answer))
        results.append(result)
    return results


def summarise(results: list[Json]) -> Json:
    """Counts by kind x language, by language, and overall; score = correct / asked."""
    def block(rows: list[Json]) -> Json:
        c = Counter(r["verdict"] for r in rows)
        n = len(rows)
        return {"n": n, CORRECT: c[CORRECT], MISSED: c[MISSED], WRONG: c[WRONG],
                "score": round(c[CORRECT] / n, 4) if n else None}

    by_kind: dict[str, dict[str, list[Json]]] = defaultdict(lambda: defaultdict(list))
    for r in results:
        by_kind[r["kind"]][r["lang"]].append(r)
        by_kind[r["kind"]]["all"].append(r)
    return {
        "overall": block(results),
        "by_lang": {lang: block([r for r in results if r["lang"] == lang]) for lang in LANGS},
        "by_kind": {kind: {lang: block(rows) for lang, rows in langs.items()}
                    for kind, langs in by_kind.items()},
    }


def _cell(b: Json | None) -> str:
    if not b or not b["n"]:
        return "-"
    wrong = f" w{b[WRONG]}" if b[WRONG] else ""
    return f"{b[CORRECT]}/{b['n']} {round(100 * b['score'])}%{wrong}"


def table(summary: Json, order: list[str]) -> str:
    """Markdown: a row per kind, a column per language (correct/asked, %, wN = N wrong)."""
    head = ["kind", *LANGS, "all", "missed", "wrong"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for kind in order:
        k = summary["by_kind"][kind]
        lines.append("| " + " | ".join([kind, *(_cell(k.get(lang)) for lang in LANGS),
                                        _cell(k["all"]), str(k["all"][MISSED]),
                                        str(k["all"][WRONG])]) + " |")
    o = summary["overall"]
    lines.append("| " + " | ".join(["**all**", *(_cell(summary["by_lang"][lang])
                                                  for lang in LANGS), _cell(o),
                                    str(o[MISSED]), str(o[WRONG])]) + " |")
    return "\n".join(lines)


def select(entries: list[Json], only: str | None, lang: str | None,
           ids: str | None) -> list[Json]:
    kinds = set(only.split(",")) if only else None
    wanted = set(ids.split(",")) if ids else None
    known = {e["kind"] for e in entries}
    if kinds and not kinds <= known:
        raise SystemExit(f"unknown kind(s) {sorted(kinds - known)}; known: {sorted(known)}")
    return [e for e in entries
            if (kinds is None or e["kind"] in kinds) and (lang is None or e["lang"] == lang)
            and (wanted is None or e["id"] in wanted)]


def question_arguments(parser: argparse.ArgumentParser) -> None:
    """The options every labelled-set runner takes (this one and bench_companies.py)."""
    parser.add_argument("--only", help="comma-separated kinds to run (e.g. growth,share)")
    parser.add_argument("--lang", choices=LANGS, help="one language only")
    parser.add_argument("--ids", help="comma-separated question ids")
    parser.add_argument("--show-failures", action="store_true",
                        help="print every missed and wrong question with the reason")
    parser.add_argument("--json", dest="json_path", help="write the full report (- = stdout)")
    parser.add_argument("--subprocess", action="store_true",
                        help="a real `python -m bot ask --json` per question (slower)")
    parser.add_argument("--embedder", choices=("use", "hashing"),
                        help="the embedder of every app (default: the settings'); hashing "
                        "loads no model (the smoke test)")


def print_failures(results: list[Json], out: Any, prefix: str = "") -> None:
    """Every missed and wrong question: the verdict, why, and what the bot said."""
    for r in results:
        if r["verdict"] != CORRECT:
            print(f"{r['verdict'].upper():6} {prefix + r['id']:28} {r['question']}\n"
                  f"       {r['reason']}\n       -> [{r['route']}] "
                  f"{r['text'][:160].replace(chr(10), ' / ')}", file=out)
    print(file=out)


def write_report(report: Json, path: str) -> None:
    """The full report as JSON, to a file or (`-`) to stdout."""
    text = json.dumps(report, ensure_ascii=False, indent=1)
    if path == "-":
        print(text)
    else:
        Path(path).write_text(text + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    question_arguments(parser)
    parser.add_argument("--min-score", type=float, help="exit 1 below this score (0..1)")
    parser.add_argument("--data-dir", type=Path,
                        help="use this data dir, already holding the demo (no load)")
    parser.add_argument("--set", dest="set_file", type=Path, default=SET_FILE)
    args = parser.parse_args(argv)
    use_embedder(args.embedder)

    entries = select(load_set(args.set_file), args.only, args.lang, args.ids)
    if not entries:
        raise SystemExit("no question selected")
    data = Data()
    with tempfile.TemporaryDirectory(prefix="ricorda-understanding-") as tmp:
        data_dir = args.data_dir or Path(tmp) / "data"
        if args.data_dir is None:
            load_demo(data_dir)
        ask = Subprocess(data_dir) if args.subprocess else InProcess(data_dir)
        start = time.perf_counter()
        try:
            results = run(entries, ask, data)
        finally:
            ask.close()
        elapsed = time.perf_counter() - start
    summary = summarise(results)
    order = list(dict.fromkeys(e["kind"] for e in entries))
    report = {"date": dt.date.today().isoformat(), "reference_date": REFERENCE_DATE,
              "mode": "subprocess" if args.subprocess else "in-process",
              "seconds": round(elapsed, 1), **summary, "results": results}
    out = sys.stderr if args.json_path == "-" else sys.stdout
    if args.show_failures:
        print_failures(results, out)
    print(table(summary, order), file=out)
    o = summary["overall"]
    print(f"\nscore {o[CORRECT]}/{o['n']} = {100 * o['score']:.1f}%   wrong: {o[WRONG]}   "
          f"({len(results)} questions in {elapsed:.1f} s, {report['mode']})", file=out)
    if args.json_path:
        write_report(report, args.json_path)
    if args.min_score is not None and o["score"] < args.min_score:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
