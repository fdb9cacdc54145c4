"""An answer's parts (core.catalog.presentation) -> Telegram HTML messages of at most 4,096
characters.

Every part is escaped and wrapped on its own (body paragraphs plain, sources in a blockquote,
footer in italics), and a part too long for one message is split before it is wrapped, so a
tag never spans two messages and an entity (`&amp;`) is never cut in half.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from core.catalog.presentation import (
    Presentation,
    pack_greedy,
    passage_text,
    split_text,
    table_grid,
)
from core.contracts.types import Passage, Table

MESSAGE_LIMIT = 4096
CAPTION_LIMIT = 1024  # a photo's caption, in UTF-16 units like a message
_GAP = "\n\n"


def utf16_len(text: str) -> int:
    """Telegram measures text in UTF-16 code units: an emoji outside the BMP counts twice."""
    return len(text.encode("utf-16-le")) // 2


def escape(text: str) -> str:
    return html.escape(text, quote=False)


@dataclass(frozen=True)
class Part:
    """Plain text that renders as `open + escape(text) + close`."""

    text: str
    open: str = ""
    close: str = ""

    def html(self) -> str:
        return f"{self.open}{escape(self.text)}{self.close}"


def answer_parts(p: Presentation) -> list[Part]:
    """Sentences plain, notices in italics, "Why:" in bold, each passage with its section
    heading in italics above the quote; then the sources and the footer."""
    parts: list[Part] = []
    for kind, item in p.blocks():
        if isinstance(item, Passage):
            if item.heading:
                parts.append(Part(item.heading, "<i>", "</i>"))
            parts.append(Part(passage_text(item)))
        elif isinstance(item, Table):
            parts.append(Part(item.title, "<b>", "</b>"))
            parts.append(Part(table_grid(item), "<pre>", "</pre>"))
            parts += [Part(note, "<i>", "</i>") for note in item.notes]
        elif kind == "heading":
            parts.append(Part(item, "<b>", "</b>"))
        elif kind == "emphasis":
            parts.append(Part(item, "<i>", "</i>"))
        elif item:
            parts.append(Part(item))
    if p.sources:
        label = f"<b>{escape(p.sources_label)}</b>\n"
        parts.append(Part("\n".join(p.sources), f"<blockquote>{label}", "</blockquote>"))
    if p.footer:
        parts.append(Part(p.footer, "<i>", "</i>"))
    return parts


def answer_messages(p: Presentation, *, limit: int = MESSAGE_LIMIT) -> list[str]:
    """The HTML messages that show one answer, in order; never empty."""
    return pack(answer_parts(p), limit=limit) or [escape("…")]


def pack(parts: list[Part], *, limit: int = MESSAGE_LIMIT) -> list[str]:
    """Fill messages greedily with whole parts (split first when a part alone is too long)."""
    pieces: list[str] = []
    for part in parts:
        room = limit - utf16_len(part.open) - utf16_len(part.close)
        if room < 1:
            raise ValueError("message limit smaller than a part's markup")
        chunks = split_text(part.text, room, size=lambda s: utf16_len(escape(s)))
        pieces.extend(f"{part.open}{escape(c)}{part.close}" for c in chunks)
    return pack_greedy(pieces, _GAP, limit, size=utf16_len)


def table_caption(table: Table) -> str:
    """The table as a photo's caption: title in bold, the grid in monospace, notes in italics.
    May be longer than CAPTION_LIMIT: the caller then sends `title_caption` instead."""
    parts = [Part(table.title, "<b>", "</b>"), Part(table_grid(table), "<pre>", "</pre>"),
             *(Part(note, "<i>", "</i>") for note in table.notes)]
    return "\n".join(p.html() for p in parts if p.text)


def title_caption(table: Table, *, limit: int = CAPTION_LIMIT) -> str:
    """Just the title, in bold, cut to fit a caption."""
    room = limit - utf16_len("<b></b>")
    title = split_text(table.title, room, size=lambda s: utf16_len(escape(s)))
    return f"<b>{escape(title[0])}</b>" if title else ""
