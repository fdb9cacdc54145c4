"""`ricorda ingest`: glossary first, then fact tables, then document folders.

Every bad row or broken file is reported and skipped; the good ones load. Re-running is safe:
facts upsert on their key, documents are skipped when their content hash is unchanged.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from bot.wiring.build import App
from core.contracts.documents import DocumentSource
from core.contracts.errors import IngestError, RicordaError
from core.contracts.types import Fact
from core.knowledge.document_sources import restricted_in, source_rel
from core.knowledge.glossary import read_glossary

if TYPE_CHECKING:
    from bot.wiring.disclosure_report import DisclosureReport

FACT_SUFFIXES = {".csv", ".xlsx"}
MAX_PROBLEMS = 1000  # bad rows (and duplicates) of one file listed; the rest are counted

Progress = Callable[[str, int, int], None]  # (label, done, total)


@dataclass
class IngestSummary:
    lines: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def classify(paths: Iterable[Path]) -> tuple[list[Path], list[Path], list[Path]]:
    """Split paths into (glossaries, fact files, document folders); unknown kinds raise."""
    glossaries, facts, folders = [], [], []
    for path in paths:
        if not path.exists():
            raise IngestError(f"{path}: no such file or folder")
        if path.is_dir():
            folders.append(path)
        elif path.suffix.lower() == ".toml":
            glossaries.append(path)
        elif path.suffix.lower() in FACT_SUFFIXES:
            facts.append(path)
        else:
            raise IngestError(
                f"{path}: not a glossary (.toml), a fact table (.csv/.xlsx) or a document folder"
            )
    return glossaries, facts, folders


def ingest_paths(
    app: App,
    paths: list[Path],
    *,
    progress: Progress | None = None,
    prune: bool = False,
    reindex: bool = False,
) -> IngestSummary:
    summary = IngestSummary()
    summary.lines += [f"notice: {n}" for n in app.storage.notices]
    glossaries, fact_files, folders = classify(paths)
    if len(glossaries) > 1:
        raise IngestError("give one glossary at a time")
    for path in glossaries:
        # validated as a whole before anything is stored: a bad glossary raises ConfigError
        # (file, line, reason for each problem) and the stored one stays in use everywhere;
        # stored with its absolute path: [[documents]] folders are relative to the file
        text, glossary = read_glossary(path)
        changed = app.storage.glossaries.save(text, str(path.resolve()))
        app.core.reload_glossary()
        summary.lines.append(
            f"glossary {path.name}: {len(glossary.metrics)} metrics, {len(glossary.entities)} "
            f"entities, {len(glossary.channels)} channels" + ("" if changed else " (unchanged)")
        )
    if glossaries:
        folders += _reclassified_sources(app, folders, summary)
        if not fact_files:
            summary.lines += _stored_in_other_units(app)
    for path in fact_files:
        if _declared_file(app, path):  # a report table the glossary declares: read as declared
            summary.lines.append(f"{path.name}: declared in the glossary ([[facts]]), read as "
                                 "declared")
            continue
        _ingest_facts(app, path, summary, progress)
    declared = _ingest_declared(app, summary)
    if not paths and not declared:
        raise IngestError("nothing to ingest: give the glossary, fact tables and document "
                          "folders (`ricorda ingest glossary.toml facts.csv docs/`); without "
                          "paths, ingest reloads the sources the stored glossary declares "
                          "([[facts]])")
    withheld: list[Fact] | None = None
    if glossaries or fact_files or declared:  # what the public figures now give away (issue 26)
        with contextlib.suppress(RicordaError):  # no glossary yet: nothing restricted
            # the withheld figures are held only if a public document may state one
            keep = bool(folders) or any(not d.restricted
                                        for d in app.core.documents.chunks.documents())
            report = _disclosure_report(app, findings=True, keep=keep)
            summary.lines += report.lines
            withheld = report.withheld
    for folder in folders:
        _ingest_documents(app, folder, summary, progress, prune=prune, reindex=reindex)
    if glossaries or fact_files or folders or declared:  # public passages stating a
        # withheld figure
        from bot.kb.public_passages import passage_lines, stored

        with contextlib.suppress(RicordaError):
            if withheld is None:
                withheld = _disclosure_report(app, findings=False, keep=True).withheld
            summary.lines += passage_lines(stored(
                app.core.glossary, (), lambda: app.core.documents.chunks.all_chunks(),
                withheld=withheld))
    return summary


def _declared_file(app: App, path: Path) -> bool:
    with contextlib.suppress(RicordaError):
        return any(s.path == path.resolve() for s in app.core.glossary.facts)
    return False


def _ingest_declared(app: App, summary: IngestSummary) -> bool:
    """Every source the glossary declares (`[[facts]]`: wide tables, SQL queries), reloaded
    at each ingest (bot.kb.sources); whether there were any."""
    from bot.kb.sources import load_sources

    with contextlib.suppress(RicordaError):  # no glossary yet: nothing declared
        if not app.core.glossary.facts:
            return False
        lines, problems = load_sources(app)
        summary.lines += lines
        summary.problems += problems
        return True
    return False


def _disclosure_report(app: App, *, findings: bool, keep: bool) -> DisclosureReport:
    """The disclosure report over the stored facts, streamed from the table one (metric,
    fiscal year) at a time: a million-row table is never held after its commit (issue 37)."""
    from bot.wiring.disclosure_report import disclosure_report

    return disclosure_report(app.core.glossary, app.storage.facts.ordered_facts(),
                             findings=findings, keep=keep)


def _stored_in_other_units(app: App) -> list[str]:
    """Figures stored in another unit than the glossary now gives their metric: read in the
    metric's unit when the dimension is the same, left out of tables when not
    (core.figures.structured, core.figures.tabulate); said here so they get re-ingested."""
    from core.knowledge.currency_variants import other_currency

    glossary = app.core.glossary
    metrics = glossary.metrics
    odd = {  # counted by the database: the facts are not read into memory
        (metric, unit): n for (metric, unit), n in app.storage.facts.unit_counts().items()
        if metric in metrics and metrics[metric].unit not in ("", unit) and unit
        and not other_currency(glossary, unit, metrics[metric].unit)  # kept on purpose
    }
    return [
        f"note: {n} stored figures of {metric} are in {unit}, not {metrics[metric].unit}: "
        "ingest their fact file again to convert them"
        for (metric, unit), n in sorted(odd.items())
    ]


def _reclassified_sources(app: App, folders: list[Path], summary: IngestSummary) -> list[Path]:
    """Roots of declared sources whose stored documents the new glossary classifies otherwise
    (a source made RESTRICTED, or public): ingested now, so no document keeps a classification
    its source no longer has until someone remembers to ingest the folder."""
    given = [f.resolve() for f in folders]
    out = []
    for source in app.core.glossary.documents:
        stale = [
            d for d in app.core.documents.chunks.documents(source.name)
            if d.restricted != restricted_in(source, source_rel(source, d.path))
        ]
        covered = any(source.root == g or g in source.root.parents for g in given)
        if not stale or covered:
            continue
        if not source.root.is_dir():  # reclassified in place; vectors back at the next ingest
            vectors = app.core.documents.vector_index()
            for doc in stale:
                vectors.delete_doc(doc.path)
                app.core.documents.chunks.reclassify(doc.path, not doc.restricted)
            summary.lines.append(
                f"source {source.name}: its classification changed and its folder "
                f"{source.root} is not here; {len(stale)} documents reclassified in place "
                "(keyword search only until the folder is ingested)"
            )
            continue
        summary.lines.append(
            f"source {source.name}: its classification changed; re-ingesting {source.root}"
        )
        out.append(source.root)
    return out


def _ingest_facts(app: App, path: Path, summary: IngestSummary, progress: Progress | None) -> None:
    """One fact file, streamed from the file into the table (storage.fact_files.stream_fact_file):
    its rows are never all in memory, and a file that breaks half-way stores nothing."""
    from storage.fact_files import stream_fact_file

    glossary = app.core.glossary
    try:
        report, facts = stream_fact_file(
            path,
            known_metrics=glossary.metrics.keys(),
            known_entities=glossary.entities.keys(),
            known_channels=glossary.channels.keys(),
            progress=(lambda done, total: progress(path.name, done, total)) if progress else None,
            units=glossary.metric_units(),
            max_problems=MAX_PROBLEMS,
        )
        counts = app.storage.facts.upsert_facts(facts)
    except RicordaError as exc:
        summary.problems.append(str(exc))
        return
    rejected = len(report.errors) + report.more_errors
    summary.lines.append(
        f"facts {path.name}: {report.rows_read} rows read, {counts.inserted} new, "
        f"{counts.updated} updated, {counts.unchanged} unchanged, {rejected} rejected"
    )
    summary.lines += [f"  {path.name}: {line}" for line in report.conversion_lines()]
    summary.lines += [f"  warning {path.name} {w}" for w in report.warnings]
    if report.more_warnings:
        summary.lines.append(f"  warning {path.name}: {report.more_warnings} more not listed")
    summary.problems += [f"{path.name} {e}" for e in report.errors]
    if report.more_errors:
        summary.problems.append(f"{path.name}: {report.more_errors} more rows rejected, not "
                                "listed (the first ones show what to fix)")


def _ingest_documents(
    app: App,
    folder: Path,
    summary: IngestSummary,
    progress: Progress | None,
    *,
    prune: bool,
    reindex: bool,
) -> None:
    try:
        parts = app.core.documents.document_sources(folder)
    except RicordaError as exc:
        summary.problems.append(str(exc))
        return
    for i, (part, source) in enumerate(parts):
        if i and not part.is_dir():  # a declared source nested in `folder` not made yet
            kept = len(app.core.documents.chunks.documents(source.name))
            summary.lines.append(
                f"source {source.name}: its folder {part} does not exist; nothing read from it"
                + (f" ({kept} documents ingested earlier kept)" if kept else "")
            )
            continue
        _ingest_source(
            app, part, source, summary, progress, prune=prune, reindex=reindex and i == 0
        )


def _ingest_source(
    app: App,
    folder: Path,
    source: DocumentSource,
    summary: IngestSummary,
    progress: Progress | None,
    *,
    prune: bool,
    reindex: bool,
) -> None:
    try:
        report = app.core.documents.ingest_documents(
            folder,
            source=source,
            prune=prune,
            reindex=reindex,
            progress=(lambda done, total, _f: progress(folder.name, done, total))
            if progress
            else None,
        )
    except RicordaError as exc:
        summary.problems.append(str(exc))
        return
    kind = "RESTRICTED" if source.restricted else "public"
    label = f"source {source.name}, {kind}" if source.declared else f"{kind}, not declared"
    summary.lines.append(f"documents {folder} ({label}): {report.summary()}")
    summary.lines += [f"  skipped {name}: {why}" for name, why in report.skipped]
    summary.lines += [f"  moved {name}: its old copy was removed" for name in report.moved]
    summary.problems += [f"{name}: {reason}" for name, reason in report.failed]
