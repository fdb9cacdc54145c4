"""`ricorda check [PATH...]`: validate a glossary, fact files and documents, writing nothing.

The checks are a list of independent functions (`CHECKS`), each given the files and what was
read from them (`KbFiles`) and returning its problems; another check is one more function
appended to the list. Every problem names its file and line and says how to fix it; an error
fails the check (exit 1), a warning (a TODO name left by `ricorda init`, a unit with no display
form) does not.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from core.contracts.errors import ConfigError, RicordaError
from core.contracts.fact_sources import FactSource
from core.knowledge.glossary import Glossary, read_glossary
from core.knowledge.name_overlaps import shared_name_warnings
from core.knowledge.unit_kinds import undeclared_units
from storage.fact_files import FactFileReport

ERROR, WARNING = "error", "warning"
MAX_LISTED = 20  # problems of one kind listed per file; the rest are counted
_WHERE = re.compile(r"^(?P<file>.+?), line (?P<line>\d+), (?P<rest>.*)$")


@dataclass(frozen=True)
class Problem:
    """One thing wrong (error) or worth fixing (warning), where it is and what to do."""

    file: str
    line: int | None
    message: str
    severity: str = ERROR

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.severity}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "severity": self.severity,
                "message": self.message}


@dataclass
class KbFiles:
    """The paths given to `check`, and what is read from them (once, on first use)."""

    glossary_path: Path | None
    fact_paths: list[Path] = field(default_factory=list)
    folders: list[Path] = field(default_factory=list)
    glossary_error: ConfigError | None = None

    @cached_property
    def glossary(self) -> Glossary | None:
        """The glossary, or None when there is none or it does not load (an error then)."""
        if self.glossary_path is None:
            return None
        try:
            return read_glossary(self.glossary_path)[1]
        except ConfigError as exc:
            self.glossary_error = exc
            return None

    @cached_property
    def fact_reports(self) -> list[FactFileReport | RicordaError]:
        """Each fact file read against the glossary (its codes and units) when it loads."""
        from storage.fact_files import read_fact_file

        g = self.glossary
        out: list[FactFileReport | RicordaError] = []
        for path in self.fact_paths:
            try:
                out.append(read_fact_file(
                    path,
                    known_metrics=g.metrics.keys() if g else None,
                    known_entities=g.entities.keys() if g else None,
                    known_channels=g.channels.keys() if g else None,
                    units=g.metric_units() if g else None,
                    max_problems=MAX_LISTED,  # a million bad rows: the first ones, counted
                ))
            except RicordaError as exc:
                out.append(exc)
        return out

    @cached_property
    def declared_reports(self) -> list[tuple[FactSource, FactFileReport | RicordaError]]:
        """Each source the glossary declares ([[facts]]: wide tables, SQL queries), read as
        `ingest` reads it (bot.kb.sources), with the settings' query bounds."""
        from bot.kb.sources import bounds_of, read_source
        from bot.settings.model import Settings

        g = self.glossary
        if g is None or not g.facts:
            return []
        try:
            bounds = bounds_of(Settings())
        except Exception:  # a bad setting is `serve`'s and `ingest`'s to report
            from storage.sql_sources import QueryBounds

            bounds = QueryBounds()
        out: list[tuple[FactSource, FactFileReport | RicordaError]] = []
        for source in g.facts:
            try:
                out.append((source, read_source(source, g, bounds, max_problems=MAX_LISTED)))
            except RicordaError as exc:
                out.append((source, exc))
        return out

    def reports(self) -> list[FactFileReport]:
        """Every report that read: the fact files' and the declared sources'."""
        return [r for r in (*self.fact_reports, *(r for _s, r in self.declared_reports))
                if isinstance(r, FactFileReport)]

    def document_roots(self) -> list[Path]:
        """The folders given, and the declared sources' folders."""
        roots = list(self.folders)
        if self.glossary is not None:
            given = {f.resolve() for f in roots}
            roots += [s.root for s in self.glossary.documents if s.root not in given]
        return roots


Check = Callable[[KbFiles], list[Problem]]


def check_glossary(kb: KbFiles) -> list[Problem]:
    """The glossary loads (every problem at its line), and nothing is left half done."""
    if kb.glossary_path is None:
        return [Problem("(no glossary)", None, "give the glossary (.toml) to check the fact files "
                        "against its codes and units", WARNING)]
    g = kb.glossary
    if g is None:
        assert kb.glossary_error is not None
        return [_located(line, str(kb.glossary_path)) for line in
                str(kb.glossary_error).splitlines() if line.strip()]
    return _glossary_warnings(g, kb.glossary_path)


