"""TAT-QA's table questions (train split only) through `ricorda ask --json` (issue 40).

Each TAT-QA table becomes a company's knowledge base (bench/tatqa/convert.py: facts from row
label x year column, the scale from "in thousands/millions", a glossary from `ricorda init`
with the row label as the metric's name), loaded with `ricorda ingest`; each question whose
answer comes from the table is asked as written and the answer scored against TAT-QA's, with
its scale. Accuracy is reported by question form: lookup, difference, average, % change,
which-year comparison, count, other.

    python bench/bench_tatqa.py [--data bench/tatqa/data/tatqa_dataset_train.json]
        [--questions 600] [--show-failures] [--json REPORT.json|-]

The dataset is not committed: give the path of a local copy of the TRAIN split (without
`--data`, the file above); when there is none the bench says where to get it and exits 1.
Files named dev or test, and items marked as another split, are refused: those splits are not
ours to tune on.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.tatqa.convert import YEAR, Company, convert, load, number, write  # noqa: E402

FORMS = ("lookup", "difference", "average", "pct_change", "which_year", "count", "other")
CORRECT, MISSED, WRONG = "correct", "missed", "wrong"
Json = dict[str, Any]


def train_only(path: Path, items: list[Json]) -> list[Json]:
    """The items, refusing anything that says it is not the train split."""
    if re.search(r"dev|test|valid", path.name, re.I):
        raise SystemExit(f"{path.name}: only TAT-QA's train split may be used")
    other = [i for i in items if i.get("meta_split", "train") != "train"]
    if other:
        raise SystemExit(f"{len(other)} items of another split in {path.name}: refused")
    return items


def form(q: Json) -> str:
    """The question's form, from its words and TAT-QA's answer type."""
    text = q["question"].casefold()
    if q.get("answer_type") == "count":
        return "count"
    if q.get("req_comparison") or re.search(r"\b(in )?which year\b", text):
        return "which_year"
    if re.search(r"percentage change|% change|percent change|growth rate|percentage increase|"
                 r"percentage decrease", text):
        return "pct_change"
    if re.search(r"\baverage\b|\bmean\b", text):
        return "average"
    if q.get("answer_type") == "arithmetic" and re.search(
            r"\bchange\b|difference|increase|decrease", text):
        return "difference"
    if q.get("answer_type") == "span" and not q.get("derivation"):
        return "lookup"
    return "other"


def gold(q: Json) -> Decimal | None:
    """TAT-QA's answer as one number (a year for which-year), or None (text, several)."""
    answer = q["answer"]
    if isinstance(answer, list):
        if len(answer) != 1:
            return None
        answer = answer[0]
    if isinstance(answer, (int, float)):
        return Decimal(str(answer))
    parsed = number(str(answer))
    return parsed[0] if parsed else None


def selected(items: list[Json], limit: int) -> list[tuple[Json, Json, Company]]:
    """(item, question, company) for table-answered questions with one numeric answer, on
    tables that convert."""
    out = []
    for item in items:
        company = convert(item)
        if company is None:
            continue
        for q in item["questions"]:
            if q.get("answer_from") == "table" and q.get("answer_type") in (
                    "span", "arithmetic", "count") and gold(q) is not None:
                out.append((item, q, company))
                if len(out) >= limit:
                    return out
    return out


def _decimals(value: Decimal) -> int:
    return max(0, -value.as_tuple().exponent)  # type: ignore[operator]


def score(q: Json, answer: Json, company: Company) -> tuple[str, str]:
    """(verdict, reason) of one answer against TAT-QA's, with its scale."""
    want = gold(q)
    assert want is not None
    kind = form(q)
    head = re.sub(r"\[\d+\]", "", str(answer.get("text", "")).split("\n", 1)[0])
    if kind == "which_year":
        year = str(int(want))
        ranking = [t for t in answer.get("tables") or [] if t.get("kind") == "ranking"]
        if ranking:
            series = ranking[0].get("series") or [{}]
            top = str(series[0].get("label", ""))
            return (CORRECT if year in top else WRONG), f"ranking headed by {top!r}"
        years = set(YEAR.findall(head))
        if years == {year}:
            return CORRECT, f"names {year}"
        return (WRONG if years else MISSED), f"names {sorted(years)}, expected {year}"
    if kind == "count":
        numbers = {int(n) for n in re.findall(r"(?<![\d.,])\d+(?![\d.,])", head)}
        return (CORRECT if int(want) in numbers else MISSED), f"headline {head[:60]!r}"
    found = [f for f in answer.get("facts") or [] if f.get("status") == "found"]
    if not found:
        return MISSED, f"no figure: [{answer.get('route')}] {head[:80]}"
    derived = [f for f in found if f.get("derived")]
    for fact in derived or found[:1]:  # the computed result, else the one figure stated
        if matches(Decimal(str(fact.get("value_exact"))), want, q.get("scale") == "percent"):
            return CORRECT, f"{fact.get('value_exact')}"
    first = derived[0] if derived else found[0]
    said = f"states {first.get('value_exact')} ({first.get('metric_code')} " \
           f"{first.get('period')}), TAT-QA {want} {q.get('scale') or ''}".strip()
    if not derived and (len(found) > 1 or answer.get("tables")):
        return MISSED, "figures listed without the result; " + said  # as the demo set rules
    return WRONG, said


