"""What every platform shows for an answer, before any markup: body, sources, footer, options.

Adapters only choose markup (Telegram HTML, Slack mrkdwn); which parts exist, how sources are
numbered, what the footer says and how long a message may be are decided here, once.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from core.messages import LANGUAGES, say
from core.snippet_text import display_name
from core.types import Answer, Source

_LABELS = sorted({say("sources", lang) for lang in LANGUAGES})
_LISTING_HEAD = re.compile(
    r"(?:^|\n)\s*(?:" + "|".join(map(re.escape, _LABELS)) + r")\s*[:：]\s*\n"
)
_LISTING_LINE = re.compile(r"^\[\d+\]\s+\S")


@dataclass(frozen=True)
class Presentation:
    """The parts of one answer, as plain text; markup is the adapter's business."""

    body: str
    sources_label: str
    sources: list[str] = field(default_factory=list)  # "[1] doc (locator)"
    footer: str | None = None  # "L0a · 3.1 ms"
    options: list[str] = field(default_factory=list)  # button labels, in option order


def present(answer: Answer, *, show_footer: bool = True) -> Presentation:
    """Split an answer into the parts a chat message shows.

    A narrative answer already ends with its numbered listing ("Sources:\\n[1] ..."): that
    listing becomes the sources block as is, so the [n] markers in the body keep pointing at
    the right line. Sources not named anywhere (neither listed nor cited inline) are appended.
    """
    body, listed = _take_listing(answer.text)
    named = body + "\n" + "\n".join(listed)
    extra = [s for s in answer.sources if display_name(s.doc) not in named]
    start = len(listed) + 1
    sources = listed + [source_line(n, s) for n, s in enumerate(extra, start=start)]
    footer = footer_text(answer) if show_footer else None
    return Presentation(
        body=body.strip(),
        sources_label=say("sources", answer.language),
        sources=sources,
        footer=footer,
        options=[o.label for o in answer.options],
    )


def source_line(number: int, source: Source) -> str:
    """"[n] doc (locator)", each name on one visible line whatever its characters."""
    doc, locator = display_name(source.doc), display_name(source.locator)
    return f"[{number}] {doc} ({locator})" if locator else f"[{number}] {doc}"


def footer_text(answer: Answer) -> str:
    """The serving level and how long it took: "L0a · 3.1 ms"."""
    return f"{answer.served_by} · {answer.latency_ms:.1f} ms"


def _take_listing(text: str) -> tuple[str, list[str]]:
    """(text without its trailing sources listing, the listing's lines)."""
    heads = list(_LISTING_HEAD.finditer(text))
    if not heads:
        return text, []
    head = heads[-1]
    lines = [line.strip() for line in text[head.end():].splitlines() if line.strip()]
    if not lines or not all(_LISTING_LINE.match(line) for line in lines):
        return text, []
    return text[: head.start()], lines


def split_text(text: str, limit: int, *, size: Callable[[str], int] = len) -> list[str]:
    """Pieces of at most `limit` (as measured by `size`), cut on paragraph boundaries first,
    then lines, then words, then anywhere: a long answer stays readable across messages."""
    if limit < 1:
        raise ValueError("limit must be at least 1")
    if size(text) <= limit:
        return [text] if text.strip() else []
    pieces: list[str] = []
    for sep in ("\n\n", "\n", " "):
        parts = text.split(sep)
        if len(parts) > 1:
            return pack_greedy(parts, sep, limit, size=size)
    # no separator left: hard cut, never inside a surrogate-free character
    current = ""
    for char in text:
        if current and size(current + char) > limit:
            pieces.append(current)
            current = ""
        current += char
    if current:
        pieces.append(current)
    return pieces


def pack_greedy(
    parts: list[str], sep: str, limit: int, *, size: Callable[[str], int] = len
) -> list[str]:
    """Join parts with `sep` into as few pieces of at most `limit` as order allows; a part
    too long alone is split (`split_text`)."""
    out: list[str] = []
    current = ""
    for part in parts:
        candidate = f"{current}{sep}{part}" if current else part
        if size(candidate) <= limit:
            current = candidate
            continue
        if current.strip():
            out.append(current)
        if size(part) <= limit:
            current = part
        else:
            out.extend(split_text(part, limit, size=size))
            current = ""
    if current.strip():
        out.append(current)
    return out