def _glossary_warnings(g: Glossary, path: Path) -> list[Problem]:
    text = path.read_text(encoding="utf-8").splitlines()
    out: list[Problem] = []

    def line_of(header: str) -> int | None:
        return next((i + 1 for i, line in enumerate(text) if line.strip().startswith(header)),
                    None)

    for table, terms in (("metrics", g.metrics), ("entities", g.entities),
                         ("channels", g.channels)):
        for code, term in terms.items():
            todo = [n for n in term.names if n.upper().startswith("TODO")]
            if todo:
                out.append(Problem(str(path), line_of(f"[{table}.{code}]"),
                                   f"{table}.{code}: replace the placeholder name {todo[0]!r} "
                                   "with the names people use", WARNING))
    out += [Problem(str(path), None, m, WARNING) for m in shared_name_warnings(g)]
    metric_units = [t.unit for t in g.metrics.values()] + [d.term.unit for d in g.derived.values()]
    for code, term in g.metrics.items():
        if not term.unit:
            out.append(Problem(str(path), line_of(f"[metrics.{code}]"),
                               f"metrics.{code} has no unit: add unit = \"EUR_M\" (or its unit) "
                               "so rows in other units are converted or rejected", WARNING))
    for unit in undeclared_units(metric_units, g.unit_kinds):
        out.append(Problem(str(path), line_of(f"[units.{unit}]"),
                           f"unit {unit} has no dimension and scale: add [units.{unit}] "
                           'dimension = "..." and scale = "..." so it can be checked and '
                           "converted", WARNING))
    from core.knowledge.unit_display import has_display, readable_code

    for unit in dict.fromkeys(u for u in metric_units if u):
        if not has_display(unit, g.units):  # a currency, PCT or FTE reads in words anyway
            out.append(Problem(str(path), line_of(f"[units.{unit}]"),
                               f"unit {unit} has no display form: values read \"1,320 "
                               f"{readable_code(unit)}\"; add [units.{unit}] en = "
                               f"\"{{value}} ...\" (and it, zh)", WARNING))
    return out


def check_facts(kb: KbFiles) -> list[Problem]:
    """Every fact row is valid against the glossary's codes and units (converted rows are
    fine: they load in the metric's unit)."""
    out: list[Problem] = []
    for path, report in zip(kb.fact_paths, kb.fact_reports, strict=True):
        if isinstance(report, RicordaError):
            out.append(_located(str(report), str(path)))
            continue
        out += [Problem(str(path), e.line, e.message) for e in report.errors]
        out += [Problem(str(path), w.line, w.message, WARNING) for w in report.warnings]
        if report.more_errors:
            out.append(Problem(str(path), None, f"{report.more_errors:,} more rows rejected "
                               f"({len(report.errors) + report.more_errors:,} of "
                               f"{report.rows_read:,}); the first {len(report.errors)} are "
                               "listed: fix what they have in common and check again"))
        if report.more_warnings:
            out.append(Problem(str(path), None, f"{report.more_warnings:,} more warnings",
                               WARNING))
        units = kb.glossary.metric_units().units if kb.glossary is not None else {}
        for (metric, unit), n in sorted(report.own_currency.items()):
            # a unit reporting in its own currency loads; a typo in the unit column would too
            out.append(Problem(str(path), None, (
                f"{n} row{'s' if n != 1 else ''} of {metric} in {unit}, not {metric}'s "
                f"{units.get(metric, '')}: kept in their own currency (a unit that reports in "
                "it), never converted or added to the others; if that is a typo, write the "
                f"value in {units.get(metric, '')}"), WARNING))
    return out


def check_declared_sources(kb: KbFiles) -> list[Problem]:
    """Every declared source ([[facts]]) reads, and every figure in it is valid: a file's
    problems at its row and cell, a query's at its [[facts]] entry in the glossary."""
    if not kb.declared_reports or kb.glossary_path is None:
        return []
    lines = kb.glossary_path.read_text(encoding="utf-8").splitlines()
    entries = [i + 1 for i, line in enumerate(lines) if line.strip() == "[[facts]]"]
    out: list[Problem] = []
    for source, report in kb.declared_reports:
        entry = entries[source.index] if source.index < len(entries) else None
        file, line = (str(source.path), None) if source.path else (str(kb.glossary_path), entry)
        if isinstance(report, RicordaError):
            out.append(Problem(file, line, str(report)))
            continue
        for problems, severity in ((report.errors, ERROR), (report.warnings, WARNING)):
            out += [Problem(file, line if source.is_sql else p.line,
                            f"{p.where}: {p.message}" if p.where else p.message, severity)
                    for p in problems]
        if report.more_errors:
            out.append(Problem(file, line, f"{report.more_errors:,} more figures rejected"))
    return out


