"""Read knowledge-base documents (.md .txt .pdf .docx .pptx) into located sections.

Each reader returns `Section(locator, text)` in reading order: PDF pages (`page=N`), slides
(`slide=N`), headings in Markdown/Word (`section=<heading>`) and, where a text has no heading,
its paragraphs (`para=N`). Any failure of the underlying library (corrupt file, wrong format,
encryption) becomes an `IngestError` naming the file and the reason, so the ingest can report
it and go on with the next file. So does a file over the limits of `storage.read_limits`
(unpacked size, PDF pages, seconds per file).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path

from core.contracts.errors import IngestError
from core.documents.chunking import Section, split_paragraphs
from storage.read_limits import (
    DOCUMENT_LIMITS,
    Deadline,
    ReadLimits,
    check_file_size,
    check_zip,
)

_MD_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_MD_FENCE = re.compile(r"^ {0,3}(```|~~~)")


def read_document(path: Path, *, limits: ReadLimits = DOCUMENT_LIMITS) -> list[Section]:
    """Sections of one file; `IngestError` when it cannot be read or is over the limits."""
    reader = READERS.get(path.suffix.lower())
    if reader is None:
        raise IngestError(f"{path.name}: unsupported file type {path.suffix!r}")
    _check_signature(path)
    if path.suffix.lower() in (".docx", ".pptx"):
        check_zip(path, limits)
    elif path.suffix.lower() in (".md", ".txt"):
        check_file_size(path, limits)
    deadline = Deadline(path, limits)
    try:
        return reader(path, deadline)
    except IngestError:
        raise
    except Exception as exc:  # library errors of every kind: translate at the boundary
        reason = str(exc).strip() or exc.__class__.__name__
        raise IngestError(
            f"{path.name}: cannot read {path.suffix.lower()} file ({exc.__class__.__name__}: "
            f"{reason[:200]})"
        ) from exc


def read_text(path: Path, deadline: Deadline | None = None) -> list[Section]:
    """Plain text: every paragraph (blank-line separated) is `para=N`."""
    return _paragraph_sections(split_paragraphs(_decode(path)))


def read_markdown(path: Path, deadline: Deadline | None = None) -> list[Section]:
    """Markdown: text under a heading is `section=<heading>`; text before any heading `para=N`."""
    heading: str | None = None
    preamble: list[str] = []
    body: list[str] = []
    sections: list[Section] = []
    in_fence = False
    for line in _decode(path).splitlines():
        if _MD_FENCE.match(line):
            in_fence = not in_fence
        match = None if in_fence else _MD_HEADING.match(line)
        if match is None:
            (preamble if heading is None else body).append(line)
            continue
        if heading is not None:
            sections.extend(_heading_section(heading, body))
        heading, body = match.group(2), []
    if heading is not None:
        sections.extend(_heading_section(heading, body))
    return _paragraph_sections(split_paragraphs("\n".join(preamble))) + sections


def read_pdf(path: Path, deadline: Deadline | None = None) -> list[Section]:
    """PDF: one `page=N` per page with text; over `max_pages` pages or the deadline, skipped."""
    from pypdf import PdfReader

    reader = PdfReader(str(path))
    if reader.is_encrypted:
        try:  # many "encrypted" PDFs only restrict printing and open with an empty password
            opened = reader.decrypt("")
        except Exception as exc:
            raise IngestError(f"{path.name}: encrypted PDF ({exc.__class__.__name__})") from exc
        if not opened:
            raise IngestError(f"{path.name}: encrypted PDF, a password is needed")
    limit = deadline.limits.max_pages if deadline else None
    if limit is not None and len(reader.pages) > limit:
        raise IngestError(
            f"{path.name}: {len(reader.pages):,} pages (limit {limit:,} for one file); skipped"
        )
    sections = []
    for n, page in enumerate(reader.pages, start=1):
        if deadline:
            deadline.check()
        if text := (page.extract_text() or "").strip():
            sections.append(Section(f"page={n}", text))
    return sections


def read_docx(path: Path, deadline: Deadline | None = None) -> list[Section]:
    """Word: paragraphs and tables in order; Heading/Title styles start a `section=`."""
    import docx
    from docx.table import Table

    document = docx.Document(str(path))
    heading: str | None = None
    preamble: list[str] = []
    body: list[str] = []
    sections: list[Section] = []
    for block in document.iter_inner_content():
        if deadline:
            deadline.check()
        if isinstance(block, Table):
            text = _table_text([cell.text for cell in row.cells] for row in block.rows)
            (preamble if heading is None else body).extend([text, ""])
            continue
        style = (block.style.name if block.style is not None else "") or ""
        if style.startswith(("Heading", "Title")) and block.text.strip():
            if heading is not None:
                sections.extend(_heading_section(heading, body))
            heading, body = block.text.strip(), []
        else:
            (preamble if heading is None else body).append(block.text)
            # a blank line between Word paragraphs keeps them separate paragraphs downstream
            (preamble if heading is None else body).append("")
    if heading is not None:
        sections.extend(_heading_section(heading, body))
    return _paragraph_sections(split_paragraphs("\n".join(preamble))) + sections


def read_pptx(path: Path, deadline: Deadline | None = None) -> list[Section]:
    """PowerPoint: one `slide=N` per slide with its text frames and tables."""
    from pptx import Presentation

    sections = []
    for n, slide in enumerate(Presentation(str(path)).slides, start=1):
        if deadline:
            deadline.check()
        parts: list[str] = []
        for shape in _walk_shapes(slide.shapes):
            if getattr(shape, "has_text_frame", False) and shape.text_frame.text.strip():
                parts.append(shape.text_frame.text)
            if getattr(shape, "has_table", False):
                parts.append(
                    _table_text([cell.text for cell in row.cells] for row in shape.table.rows)
                )
        text = "\n\n".join(p.strip() for p in parts if p.strip())
        if text:
            sections.append(Section(f"slide={n}", text))
    return sections


MAX_TITLE = 200  # characters: a title is a line, not a paragraph


def read_title(path: Path) -> str | None:
    """The document's own title: its first Markdown heading, the core properties' title of a
    .docx/.pptx, the PDF's metadata title; None when it gives none (the file name is used) or
    cannot be read (the reader reports why)."""
    suffix = path.suffix.lower()
    try:
        if suffix == ".md":
            title = _markdown_title(_decode(path))
        elif suffix == ".docx":
            import docx

            title = docx.Document(str(path)).core_properties.title
        elif suffix == ".pptx":
            from pptx import Presentation

            title = Presentation(str(path)).core_properties.title
        elif suffix == ".pdf":
            from pypdf import PdfReader

            meta = PdfReader(str(path)).metadata
            title = meta.title if meta is not None else None
        else:
            return None
    except Exception:  # a file the reader cannot open is reported by read_document
        return None
    text = " ".join(str(title or "").split())
    return text[:MAX_TITLE] or None


def _markdown_title(text: str) -> str | None:
    in_fence = False
    for line in text.splitlines():
        if _MD_FENCE.match(line):
            in_fence = not in_fence
            continue
        match = None if in_fence else _MD_HEADING.match(line)
        if match and match.group(2).strip():
            return match.group(2)
    return None


READERS: dict[str, Callable[[Path, Deadline | None], list[Section]]] = {
    ".md": read_markdown,
    ".txt": read_text,
    ".pdf": read_pdf,
    ".docx": read_docx,
    ".pptx": read_pptx,
}


_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def _check_signature(path: Path) -> None:
    """Name the usual causes up front: a renamed file, or an Office file with a password."""
    suffix = path.suffix.lower()
    if suffix not in (".pdf", ".docx", ".pptx"):
        return
    try:
        with path.open("rb") as fh:
            head = fh.read(1024)
    except OSError as exc:
        raise IngestError(f"{path.name}: cannot open the file ({exc.strerror or exc})") from exc
    if suffix == ".pdf" and b"%PDF-" not in head:
        raise IngestError(f"{path.name}: not a PDF (the content does not match the extension)")
    if suffix in (".docx", ".pptx") and not head.startswith(b"PK\x03\x04"):
        if head.startswith(_OLE_MAGIC):
            raise IngestError(
                f"{path.name}: password-protected or old-format Office file; save it as an "
                f"unprotected {suffix}"
            )
        raise IngestError(f"{path.name}: not a {suffix} file (the content does not match)")


def _walk_shapes(shapes: Iterable) -> Iterable:  # type: ignore[type-arg]
    """Shapes in order, descending into groups."""
    for shape in shapes:
        if hasattr(shape, "shapes"):
            yield from _walk_shapes(shape.shapes)
        else:
            yield shape


def _decode(path: Path) -> str:
    data = path.read_bytes()
    if b"\x00" in data[:4096]:
        raise IngestError(f"{path.name}: binary content in a text file")
    for encoding in ("utf-8-sig", "cp1252"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1")


def _heading_section(heading: str, lines: list[str]) -> list[Section]:
    text = "\n".join(lines).strip()
    return [Section(f"section={heading}", f"{heading}\n\n{text}")] if text else []


def _paragraph_sections(paragraphs: list[str]) -> list[Section]:
    return [Section(f"para={n}", p) for n, p in enumerate(paragraphs, start=1)]


def _table_text(rows: Iterable[list[str]]) -> str:
    """A table as rows separated by '; ', cells by ' | ' (a merged cell only once).

    Rows stay distinguishable after the chunker collapses line breaks inside a paragraph.
    """
    lines = []
    for cells in rows:
        unique = [c.strip() for i, c in enumerate(cells) if i == 0 or c != cells[i - 1]]
        if any(unique):
            lines.append(" | ".join(unique))
    return "; ".join(lines)
