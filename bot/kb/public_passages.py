"""Public passages that state a figure the disclosure policy withholds: listed by `ricorda
check` (from the documents on disk) and `ricorda ingest` (from the stored passages), with how
to fix each (classify the document as restricted, or accept it in the glossary).

Finding them is core's (core.documents.withheld_passages); this module walks the documents and
words the lines an operator reads.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from core.contracts.errors import RicordaError
from core.contracts.ports import Chunk
from core.contracts.types import Fact
from core.documents.stated_figures import StatedFigure
from core.documents.withheld_passages import WithheldPassages, accepted_key
from core.knowledge.disclosure import cell_text
from core.knowledge.glossary import Glossary

MAX_LISTED = 20  # passages listed one by one; the rest are counted


@dataclass(frozen=True)
class StatingPassage:
    """A public passage (document and locator) stating withheld figures."""

    doc: str
    locator: str
    stated: tuple[StatedFigure, ...]

    def describe(self) -> str:
        figures = "; ".join(f"{cell_text(_cell(s.fact))} as \"{s.written}\""
                            for s in self.stated)
        where = f"{self.doc} ({self.locator})" if self.locator else self.doc
        return f"public passage {where} states a withheld figure: {figures}"


def _cell(f: Fact) -> tuple[str, str, object, str]:
    return (f.metric, f.entity, f.period, f.channel)


FIX = ("move the document under a restricted/ folder (or a restricted [[documents]] source), "
       "or accept it: [disclosure] accept = [\"<its path>\"] in the glossary")


def on_disk(glossary: Glossary, facts: Iterable[Fact], roots: list[Path], *,
            base: Path) -> Iterator[StatingPassage]:
    """The public, not accepted passages under `roots` that state a withheld figure; paths
    shown relative to `base` (the glossary's folder)."""
    from core.documents.document_ingest import walk_documents
    from storage.document_readers import read_document

    guard = WithheldPassages(glossary, facts)
    if not guard:
        return
    seen: set[Path] = set()
    for root in roots:
        if not root.is_dir():
            continue
        for path, why_skipped in walk_documents(root):
            if why_skipped or path.resolve() in seen:
                continue
            seen.add(path.resolve())
            restricted, key = _classified(glossary, path)
            if restricted or glossary.accepted.accepts(key=key, path=path):
                continue
            try:
                sections = read_document(path)
            except RicordaError:
                continue  # check_documents reports it
            for section in sections:
                stated = guard.stated(section.text)
                if stated:
                    yield StatingPassage(_shown(path, base), section.locator, tuple(stated))


def _classified(glossary: Glossary, path: Path) -> tuple[bool, str | None]:
    """The document's classification as ingest would give it (its declared source's), and its
    document key (None outside any declared source)."""
    from core.contracts.errors import IngestError
    from core.knowledge.document_sources import (
        locate,
        path_is_restricted,
        restricted_in,
        source_key,
    )

    if not glossary.documents:
        return path_is_restricted(path), None
    try:
        source = locate(path.parent, glossary.documents)
    except IngestError:
        return path_is_restricted(path), None
    rel = path.resolve().relative_to(source.root).as_posix()
    return restricted_in(source, rel), source_key(source, rel)


def _shown(path: Path, base: Path) -> str:
    try:
        return path.resolve().relative_to(base.resolve()).as_posix()
    except ValueError:
        return str(path)


def stored(glossary: Glossary, facts: Iterable[Fact], chunks: Callable[[], Iterable[Chunk]],
           *, withheld: list[Fact] | None = None) -> list[StatingPassage]:
    """The stored public passages stating a withheld figure (what `ingest` lists); the
    passages are read only when the policy withholds something. `withheld`: the withheld
    figures when already known (then `facts` is not read)."""
    guard = WithheldPassages(glossary, facts, withheld=withheld)
    if not guard:
        return []
    out = []
    for chunk in chunks():
        if chunk.restricted or accepted_key(glossary, chunk.doc):
            continue
        stated = guard.stated(chunk.text)
        if stated:
            out.append(StatingPassage(chunk.doc, chunk.locator, tuple(stated)))
    return out


def passage_lines(found: list[StatingPassage]) -> list[str]:
    """What `ingest` prints: each passage (the first MAX_LISTED), then how to fix them."""
    if not found:
        return []
    lines = [f"disclosure: {len(found)} public passage(s) state a figure withheld from "
             "uncleared chats; they are not quoted there"]
    lines += [f"  {p.describe()}" for p in found[:MAX_LISTED]]
    if len(found) > MAX_LISTED:
        lines.append(f"  ... and {len(found) - MAX_LISTED} more")
    lines.append(f"  to fix: {FIX}")
    return lines