def check_documents(kb: KbFiles) -> list[Problem]:
    """Every document under the folders can be read and has text."""
    from core.documents.document_ingest import walk_documents
    from storage.document_readers import read_document

    out: list[Problem] = []
    for root in kb.document_roots():
        if not root.is_dir():
            out.append(Problem(str(root), None, "no such folder: create it or fix the path "
                               "of its [[documents]] source"))
            continue
        for path, why_skipped in walk_documents(root):
            if why_skipped:
                out.append(Problem(str(path), None, f"{why_skipped}: copy the file in", WARNING))
                continue
            try:
                sections = read_document(path)
            except RicordaError as exc:
                out.append(Problem(str(path), None, str(exc)))
                continue
            if not sections:
                out.append(Problem(str(path), None, "no text found (a scanned PDF?): nothing "
                                   "in it can be quoted; add a text version", WARNING))
    return out


# the checks `ricorda check` runs, in order; a new check is one more function here
def check_disclosure(kb: KbFiles) -> list[Problem]:
    """Restricted figures a chat without clearance could compute exactly from public ones
    (core.knowledge.disclosure): an error under "protect" (declare the relation or restrict the
    cell), a warning under "disclose" (the company published those totals)."""
    from core.knowledge.disclosure import PROTECT, find_disclosures, policy

    g = kb.glossary
    if g is None or kb.glossary_path is None:
        return []
    facts = [f for r in kb.reports() for f in r.facts]
    severity = ERROR if policy(g) == PROTECT else WARNING
    return [Problem(str(kb.glossary_path), None, f"disclosure: {d.describe()}", severity)
            for d in find_disclosures(g, facts)]


def check_public_passages(kb: KbFiles) -> list[Problem]:
    """Public passages stating a figure the policy withholds (bot.kb.public_passages): an error
    under "protect", since quoted beside the public units' figures they give a restricted one
    away; the first MAX_LISTED are listed, the rest counted."""
    from bot.kb.public_passages import FIX, on_disk

    g = kb.glossary
    if g is None or kb.glossary_path is None:
        return []
    facts = [f for r in kb.reports() for f in r.facts]
    found = list(on_disk(g, facts, kb.document_roots(), base=kb.glossary_path.parent))
    out = [Problem(p.doc, None, f"disclosure: {p.describe()}; {FIX}") for p in found[:MAX_LISTED]]
    if len(found) > MAX_LISTED:
        out.append(Problem(str(kb.glossary_path), None, f"disclosure: {len(found) - MAX_LISTED} "
                           "more public passages state a withheld figure"))
    return out


def check_relations(kb: KbFiles) -> list[Problem]:
    """Relations the disclosure policy needs: a restricted unit with no parent (if a total
    includes it, the total minus the rest is its figure, and nothing says so), and an entity
    whose figures are the others' sum in the fact table while none of them names it as parent
    (core.knowledge.disclosure only protects declared relations)."""
    from bot.kb.init import group_total

    g, path = kb.glossary, kb.glossary_path
    if g is None or path is None:
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    out = []
    for code, term in g.entities.items():
        if term.restricted and term.parent is None:
            out.append(Problem(str(path), _line_of(lines, f"[entities.{code}]"),
                               f"entities.{code} is restricted but has no parent: a total that "
                               f"includes it gives its figures away as the total minus the "
                               f"other units; add parent = \"<the total's code>\"", WARNING))
    facts = [f for r in kb.reports() for f in r.facts]
    group = group_total(facts)
    if group is not None and group in g.entities and not any(
            t.parent == group for t in g.entities.values()):
        others = [c for c in dict.fromkeys(f.entity for f in facts) if c != group]
        out.append(Problem(str(path), _line_of(lines, f"[entities.{group}]"),
                           f"entities.{group}'s figures are the sum of {', '.join(others)} in "
                           f"the fact table, but no entity declares it as parent: add parent = "
                           f"\"{group}\" to each unit, so a restricted one stays protected",
                           WARNING))
    return out


