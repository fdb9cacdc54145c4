"""What a structured one-shot `ricorda ask` imports, against a checked-in list.

A plain `ricorda ask` is the command scripts call in a loop: every module it imports is paid for
on every call. The list (tests/fixtures/ask_imports.txt) names each ricorda module and each
third-party package such a question loads; a module that starts loading (an import moved to a
module's top, a new dependency of the answer path) fails this test instead of slowing every
`ask` unnoticed, and so does one that stopped loading (the list stays exact).

When the change is deliberate, update the list and commit it with the change:

    python -m tests.test_startup_imports --update
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

LIST = Path(__file__).parent / "fixtures" / "ask_imports.txt"
DEMO = Path(__file__).resolve().parents[1] / "bot" / "demo"
QUESTION = "What was Orbis China revenue in FY2024?"
OWN = ("bot", "core", "storage", "adapters")
# imported by the interpreter's start-up or probed by the standard library, not by ricorda
NOT_OURS = ("sitecustomize", "usercustomize", "org", "_distutils_hack")
UPDATE = "python -m tests.test_startup_imports --update"


def _run(data: Path, *args: str, importtime: bool = False) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RICORDA_")}
    env["RICORDA_DATA_DIR"] = str(data)
    flags = ["-X", "importtime"] if importtime else []
    proc = subprocess.run(
        [sys.executable, *flags, "-m", "bot", *args],
        # generous: two full suites on two busy cores; an answer takes well under a second idle
        capture_output=True, text=True, env=env, timeout=300, cwd=data.parent,
    )
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


def imported_after_start(importtime: str) -> set[str]:
    """The modules `-X importtime` reports once the interpreter's own start-up (`site` and
    what it loads from .pth files) is over: what the program itself imported."""
    names = [ln.rsplit("|", 1)[-1] for ln in importtime.splitlines() if ln.startswith("import ")]
    starts = [i for i, name in enumerate(names) if name == " site"]  # top level: one space
    return {name.strip() for name in names[starts[-1] + 1 if starts else 0:]}


def watched(modules: set[str]) -> set[str]:
    """Every ricorda module, and every third-party package by its top-level name."""
    stdlib = sys.stdlib_module_names
    out = set()
    for name in modules:
        top = name.split(".")[0]
        if top in OWN:
            out.add(name)
        elif top not in stdlib and not top.startswith("_") and top not in NOT_OURS:
            out.add(top)
    return out


def structured_ask_imports(tmp: Path) -> set[str]:
    """A demo knowledge base (glossary and facts), then the same structured question twice:
    first answered by the planner, then from the plan cache (an L0a hit). Both are counted."""
    data = tmp / "data"
    _run(data, "ingest", str(DEMO / "glossary.toml"), str(DEMO / "facts.csv"))
    seen: set[str] = set()
    served = []
    for _ in range(2):
        proc = _run(data, "ask", QUESTION, "--json", importtime=True)
        assert "560.4" in proc.stdout, proc.stdout  # it did answer, from the fact table
        served.append(proc.stdout.split('"served_by": "', 1)[1].split('"', 1)[0])
        seen |= watched(imported_after_start(proc.stderr))
    assert served == ["planner", "L0a"], served
    return seen


def read_list() -> set[str]:
    lines = LIST.read_text(encoding="utf-8").splitlines()
    return {ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")}


def test_a_structured_one_shot_ask_imports_only_the_listed_modules(tmp_path: Path) -> None:
    seen = structured_ask_imports(tmp_path)
    assert "sqlalchemy" in seen and "core.planning.answering" in seen  # the probe sees imports
    listed = read_list()
    new, gone = sorted(seen - listed), sorted(listed - seen)
    assert not new and not gone, (
        "a structured one-shot `ricorda ask` imports a different set of modules than "
        f"{LIST.relative_to(LIST.parents[2])} lists.\n"
        f"  newly imported: {new}\n  no longer imported: {gone}\n"
        "Every module here is paid for on every `ricorda ask`: load what only some questions "
        "need inside the function that needs it (documents, charts, platform SDKs, the "
        f"conversation store, maintenance). If the change is deliberate, run `{UPDATE}` and "
        "commit the list with it."
    )


def test_the_list_holds_none_of_the_heavy_stack() -> None:
    """What a structured question never needs, whatever the list says."""
    heavy = {"numpy", "chromadb", "jieba", "rank_bm25", "matplotlib", "httpx", "torch", "typer",
             "click", "rich", "alembic", "llama_cpp", "prometheus_client", "telegram",
             "slack_bolt", "slack_sdk", "onnxruntime", "tokenizers", "transformers"}
    listed = read_list()
    assert heavy & listed == set()
    assert {m for m in listed if m.startswith(("core.documents.", "storage.maintenance",
                                                "core.nightly", "adapters."))} <= {
        "core.documents.source_titles", "core.documents.snippet_text",
        "core.documents.locator_words"}  # a fact's source title, its locator as words


def main() -> None:
    if sys.argv[1:] != ["--update"]:
        sys.exit(f"usage: {UPDATE}")
    with tempfile.TemporaryDirectory() as tmp:
        seen = structured_ask_imports(Path(tmp))
    header = (
        "# What a structured one-shot `ricorda ask` imports (tests/test_startup_imports.py):\n"
        "# ricorda's modules, and third-party packages by top-level name. Regenerate with\n"
        f"# `{UPDATE}` only for a deliberate change.\n"
    )
    LIST.write_text(header + "".join(f"{m}\n" for m in sorted(seen)), encoding="utf-8")
    print(f"{LIST}: {len(seen)} entries")


if __name__ == "__main__":
    main()