def matches(value: Decimal, want: Decimal, percent: bool) -> bool:
    """TAT-QA's answer, rounded as it is written (a percentage also as a fraction)."""
    for s in (Decimal(1), Decimal(100)) if percent else (Decimal(1),):
        got = value * s
        if got == want or round(got, _decimals(want)) == want or \
                round(got, 2) == round(want, 2):
            return True
    return False


class Asker:
    """`ricorda ingest` for one table, then `ricorda ask --json` on it (the ask_once path)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.app: Any = None
        self.uid = ""

    def load(self, item: Json, company: Company) -> None:
        from typer.testing import CliRunner

        from bot.cli.commands import app
        from bot.wiring.startup import open_app

        if self.app is not None:
            self.app.close()
        folder = self.root / company.uid
        write(company, folder / "kb")
        data_dir = folder / "data"
        result = CliRunner().invoke(app, ["--data-dir", str(data_dir), "ingest",
                                          str(folder / "kb" / "glossary.toml"),
                                          str(folder / "kb" / "facts.csv")])
        if result.exit_code != 0:
            raise RuntimeError(f"ingest failed: {result.output[-300:]}")
        reference = f"{int(max(company.years)) + 1}-{company.fiscal_year_end}"
        self.app = open_app(data_dir, one_shot=True, reference_date=reference)
        self.uid = company.uid

    def ask(self, text: str) -> Json:
        from bot.wiring.ask_once import _json_line
        from core.contracts.types import Request
        from core.question.conversation import STANDALONE

        core = self.app.core
        answer = core.pipeline.answer(Request(text=text, chat="console:local", user="cli",
                                             reference_date=core.today(),
                                             conversation=STANDALONE))
        return json.loads(_json_line(answer.to_dict()))

    def close(self) -> None:
        if self.app is not None:
            self.app.close()


def run(chosen: list[tuple[Json, Json, Company]]) -> list[Json]:
    results = []
    with tempfile.TemporaryDirectory(prefix="ricorda-tatqa-") as tmp:
        asker = Asker(Path(tmp))
        try:
            for item, q, company in chosen:
                try:
                    if asker.uid != company.uid:
                        asker.load(item, company)
                    answer = asker.ask(q["question"].strip())
                    verdict, reason = score(q, answer, company)
                except Exception as exc:  # reported as a miss, never a crash of the run
                    answer, verdict, reason = {}, MISSED, f"error: {type(exc).__name__}: {exc}"
                results.append({"uid": q["uid"], "table": company.uid, "form": form(q),
                                "question": q["question"], "gold": str(gold(q)),
                                "scale": q.get("scale", ""), "verdict": verdict,
                                "reason": reason, "route": answer.get("route"),
                                "text": str(answer.get("text", ""))[:300]})
        finally:
            asker.close()
    return results


def table(results: list[Json]) -> str:
    rows = defaultdict(Counter)
    for r in results:
        rows[r["form"]][r["verdict"]] += 1
        rows["all"][r["verdict"]] += 1
    lines = ["| form | asked | correct | missed | wrong | accuracy |", "|---|---|---|---|---|---|"]
    for name in (*FORMS, "all"):
        c = rows.get(name)
        if not c:
            continue
        n = sum(c.values())
        label = f"**{name}**" if name == "all" else name
        lines.append(f"| {label} | {n} | {c[CORRECT]} | {c[MISSED]} | {c[WRONG]} | "
                     f"{100 * c[CORRECT] / n:.1f}% |")
    return "\n".join(lines)


DEFAULT_DATA = Path(__file__).resolve().parent / "tatqa" / "data" / "tatqa_dataset_train.json"
SOURCE = "https://github.com/NExTplusplus/TAT-QA (dataset_raw/tatqa_dataset_train.json)"


def read_items(path: Path) -> list[Json]:
    """The items of a local TAT-QA file, or a message that says what is missing and where to
    get it (the dataset is not committed, and a CI machine has none)."""
    if not path.is_file():
        raise SystemExit(f"no TAT-QA train file at {path}: the dataset is not in this "
                         f"repository; download the TRAIN split from {SOURCE} and pass "
                         "--data PATH")
    try:
        return load(path)
    except (ValueError, KeyError, TypeError) as exc:
        raise SystemExit(f"{path}: not a TAT-QA JSON file ({exc})") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA,
                        help=f"a local TAT-QA TRAIN file (default {DEFAULT_DATA})")
    parser.add_argument("--questions", type=int, default=600, help="how many to ask")
    parser.add_argument("--show-failures", action="store_true")
    parser.add_argument("--json", dest="json_path", help="write the full report (- = stdout)")
    args = parser.parse_args(argv)
    items = train_only(args.data, read_items(args.data))
    chosen = selected(items, args.questions)
    start = time.perf_counter()
    results = run(chosen)
    elapsed = time.perf_counter() - start
    out = sys.stderr if args.json_path == "-" else sys.stdout
    if args.show_failures:
        for r in results:
            if r["verdict"] != CORRECT:
                print(f"{r['verdict'].upper():6} {r['form']:10} {r['question']}\n"
                      f"       {r['reason']}\n       -> {r['text'][:160]}", file=out)
    print(table(results), file=out)
    tables = len({r["table"] for r in results})
    print(f"\n{len(results)} questions on {tables} tables in {elapsed:.0f} s", file=out)
    if args.json_path:
        text = json.dumps({"date": dt.date.today().isoformat(), "data": args.data.name,
                           "results": results}, ensure_ascii=False, indent=1)
        if args.json_path == "-":
            print(text)
        else:
            Path(args.json_path).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
