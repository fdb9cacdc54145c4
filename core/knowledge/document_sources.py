"""Document sources: named folders with a classification, so that whether a document is
RESTRICTED never depends on which folder a command happened to name.

A source is declared in the glossary (`[[documents]]`, see `parse_document_sources`) with a
stable name, a folder and `restricted = true|false`. A file's classification is its source's,
or RESTRICTED when a folder on its path *relative to the source root* is named `restricted`.
Documents are keyed by (source, path): the key of a file is `source/path`, except in the
`default` source (documents ingested before sources existed keep their plain path as key, so
their chunk ids and vectors stay valid).

When nothing is declared, a folder is an implicit source of its own and is RESTRICTED when any
component of its resolved absolute path is named `restricted`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from core.contracts.documents import DEFAULT_SOURCE, DocumentSource
from core.contracts.errors import ConfigError, IngestError

RESTRICTED_FOLDER = "restricted"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def source_key(source: DocumentSource, rel: str) -> str:
    """The document key of `rel` (POSIX path relative to the source's root)."""
    return doc_key(source.name, rel)


def source_rel(source: DocumentSource, key: str) -> str:
    """The path relative to the source's root of the document keyed `key`."""
    return key if source.name == DEFAULT_SOURCE else key.removeprefix(f"{source.name}/")


def restricted_in(source: DocumentSource, rel: str) -> bool:
    """RESTRICTED when the source is, or a folder below its root is named `restricted`."""
    return source.restricted or is_restricted(rel)


def doc_key(source: str, rel: str) -> str:
    return rel if source == DEFAULT_SOURCE else f"{source}/{rel}"


def is_restricted(rel_path: str) -> bool:
    """A file is RESTRICTED when any folder on its (source-relative) path is `restricted`."""
    folders = rel_path.split("/")[:-1]
    return any(part.casefold() == RESTRICTED_FOLDER for part in folders)


def path_is_restricted(path: Path) -> bool:
    """The undeclared fallback: any component of the resolved absolute path is `restricted`."""
    return any(part.casefold() == RESTRICTED_FOLDER for part in path.resolve().parts)


def valid_source_name(name: object) -> bool:
    return isinstance(name, str) and bool(_NAME.match(name))


def locate(folder: Path, declared: Sequence[DocumentSource]) -> DocumentSource:
    """The declared source a folder belongs to: the deepest one whose root contains it.

    Raises IngestError when sources are declared and the folder is in none of them: reading a
    folder nobody classified would make its classification an accident again.
    """
    resolved = folder.resolve()
    holders = [s for s in declared if resolved == s.root or s.root in resolved.parents]
    if not holders:
        names = ", ".join(f"{s.name} ({s.root})" for s in declared)
        raise IngestError(
            f"{folder}: not inside any document source declared in the glossary ({names}); "
            "add a [[documents]] entry for it first"
        )
    return max(holders, key=lambda s: len(s.root.parts))


def nested_roots(source: DocumentSource, declared: Sequence[DocumentSource]) -> set[Path]:
    """Roots of other declared sources inside `source`: their files belong to them."""
    return {s.root for s in declared if s.root != source.root and source.root in s.root.parents}


def parse_document_sources(
    raw: Any, *, base_dir: Path, fail: Callable[[int, str, str], ConfigError]
) -> tuple[DocumentSource, ...]:
    """The glossary's `[[documents]]` array: `source`, `path` (relative to the glossary file)
    and `restricted`. `fail(index, key, problem)` builds the error naming file and line."""
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(isinstance(item, dict) for item in raw):
        raise fail(0, "documents", 'must be [[documents]] tables with source = "...", path = "..."')
    out: list[DocumentSource] = []
    for i, item in enumerate(raw):
        name = item.get("source")
        if not valid_source_name(name):
            raise fail(
                i, "source", "must be a name of letters, digits, '.', '_', '-' (like \"handbook\")"
            )
        folder = item.get("path")
        if not isinstance(folder, str) or not folder.strip():
            raise fail(i, "path", "must be a folder, relative to the glossary file")
        restricted = item.get("restricted", False)
        if not isinstance(restricted, bool):
            raise fail(i, "restricted", "must be true or false")
        unknown = sorted(set(item) - {"source", "path", "restricted"})
        if unknown:
            raise fail(i, unknown[0], "unknown key (expected source, path, restricted)")
        root = (base_dir / folder.strip()).resolve()
        for other in out:
            if other.name == name:
                raise fail(i, "source", f"source {name!r} is declared twice")
            if other.root == root:
                raise fail(i, "path", f"folder already declared as source {other.name!r}")
        out.append(DocumentSource(str(name), root, restricted))
    return tuple(out)


# --- which source a folder named on the command line belongs to ---------------------------


def source_of_folder(
    folder: Path, declared: Sequence[DocumentSource], known: Sequence[DocumentSource]
) -> tuple[DocumentSource, set[Path]]:
    """The source a folder's documents belong to, and the roots of sources nested in it.

    Declared sources (the glossary's [[documents]]) decide alone when there are any. With
    none, a folder is an undeclared source of its own (or of the undeclared folder holding
    it, among the `known` sources already stored), RESTRICTED when its resolved path has a
    `restricted` component.
    """
    if not folder.is_dir():
        raise IngestError(f"{folder}: not a folder")
    if declared:
        source = locate(folder, declared)
        return source, nested_roots(source, declared)
    return undeclared_source(folder, known), set()


def sources_to_ingest(
    folder: Path, declared: Sequence[DocumentSource], known: Sequence[DocumentSource]
) -> list[tuple[Path, DocumentSource]]:
    """What ingesting `folder` means: (folder, its source), then (root, source) for every
    declared source nested inside it, so `ricorda ingest docs/` ingests all of docs/."""
    source, nested = source_of_folder(folder, declared, known)
    by_root = {s.root: s for s in declared}
    inside = [r for r in nested if r == folder.resolve() or folder.resolve() in r.parents]
    return [(folder, source)] + [(r, by_root[r]) for r in sorted(inside)]


def undeclared_source(folder: Path, known: Sequence[DocumentSource]) -> DocumentSource:
    """The implicit source of a folder named while no source is declared.

    The undeclared source already holding the folder, else a new one: `default` while that
    name is free (documents adopted from before sources existed live there), else the folder's
    name made unique. RESTRICTED follows the resolved path, never the spelling of `folder`.
    """
    resolved = folder.resolve()
    restricted = path_is_restricted(resolved)
    holders = [
        s for s in known if not s.declared and (s.root == resolved or s.root in resolved.parents)
    ]
    if holders:
        holder = max(holders, key=lambda s: len(s.root.parts))
        return DocumentSource(holder.name, holder.root, path_is_restricted(holder.root), False)
    taken = {s.name for s in known if not (s.name == DEFAULT_SOURCE and unrooted(s))}
    if DEFAULT_SOURCE not in taken:
        return DocumentSource(DEFAULT_SOURCE, resolved, restricted, False)
    base = re.sub(r"[^A-Za-z0-9_.-]", "-", resolved.name).strip(".-") or "documents"
    name, n = base[:60], 2
    while name in taken:
        name, n = f"{base[:56]}-{n}", n + 1
    return DocumentSource(name, resolved, restricted, False)


def unrooted(source: DocumentSource) -> bool:
    """The `default` source recorded by adoption, before any folder claimed it."""
    return str(source.root) in ("", ".")
