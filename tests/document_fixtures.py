"""Writers for small real documents of every supported type, generated inside the tests.

The PDF writer is hand-made (one Helvetica text stream per page) so the fixtures need nothing
beyond the readers' own libraries and stay a few hundred bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


def write_pdf(path: Path, pages: Sequence[Sequence[str]]) -> Path:
    """A valid PDF with one page per entry, each line of text drawn on its own line."""
    objects: list[bytes] = []
    n_pages = len(pages)
    page_ids = [3 + 2 * i for i in range(n_pages)]
    font_id = 3 + 2 * n_pages
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    kids = " ".join(f"{pid} 0 R" for pid in page_ids)
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {n_pages} >>".encode())
    for i, lines in enumerate(pages):
        ops = ["BT", "/F1 12 Tf", "14 TL", "72 720 Td"]
        for line in lines:
            escaped = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
            ops.append(f"({escaped}) Tj T*")
        ops.append("ET")
        stream = "\n".join(ops).encode("latin-1")
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {page_ids[i] + 1} 0 R "
            f"/Resources << /Font << /F1 {font_id} 0 R >> >> >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    objects.append(
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
    )
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\n" % (len(objects) + 1)
    out += b"startxref\n%d\n%%%%EOF\n" % xref
    path.write_bytes(bytes(out))
    return path


def write_encrypted_pdf(path: Path, source: Path, *, user_password: str) -> Path:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(str(source)))
    writer.encrypt(user_password=user_password, owner_password="owner-secret", algorithm="RC4-128")
    with path.open("wb") as fh:
        writer.write(fh)
    return path


def write_docx(path: Path, blocks: Sequence[tuple[str, str]]) -> Path:
    """Blocks of ("h1" | "p" | "table", text); a table's text is rows split by ';', cells by ','."""
    import docx

    document = docx.Document()
    for kind, text in blocks:
        if kind == "h1":
            document.add_heading(text, level=1)
        elif kind == "table":
            rows = [r.split(",") for r in text.split(";")]
            table = document.add_table(rows=len(rows), cols=len(rows[0]))
            for r, cells in enumerate(rows):
                for c, value in enumerate(cells):
                    table.cell(r, c).text = value
        else:
            document.add_paragraph(text)
    document.save(str(path))
    return path


def write_pptx(path: Path, slides: Sequence[tuple[str, str]]) -> Path:
    """One slide per (title, body)."""
    from pptx import Presentation

    presentation = Presentation()
    layout = presentation.slide_layouts[1]  # title and content
    for title, body in slides:
        slide = presentation.slides.add_slide(layout)
        slide.shapes.title.text = title
        slide.placeholders[1].text = body
    presentation.save(str(path))
    return path
