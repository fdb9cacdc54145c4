"""How a source reads to a person: "Orbis FY2024 Annual Report, p. 11" instead of
`Orbis_FY2024_Annual_Report.pdf (page=11,table=2,row=1)`.

The title comes from the glossary's `[titles]` when it names the document, else from the
document itself (its first heading, .docx/.pptx core properties, PDF metadata: read at ingest by
storage.document_readers.read_title), else from the file
name (extension, folder and a trailing language tag dropped, underscores read as spaces). The
locator's parts are spelled in the reader's language. The raw doc and locator stay in JSON: this
is only what a chat shows, and every part still goes through `display_name`, so a hostile file
name cannot add a line or drive a terminal.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache

from core.contracts.types import Source
from core.documents.snippet_text import display_name

_EXTENSION = re.compile(r"\.(pdf|md|markdown|txt|docx|pptx|xlsx|csv|html?)$", re.IGNORECASE)
_LANGUAGE_TAG = re.compile(r"[ _-](en|it|zh)$", re.IGNORECASE)



def document_title(
    doc: str, titles: Mapping[str, str] | None = None, own: str = ""
) -> str:
    """The glossary's title for `doc` (by its full key or its file name), else its `own`
    title (the document's), else one made from the file name: `orbis/italia_crescita_2025.md`
    -> "Italia crescita 2025"."""
    name = doc.rsplit("/", 1)[-1]
    if titles:
        named = titles.get(doc) or titles.get(name)
        if named:
            return display_name(named)
    if own.strip():
        return display_name(" ".join(own.split()))
    stem = _EXTENSION.sub("", name)
    stem = _LANGUAGE_TAG.sub("", stem)
    words = [w for w in re.split(r"[_ ]+", stem) if w]  # a newline stays, shown escaped
    if not words:
        return display_name(name)
    if words[0].islower():
        words[0] = words[0][:1].upper() + words[0][1:]
    return display_name(" ".join(words))


@lru_cache(maxsize=1024)
def locator_text(locator: str, language: str) -> str:
    """`page=11,table=2,row=1` -> "p. 11, table 2, row 1" (or "第11页，表2，第1行"); every form
    of locator docs/formats.md allows (core.documents.locator_words). Kept per locator: every
    figure's source line spells one, and a fact table's locators repeat."""
    if not locator:
        return ""
    from core.documents.locator_words import locator_words

    joiner = "，" if language == "zh" else ", "
    return display_name(joiner.join(p for p in locator_words(locator, language) if p))


def source_title(source: Source, language: str, titles: Mapping[str, str] | None = None) -> str:
    """"Orbis FY2024 Annual Report, p. 11, table 2, row 1": what a reader looks up."""
    title = document_title(source.doc, titles, source.title)
    place = locator_text(source.locator, language)
    if not place:
        return title
    return f"{title}，{place}" if language == "zh" else f"{title}, {place}"
