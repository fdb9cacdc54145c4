"""The glossary's own golden file, run by `ricorda ingest` after loading (issue 35 point 1).

A glossary declares it with

    [golden]
    file = "golden.yaml"     # beside the glossary

and every `ricorda ingest` into that data dir then asks its questions on what was just loaded
and reports each one that no longer passes as a regression: a figure that changed answer, a
question that stopped being answered. The glossary's loader ignores the table; only this module
reads it, from the glossary text stored in the data dir (so an ingest of facts alone runs it
too)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import TYPE_CHECKING

from core.contracts.errors import ConfigError

if TYPE_CHECKING:
    from bot.wiring.build import App


def declared_golden(app: App) -> Path | None:
    """The golden file the loaded glossary declares (relative to the glossary file), or None."""
    stored = app.storage.glossaries.load()
    if stored is None:
        return None
    try:
        table = tomllib.loads(stored.text).get("golden")
    except tomllib.TOMLDecodeError:
        return None
    name = table.get("file") if isinstance(table, dict) else None
    if not isinstance(name, str) or not name.strip():
        return None
    base = Path(stored.source_path).parent if stored.source_path else Path.cwd()
    return (base / name).resolve()


def golden_regressions(golden: Path, data_dir: Path | None) -> tuple[list[str], list[str]]:
    """(lines to print, regressions): every question of `golden` asked on the data dir."""
    from bot.kb.golden import run_golden
    from bot.kb.golden_file import load_golden

    try:
        questions = load_golden(golden)
    except ConfigError as exc:
        return [], [f"golden file: {exc}"]
    results = run_golden(questions, data_dir)
    failed = [r for r in results if not r.passed]
    lines = [f"golden: {len(results) - len(failed)} of {len(results)} questions of "
             f"{golden.name} still pass"]
    regressions = [f"golden regression {r.question.name}: "
                   f"{'; '.join(r.problems) or r.error} (answered: {r.answered or '-'})"
                   for r in failed]
    return lines, regressions
