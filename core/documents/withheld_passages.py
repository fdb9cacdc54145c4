"""Public passages not quoted to a chat not cleared for restricted data, because they state a
figure the disclosure policy withholds from it (the group's revenue in a shareholder letter,
beside the public units' figures, gives the restricted unit away).

Built from the glossary and the fact table (core.knowledge.withheld), and asked of each
retrieved passage before an answer is composed; a document the glossary accepts
(`[disclosure] accept`) is quoted as any public one.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from core.contracts.ports import Chunk
from core.contracts.types import Fact
from core.documents.stated_figures import StatedFigure, stated_figures
from core.knowledge.document_sources import source_rel
from core.knowledge.withheld import withheld_figures

if TYPE_CHECKING:
    from core.knowledge.glossary import Glossary


class WithheldPassages:
    """Which public passages state a withheld figure (and are not accepted)."""

    def __init__(self, glossary: Glossary, facts: Iterable[Fact] = (), *,
                 withheld: list[Fact] | None = None) -> None:
        """From the facts, or from the withheld figures already worked out (`withheld`, as a
        report over a large table does slice by slice: bot.wiring.disclosure_report)."""
        self.glossary = glossary
        self.figures = withheld if withheld is not None else withheld_figures(glossary, facts)

    def __bool__(self) -> bool:
        return bool(self.figures)

    def stated(self, text: str) -> list[StatedFigure]:
        """The withheld figures `text` states."""
        return stated_figures(text, self.figures, self.glossary.unit_kinds) if self else []

    def hides(self, chunk: Chunk) -> bool:
        """Whether an uncleared chat must not be quoted this passage."""
        if chunk.restricted or not self or accepted_key(self.glossary, chunk.doc):
            return False
        return bool(self.stated(chunk.text))


def accepted_key(glossary: Glossary, key: str) -> bool:
    """Whether the document keyed `key` (source/rel) is accepted, by key or by its file."""
    accepted = glossary.accepted
    if not accepted.entries:
        return False
    if accepted.accepts(key=key):
        return True
    for source in glossary.documents:
        if key.startswith(f"{source.name}/"):
            return accepted.accepts(path=Path(source.root) / source_rel(source, key))
    return False
