"""Files that cost far more to read than their size on disk: Office zips whose XML unpacks to
100 MB (a few hundred KB on disk), a PDF with too many pages, a reader past its time. Each is
reported and skipped within seconds, and the files after it are still ingested."""

from __future__ import annotations

import time
import zipfile
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine

from bot.models.embedders import HashingEmbedder
from core.contracts.errors import IngestError
from core.documents.document_ingest import ingest_documents
from storage.chunk_store import SqlChunkStore
from storage.document_readers import read_document
from storage.fact_files import COLUMNS, read_fact_file
from storage.read_limits import MB, ReadLimits
from tests.document_fixtures import write_docx, write_pdf, write_pptx
from tests.retrieval_fakes import InMemoryVectorIndex

KNOWN = {"known_metrics": {"REVENUE"}, "known_entities": {"ACME_CN"}, "known_channels": None}
PADDING = 100  # MB of whitespace inside the XML: past the 64 MB default, ~100 KB on disk


def _inflate(path: Path, member: str, megabytes: int) -> Path:
    """Rewrite the zip at `path` with `megabytes` of whitespace after `member`'s XML prolog:
    still valid XML, streamed in 1 MB pieces so the test never holds it in memory."""
    source = zipfile.ZipFile(path)
    items = [(info, source.read(info)) for info in source.infolist()]
    source.close()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for info, data in items:
            if info.filename != member:
                out.writestr(info.filename, data)
                continue
            head, sep, rest = data.partition(b"?>")
            with out.open(member, "w", force_zip64=True) as fh:
                fh.write(head + sep)
                block = b" " * MB
                for _ in range(megabytes):
                    fh.write(block)
                fh.write(rest)
    return path


def _docx_bomb(directory: Path, megabytes: int = PADDING) -> Path:
    path = write_docx(directory / "bomb.docx", [("h1", "China"), ("p", "Revenue fell.")])
    return _inflate(path, "word/document.xml", megabytes)


def _read_quickly(path: Path, **kwargs: object) -> IngestError:
    started = time.perf_counter()
    with pytest.raises(IngestError) as caught:
        read_document(path, **kwargs)  # type: ignore[arg-type]
    assert time.perf_counter() - started < 2
    assert path.name in str(caught.value) and "skipped" in str(caught.value)
    return caught.value


def test_a_docx_that_unpacks_to_100_mb_is_refused_before_parsing(tmp_path: Path) -> None:
    bomb = _docx_bomb(tmp_path)
    assert bomb.stat().st_size < 1 * MB
    assert "XML unpacks to 100." in str(_read_quickly(bomb))


def test_a_pptx_bomb_is_refused(tmp_path: Path) -> None:
    path = write_pptx(tmp_path / "deck.pptx", [("China", "Revenue fell")])
    bomb = _inflate(path, "ppt/slides/slide1.xml", 3)
    assert "unpacks to" in str(_read_quickly(bomb, limits=ReadLimits(max_xml_bytes=2 * MB)))


def test_an_xlsx_bomb_is_refused_as_a_whole(tmp_path: Path) -> None:
    from openpyxl import Workbook

    book = Workbook()
    book.active.append(list(COLUMNS))
    book.active.append(["REVENUE", "ACME_CN", "FY", "2025", "TOTAL", 1, "USD_M", "r.pdf", ""])
    book.save(tmp_path / "facts.xlsx")
    bomb = _inflate(tmp_path / "facts.xlsx", "xl/worksheets/sheet1.xml", 3)
    started = time.perf_counter()
    with pytest.raises(IngestError, match=r"facts\.xlsx: its XML unpacks to"):
        read_fact_file(bomb, **KNOWN, limits=ReadLimits(max_xml_bytes=2 * MB))
    assert time.perf_counter() - started < 2


def test_a_pdf_with_too_many_pages_is_refused(tmp_path: Path) -> None:
    pdf = write_pdf(tmp_path / "long.pdf", [[f"page {n}"] for n in range(12)])
    assert "12 pages" in str(_read_quickly(pdf, limits=ReadLimits(max_pages=10)))
    assert len(read_document(pdf, limits=ReadLimits(max_pages=12))) == 12


@pytest.mark.parametrize("suffix", [".pdf", ".docx", ".pptx"])
def test_every_reader_stops_at_its_deadline(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"slow{suffix}"
    if suffix == ".pdf":
        write_pdf(path, [["one"], ["two"]])
    elif suffix == ".docx":
        write_docx(path, [("p", "one"), ("p", "two")])
    else:
        write_pptx(path, [("one", "two")])
    error = _read_quickly(path, limits=ReadLimits(max_seconds=-1))  # already past
    assert "took more than" in str(error)


def test_a_huge_text_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "huge.txt"
    path.write_bytes(b"revenue fell\n\n" * 200_000)  # 2.8 MB
    error = _read_quickly(path, limits=ReadLimits(max_expanded_bytes=MB))
    assert "limit for one file" in str(error)


def test_the_ingest_reports_the_bomb_and_goes_on(tmp_path: Path, engine: Engine) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "a_first.md").write_text("# China\n\nRevenue fell in China.\n", encoding="utf-8")
    _docx_bomb(root)
    (root / "z_last.md").write_text("# Italy\n\nItaly grew.\n", encoding="utf-8")
    started = time.perf_counter()
    report = ingest_documents(
        root,
        chunk_store=SqlChunkStore(engine),
        vector_index=InMemoryVectorIndex(),
        embedder=HashingEmbedder(),
        reader=read_document,
    )
    assert time.perf_counter() - started < 10
    assert report.added == ["a_first.md", "z_last.md"]
    [(name, reason)] = report.failed
    assert name == "bomb.docx" and "MB (limit 64.0 MB); skipped" in reason
