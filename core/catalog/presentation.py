"""What every platform shows for an answer, before any markup: body, sources, footer, options.

Made from the answer's parts (`Answer.segments`, `Answer.citations`, `Answer.options`), never
from its text: adapters only choose markup (Telegram HTML, Slack mrkdwn, the console's plain
text); which parts exist, how sources are numbered and titled, what the footer says, how options
are grouped under their headers and how long a message may be are decided here, once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from core.catalog.lookup import say
from core.contracts.types import Answer, Citation, Line, Option, Passage, Segment, Table

MAX_OPTIONS = 24  # more buttons than this is a wall, not a choice
OPTION_LABEL_CHARS = 60  # a button label longer than this is cut (Telegram and Slack alike)
EMPHASISED = frozenset({"notice", "degraded"})  # shown in italics where markup allows


@dataclass(frozen=True)
class OptionGroup:
    """The options that narrow one slot, under a header in the reader's language."""

    slot: str
    header: str
    options: tuple[tuple[int, str], ...]  # (index in Answer.options, label as shown)


@dataclass(frozen=True)
class Presentation:
    """The parts of one answer, as plain text; markup is the adapter's business."""

    body: str
    sources_label: str
    sources: list[str] = field(default_factory=list)  # "[1] Orbis FY2024 Annual Report, p. 11"
    footer: str | None = None  # "L0a · 3.1 ms"
    options: list[str] = field(default_factory=list)  # button labels, in option order
    segments: tuple[Segment, ...] = ()  # the body's parts; empty: `body` is all there is
    groups: tuple[OptionGroup, ...] = ()

    def blocks(self) -> Iterator[tuple[str, Segment | str]]:
        """The body in reading order: ("lines", text) and ("emphasis", text) runs of sentences,
        ("heading", text) for "Why:", ("passage", Passage) and ("table", Table); a renderer
        styles each by its kind, never by reading the words."""
        if not self.segments:
            if self.body:
                yield "lines", self.body
            return
        run: list[Line] = []
        for segment in self.segments:
            if isinstance(segment, Line) and segment.kind not in ("attribution",):
                run.append(segment)
                continue
            if run:
                yield from _line_runs(run)
                run = []
            if isinstance(segment, Passage):
                yield "passage", segment
            elif isinstance(segment, Table):
                yield "table", segment
            else:
                yield "heading", segment.text
        if run:
            yield from _line_runs(run)


def _line_runs(run: list[Line]) -> Iterator[tuple[str, Segment | str]]:
    """Consecutive lines of one style as one block (a notice apart from the facts)."""
    current: list[Line] = []
    for line in run:
        if current and (line.kind in EMPHASISED) != (current[-1].kind in EMPHASISED):
            yield _run(current)
            current = []
        current.append(line)
    if current:
        yield _run(current)


def _run(lines: list[Line]) -> tuple[str, str]:
    kind = "emphasis" if lines[0].kind in EMPHASISED else "lines"
    return kind, "\n".join(line.text for line in lines)


def present(answer: Answer, *, show_footer: bool = False) -> Presentation:
    """The parts a chat message shows for `answer`."""
    segments = tuple(answer.segments)
    body = body_text(segments) if segments else answer.text
    return Presentation(
        body=body.strip(),
        sources_label=say("sources", answer.language),
        sources=[citation_line(c) for c in answer.citations],
        footer=footer_text(answer) if show_footer else None,
        options=[o.label for o in answer.options],
        segments=segments,
        groups=option_groups(answer.options, answer.language),
    )


def option_groups(options: Sequence[Option], language: str) -> tuple[OptionGroup, ...]:
    """Options grouped by the slot they narrow, in first-seen order, at most MAX_OPTIONS in
    all; each label cut to OPTION_LABEL_CHARS."""
    groups: dict[str, list[tuple[int, str]]] = {}
    for index, option in enumerate(options[:MAX_OPTIONS]):
        groups.setdefault(option.slot, []).append((index, option_label(option.label)))
    return tuple(
        OptionGroup(slot, say(f"slot_{slot}", language), tuple(items))
        for slot, items in groups.items()
    )


def option_label(label: str) -> str:
    return label if len(label) <= OPTION_LABEL_CHARS else label[: OPTION_LABEL_CHARS - 1] + "…"


def passage_text(passage: Passage) -> str:
    """“quote” [1] (a synthesis carries its own [n] markers)."""
    if not passage.quoted:
        return passage.text
    marks = "".join(f" [{n}]" for n in passage.cites)
    return f"“{passage.text}”{marks}"


def body_text(segments: Sequence[Segment]) -> str:
    """The body as plain text: sentences line by line, each passage a paragraph."""
    parts: list[str] = []
    lines: list[str] = []
    for segment in segments:
        if isinstance(segment, Line) and segment.kind != "attribution":
            lines.append(segment.text)
            continue
        if lines:
            parts.append("\n".join(lines))
            lines = []
        if isinstance(segment, Passage):
            quote = passage_text(segment)
            parts.append(f"{segment.heading}\n{quote}" if segment.heading else quote)
        elif isinstance(segment, Table):
            parts.append(table_text(segment))
        else:
            parts.append(segment.text)
    if lines:
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def plain_text(segments: Sequence[Segment], citations: Sequence[Citation], language: str) -> str:
    """The whole answer as plain text (JSON `text`, the turn record, logs): the body, then
    the numbered sources under their label."""
    body = body_text(segments)
    if not citations:
        return body
    lines = "\n".join(citation_line(c) for c in citations)
    listing = f"{sources_heading(language)}\n{lines}"
    return f"{body}\n\n{listing}" if body else listing


def table_grid(table: Table) -> str:
    """The table's columns aligned in monospace (numbers right-aligned), header first: what a
    chat shows in a code block, whatever the platform."""
    rows = [table.columns, *table.rows]
    widths = [max(_width(r[i]) if i < len(r) else 0 for r in rows)
              for i in range(len(table.columns))]
    lines = []
    for r in rows:
        cells = []
        for i, width in enumerate(widths):
            cell = r[i] if i < len(r) else ""
            pad = " " * (width - _width(cell))
            cells.append(cell + pad if i == 0 else pad + cell)
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def table_text(table: Table) -> str:
    """Title, grid and notes as plain text."""
    parts = [table.title, table_grid(table), *table.notes]
    return "\n".join(p for p in parts if p)


def _width(text: str) -> int:
    """Columns a monospace font gives `text`: CJK characters take two."""
    return sum(2 if "\u2e80" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef" else 1
               for ch in text)


def sources_heading(language: str) -> str:
    """"Sources:" above a plain-text listing ("来源：" with the full-width colon)."""
    return say("sources", language) + ("：" if language == "zh" else ":")


def citation_line(citation: Citation) -> str:
    """"[n] title", one visible line whatever the title's characters
    (core.documents.source_titles)."""
    return f"[{citation.number}] {citation.title}"


def footer_text(answer: Answer) -> str:
    """The serving level and how long it took: "L0a · 3.1 ms"."""
    return f"{answer.served_by} · {answer.latency_ms:.1f} ms"


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
