"""Cut a document's sections into chunks small enough to quote and to embed.

Paragraphs are packed up to about `target` characters; each new chunk repeats the last
~`overlap` characters of the previous one so a sentence cut at a boundary is still found whole
in one of them. A paragraph longer than `target` is split at sentence ends (also Chinese 。！？).
A chunk keeps the locator of the section it came from, so citations point at a heading, page or
slide; consecutive heading-less paragraphs (`para=N`) are packed together and cite the first
paragraph the chunk starts in.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from core.contracts.ports import Chunk

TARGET_CHARS = 500
OVERLAP_CHARS = 80

_PARAGRAPH_BREAK = re.compile(r"\n[ \t\r\f\v]*\n")
_SPACES = re.compile(r"\s+")
# A sentence ends after . ! ? plus a space, or right after Chinese/Japanese 。！？ (no space).
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|(?<=[。！？；])")
_CJK_CHARS = "\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
_CJK_END = re.compile(f"[{_CJK_CHARS}]$")
_CJK_START = re.compile(f"[{_CJK_CHARS}]")
TITLE_CHARS = 80
_TITLE_END = re.compile(r"[.!?…。！？:：;；,，\-–—]\W*$")
_LIST_ITEM = re.compile(r"^(?:[-*•·]|\d+[.)])\s")
_SENTENCE_START = re.compile(f'[A-ZÀ-Ý0-9"“‘«({_CJK_CHARS}]')


@dataclass(frozen=True)
class Section:
    """A piece of a document with its locator: `page=3`, `slide=2`, `section=China`, `para=4`."""

    locator: str
    text: str


def chunk_id(doc: str, locator: str, ordinal: int) -> str:
    """Stable id: the same document, locator and position always give the same id."""
    key = f"{doc}\x1f{locator}\x1f{ordinal}".encode("utf-8", "surrogatepass")
    digest = hashlib.sha256(key).hexdigest()
    return digest[:24]


def chunk_document(
    doc: str,
    sections: Sequence[Section],
    *,
    restricted: bool = False,
    target: int = TARGET_CHARS,
    overlap: int = OVERLAP_CHARS,
) -> list[Chunk]:
    """All chunks of one document, in reading order, with stable ids."""
    if overlap >= target:
        raise ValueError("overlap must be smaller than the chunk target")
    chunks: list[Chunk] = []
    ordinals: dict[str, int] = {}
    for locator, text in _pack_sections(sections, target, overlap):
        n = ordinals.get(locator, 0)
        ordinals[locator] = n + 1
        chunks.append(
            Chunk(
                id=chunk_id(doc, locator, n),
                doc=doc,
                locator=locator,
                text=text,
                restricted=restricted,
            )
        )
    return chunks


def _pack_sections(
    sections: Sequence[Section], target: int, overlap: int
) -> Iterator[tuple[str, str]]:
    """(locator, text) per chunk; runs of `para=` sections are packed as one stream."""
    i = 0
    while i < len(sections):
        if sections[i].locator.startswith("para="):
            j = i
            while j < len(sections) and sections[j].locator.startswith("para="):
                j += 1
            pieces = [(s.locator, p) for s in sections[i:j] for p in split_paragraphs(s.text)]
            i = j
        else:
            pieces = [(sections[i].locator, p) for p in split_paragraphs(sections[i].text)]
            i += 1
        yield from _pack(pieces, target, overlap)


def split_paragraphs(text: str) -> list[str]:
    """Paragraphs separated by blank lines, inner whitespace (PDF line wraps) collapsed.

    A title line written directly above its text ("Overview" then the paragraph, no blank line
    between, as plain text and PDFs do) keeps its line break, so a quote can tell it apart
    from the first sentence (core.documents.passage_pick)."""
    paras = (_collapse(p) for p in _PARAGRAPH_BREAK.split(text))
    return [p for p in paras if p]


def _collapse(paragraph: str) -> str:
    lines = [_SPACES.sub(" ", line).strip() for line in paragraph.strip().splitlines()]
    lines = [line for line in lines if line]
    if len(lines) >= 2 and _is_title(lines[0], lines[1]):
        return f"{lines[0]}\n{_SPACES.sub(' ', ' '.join(lines[1:]))}"
    return _SPACES.sub(" ", paragraph).strip()


def is_title_line(line: str) -> bool:
    """A short line without final punctuation that is not a list item reads as a title."""
    return (
        0 < len(line) <= TITLE_CHARS and not _TITLE_END.search(line) and not _LIST_ITEM.match(line)
    )


def _is_title(line: str, after: str) -> bool:
    """A title line above a longer line that starts a sentence, not the first line of a
    wrapped paragraph (those run to the full width)."""
    return (
        is_title_line(line) and len(line) < len(after) and _SENTENCE_START.match(after) is not None
    )


def _pack(pieces: list[tuple[str, str]], target: int, overlap: int) -> Iterator[tuple[str, str]]:
    """Greedy packing of (locator, paragraph) pieces into chunks of about `target` chars.

    A chunk may exceed `target` by the overlap carried from its predecessor, never more.
    """
    current = ""
    locator = ""
    carry = ""  # the tail of the last chunk, repeated at the start of the next one
    for piece_locator, para in pieces:
        for n, unit in enumerate(_fit(para, target)):
            new_para = n == 0
            if current and len(current) + 1 + len(unit) > target:
                yield locator, current
                carry = _tail(current, overlap)
                current = ""
            if not current:
                locator = piece_locator
                current = carry
            current = _join(current, unit, new_para) if current else unit
    if current:
        yield locator, current


def _join(left: str, right: str, new_para: bool) -> str:
    """Paragraphs on their own line; sentences with a space, except between CJK characters."""
    if new_para:
        return f"{left}\n{right}"
    if _CJK_END.search(left) or _CJK_START.match(right):
        return left + right
    return f"{left} {right}"


def _fit(paragraph: str, target: int) -> list[str]:
    """A paragraph as pieces no longer than target: sentences, hard-cut only if one is too long."""
    if len(paragraph) <= target:
        return [paragraph]
    pieces: list[str] = []
    for sentence in (s.strip() for s in _SENTENCE_END.split(paragraph)):
        while len(sentence) > target:
            cut = sentence.rfind(" ", 0, target + 1)
            cut = cut if cut > target // 2 else target
            pieces.append(sentence[:cut].strip())
            sentence = sentence[cut:].strip()
        if sentence:
            pieces.append(sentence)
    return pieces


def _tail(text: str, overlap: int) -> str:
    """About the last `overlap` characters, starting at a word boundary when there is one."""
    if overlap <= 0 or len(text) <= overlap:
        return text if overlap > 0 else ""
    tail = text[-overlap:]
    space = tail.find(" ")
    if 0 <= space < len(tail) - 1 and space < overlap // 2:
        tail = tail[space + 1 :]
    return tail.strip()