def _line_of(lines: list[str], header: str) -> int | None:
    return next((i + 1 for i, line in enumerate(lines) if line.strip().startswith(header)), None)


CHECKS: list[Check] = [check_glossary, check_facts, check_declared_sources, check_documents,
                       check_disclosure, check_relations, check_public_passages]


@dataclass
class CheckResult:
    problems: list[Problem]
    checked: dict[str, Any]
    notes: list[str] = field(default_factory=list)  # what the policy withholds, for the record

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == ERROR]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == WARNING]

    def to_dict(self) -> dict[str, Any]:
        return {"ok": not self.errors, "checked": self.checked,
                "errors": [p.to_dict() for p in self.errors],
                "warnings": [p.to_dict() for p in self.warnings], "notes": self.notes}

    def text(self) -> str:
        lines = [str(p) for p in self.problems] + self.notes
        counts = f"{len(self.errors)} errors, {len(self.warnings)} warnings"
        verdict = "ready to ingest" if not self.errors else "fix the errors, then check again"
        return "\n".join([*lines, f"{counts}: {verdict}"])


def run_checks(paths: list[Path], checks: list[Check] | None = None) -> CheckResult:
    """Every check over the files at `paths` (a glossary, fact files, document folders);
    without paths, the current folder's glossary.toml and the fact files beside it."""
    from bot.kb.ingest import classify

    if not paths:
        paths = _default_paths(Path.cwd())
    glossaries, facts, folders = classify(paths)
    if len(glossaries) > 1:
        raise ConfigError("give one glossary at a time")
    kb = KbFiles(glossaries[0] if glossaries else None, facts, folders)
    if kb.glossary is not None:  # a report table the glossary declares is checked as declared
        declared = {s.path for s in kb.glossary.facts}
        kb.fact_paths = [p for p in facts if p.resolve() not in declared]
    problems: list[Problem] = []
    for check in checks if checks is not None else CHECKS:
        problems += check(kb)
    g = kb.glossary
    checked = {
        "glossary": str(kb.glossary_path) if kb.glossary_path else None,
        "fact_files": [str(p) for p in kb.fact_paths],
        "rows": sum(r.rows_read for r in kb.reports()),
        "conversions": [line for r in kb.reports() for line in r.conversion_lines()],
        "fact_sources": [s.name for s in g.facts] if g else [],
        "document_folders": [str(p) for p in kb.document_roots()],
        "metrics": len(g.metrics) if g else 0,
        "entities": len(g.entities) if g else 0,
    }
    return CheckResult(problems, checked, _source_notes(kb) + _withheld_notes(kb))


def _source_notes(kb: KbFiles) -> list[str]:
    """What each declared source that reads would load: its line items and figures, the
    metrics and the periods (codes only: no figure, no entity, so nothing restricted shows)."""
    out = []
    for source, report in kb.declared_reports:
        if isinstance(report, RicordaError):
            continue
        metrics = ", ".join(dict.fromkeys(f.metric for f in report.facts)) or "none"
        periods = sorted({f.period for f in report.facts})
        span = f"; {periods[0].label}–{periods[-1].label}" if periods else ""
        out.append(f"source {source.name}: {report.rows_read} rows, {len(report.facts)} "
                   f"figures of {metrics}{span}")
    return out


def _withheld_notes(kb: KbFiles) -> list[str]:
    """What the policy withholds from uncleared chats (bot.wiring.disclosure_report)."""
    from bot.wiring.disclosure_report import withheld_lines

    g = kb.glossary
    if g is None:
        return []
    return withheld_lines(g, [f for r in kb.reports() for f in r.facts])


def _default_paths(folder: Path) -> list[Path]:
    glossary = folder / "glossary.toml"
    if not glossary.is_file():
        raise ConfigError(f"no glossary.toml in {folder}: give the files to check, like "
                          "`ricorda check glossary.toml facts.csv docs/`")
    facts = sorted(p for p in folder.iterdir() if p.suffix.lower() in (".csv", ".xlsx"))
    return [glossary, *facts]


def _located(text: str, default_file: str) -> Problem:
    """"glossary.toml, line 12, key 'x': why" -> a Problem at glossary.toml:12."""
    match = _WHERE.match(text)
    if match:
        return Problem(match["file"], int(match["line"]), match["rest"])
    return Problem(default_file, None, text)
