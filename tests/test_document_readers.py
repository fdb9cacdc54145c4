"""Readers for every document type, from files generated here, and their failure reports."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.contracts.errors import IngestError
from core.documents.chunking import Section
from storage.document_readers import read_document
from tests.document_fixtures import write_docx, write_encrypted_pdf, write_pdf, write_pptx


def test_pdf_gives_one_section_per_page_with_text(tmp_path: Path) -> None:
    path = write_pdf(
        tmp_path / "review.pdf",
        [
            ["China revenue fell 8%.", "Footfall was weaker."],
            [],  # a blank page is skipped
            ["Italy grew (again)."],
        ],
    )
    sections = read_document(path)
    assert [s.locator for s in sections] == ["page=1", "page=3"]
    assert "China revenue fell 8%." in sections[0].text
    assert "Footfall was weaker." in sections[0].text
    assert "Italy grew (again)." in sections[1].text


def test_pdf_encrypted_with_a_password_is_reported(tmp_path: Path) -> None:
    plain = write_pdf(tmp_path / "plain.pdf", [["Board minutes."]])
    locked = write_encrypted_pdf(tmp_path / "locked.pdf", plain, user_password="s3cret")
    with pytest.raises(IngestError, match=r"locked\.pdf.*encrypted"):
        read_document(locked)


def test_pdf_with_only_an_owner_password_is_read(tmp_path: Path) -> None:
    plain = write_pdf(tmp_path / "plain.pdf", [["Board minutes."]])
    restricted_print = write_encrypted_pdf(tmp_path / "noprint.pdf", plain, user_password="")
    assert "Board minutes." in read_document(restricted_print)[0].text


def test_markdown_headings_become_sections_and_preamble_paragraphs(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text(
        "Intro line one.\n\nIntro line two.\n\n# China\n\nRevenue fell.\n\nMore detail.\n\n"
        "```\n# not a heading inside code\n```\n\n## Italy ##\n\nGrew 3%.\n\n# Empty\n",
        encoding="utf-8",
    )
    sections = read_document(path)
    assert [s.locator for s in sections] == ["para=1", "para=2", "section=China", "section=Italy"]
    assert sections[0].text == "Intro line one."
    assert "Revenue fell." in sections[2].text and "not a heading" in sections[2].text
    assert sections[3].text.startswith("Italy")  # the heading text is searchable too


def test_text_file_paragraphs_and_legacy_encoding(tmp_path: Path) -> None:
    path = tmp_path / "memo.txt"
    path.write_bytes("Perché il fatturato è calato.\r\n\r\nSecondo paragrafo.".encode("cp1252"))
    assert read_document(path) == [
        Section("para=1", "Perché il fatturato è calato."),
        Section("para=2", "Secondo paragrafo."),
    ]


def test_docx_headings_paragraphs_and_tables(tmp_path: Path) -> None:
    path = write_docx(
        tmp_path / "report.docx",
        [
            ("p", "Prepared by finance."),
            ("h1", "China"),
            ("p", "Revenue fell because of weaker footfall."),
            ("table", "Region,Revenue;China,120;Italy,80"),
            ("h1", "Italy"),
            ("p", "Italy grew."),
        ],
    )
    sections = read_document(path)
    assert [s.locator for s in sections] == ["para=1", "section=China", "section=Italy"]
    assert "weaker footfall" in sections[1].text
    assert "China | 120" in sections[1].text and "Italy | 80" in sections[1].text


def test_pptx_gives_one_section_per_slide(tmp_path: Path) -> None:
    path = write_pptx(
        tmp_path / "deck.pptx",
        [
            ("FY2025 review", "Revenue 1,320 EUR m"),
            ("China", "Footfall down 12% in tier-one cities"),
        ],
    )
    sections = read_document(path)
    assert [s.locator for s in sections] == ["slide=1", "slide=2"]
    assert "Footfall down 12%" in sections[1].text and "China" in sections[1].text


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("fake.pdf", b"this is a text file renamed to .pdf\n", "not a PDF"),
        ("truncated.pdf", b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog", "cannot read .pdf"),
        ("broken.docx", b"PK\x03\x04 not really a zip", "cannot read .docx"),
        ("broken.pptx", b"\x00\x01\x02garbage", "not a .pptx"),
        ("locked.docx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 64, "password-protected"),
        ("binary.txt", b"\x00\x00\x00\x01binary", "binary content"),
    ],
)
def test_broken_files_raise_ingest_error_naming_file_and_reason(
    tmp_path: Path, name: str, content: bytes, reason: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(IngestError) as info:
        read_document(path)
    assert name in str(info.value) and reason in str(info.value)


def test_unsupported_suffix_is_an_ingest_error(tmp_path: Path) -> None:
    path = tmp_path / "sheet.xls"
    path.write_bytes(b"whatever")
    with pytest.raises(IngestError, match="unsupported"):
        read_document(path)
