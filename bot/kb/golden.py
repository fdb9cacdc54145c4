"""`ricorda test FILE`: ask every golden question the way `ricorda ask --json` does and report
pass or fail, as a table for the operator and as JUnit XML for CI.

Each question is asked standalone (no follow-up context) from its own chat, so its clearance
applies, with the application opened once per reference date exactly as bot.wiring.ask_once opens it
(one-shot: nothing learnt between questions changes a later answer).
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.kb.golden_file import GoldenQuestion, Json, check, summary


@dataclass(frozen=True)
class GoldenResult:
    question: GoldenQuestion
    problems: tuple[str, ...]
    answered: str
    error: str = ""  # the question could not be asked at all
    verified: bool = False  # `verified: true` and passed: its answer is now verified

    @property
    def passed(self) -> bool:
        return not self.problems and not self.error


class GoldenRunner:
    """Answers golden questions in process through bot.wiring.ask_once's steps."""

    def __init__(self, data_dir: Path | None) -> None:
        self.data_dir = data_dir
        self.apps: dict[str | None, Any] = {}

    def ask(self, question: GoldenQuestion) -> Json:
        from bot.wiring.ask_once import _json_line
        from core.contracts.types import Request
        from core.question.conversation import STANDALONE

        app = self._app(question.reference_date)
        answer = app.core.pipeline.answer(
            Request(text=question.ask, chat=question.chat, user="cli",
                    reference_date=app.core.today(), conversation=STANDALONE)
        )
        loaded: Json = json.loads(_json_line(answer.to_dict()))  # the line the CLI prints
        return loaded

    def verify(self, question: GoldenQuestion, answer: Json) -> bool:
        """Mark the answer a passing `verified: true` question got as verified (as an admin's
        `verify` does); False when its answer is not a cached one."""
        from core.fastpath.verified import verify

        app = self._app(question.reference_date)
        app.core.flush_learning()  # the answer's plan is in the L0 table from here
        turn = app.storage.turns.get_turn(str(answer.get("turn_id") or ""))
        return turn is not None and verify(app.storage.fastpaths, turn.id, turn) is not None

    def entity_names(self) -> dict[str, tuple[str, ...]]:
        glossary = self._app(None).core.glossary
        return {code: (*term.names, *(label for _, label in term.labels))
                for code, term in glossary.entities.items()}

    def _app(self, date: str | None) -> Any:
        if date not in self.apps:
            from bot.wiring.startup import open_app

            overrides = {"reference_date": date} if date else {}
            self.apps[date] = open_app(self.data_dir, one_shot=True, **overrides)
        return self.apps[date]

    def close(self) -> None:
        for app in self.apps.values():
            app.close()
        self.apps.clear()


def run_golden(questions: Iterable[GoldenQuestion], data_dir: Path | None) -> list[GoldenResult]:
    """Every question asked and checked; a question that cannot be answered (an error) fails
    with the error, and the others still run."""
    from core.contracts.errors import RicordaError

    runner = GoldenRunner(data_dir)
    try:
        names = runner.entity_names()
        results = []
        for question in questions:
            try:
                answer = runner.ask(question)
            except RicordaError as exc:
                results.append(GoldenResult(question, (), "", error=str(exc)))
                continue
            problems = tuple(check(question, answer, names))
            verified = question.verified and not problems and runner.verify(question, answer)
            results.append(GoldenResult(question, problems, summary(answer),
                                        verified=verified))
        return results
    finally:
        runner.close()


def results_table(results: list[GoldenResult]) -> Any:
    """A rich table: result, name, what was answered, and why a failure failed (the
    question is in the file and the JUnit XML; the answer's words are escaped, not markup)."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(title="Golden questions", show_lines=False)
    for column in ("result", "name", "answered", "why it failed"):
        table.add_column(column, overflow="fold")
    for r in results:
        table.add_row("[green]pass[/green]" if r.passed else "[red]FAIL[/red]",
                      escape(r.question.name), escape(r.answered),
                      escape("; ".join(r.problems) or r.error))
    return table


def junit_xml(results: list[GoldenResult], suite: str) -> str:
    """JUnit XML (one testsuite, a testcase per question, a failure or error element for each
    one that did not pass), as CI servers read it."""
    failures = sum(1 for r in results if r.problems)
    errors = sum(1 for r in results if r.error)
    root = ET.Element("testsuites")
    node = ET.SubElement(root, "testsuite", name=suite, tests=str(len(results)),
                         failures=str(failures), errors=str(errors), skipped="0")
    for r in results:
        case = ET.SubElement(node, "testcase", name=r.question.name, classname=suite)
        ET.SubElement(case, "system-out").text = f"asked: {r.question.ask}\n" \
                                                 f"chat: {r.question.chat}\n" \
                                                 f"answered: {r.answered}"
        if r.error:
            ET.SubElement(case, "error", message=r.error).text = r.error
        elif r.problems:
            message = "; ".join(r.problems)
            ET.SubElement(case, "failure", message=message).text = \
                f"{message}\nanswered: {r.answered}"
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
