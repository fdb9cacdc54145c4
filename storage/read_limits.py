"""How much one file may cost to read: bytes once unpacked, pages, seconds.

A `.docx`, `.pptx` or `.xlsx` is a zip of XML. A few hundred kilobytes on disk can expand to
gigabytes, and the Office libraries build the whole XML tree in memory (a 200 MB document.xml
took 1.35 GB and more than two minutes). So before a library sees a file, the sizes its zip
declares for its members are checked (the zip reader never returns more than a member
declares: a member that lies fails its checksum), and while it is read, a deadline is checked
between pages, slides, blocks or rows. A file over a limit is reported and skipped; the ingest
goes on with the next file.
"""

from __future__ import annotations

import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from core.contracts.errors import IngestError

MB = 1024 * 1024


@dataclass(frozen=True)
class ReadLimits:
    """Limits for one file. `max_xml_bytes`: the XML parts of a zip once unpacked (what the
    libraries parse into memory); `max_expanded_bytes`: everything unpacked (or a plain file's
    size); `max_pages`: PDF pages; `max_seconds`: wall time to read the file."""

    max_xml_bytes: int = 64 * MB
    max_expanded_bytes: int = 512 * MB
    max_pages: int = 5_000
    max_seconds: float = 120.0


DOCUMENT_LIMITS = ReadLimits()
# Fact workbooks are read row by row (openpyxl read-only mode), so their sheets may be larger.
WORKBOOK_LIMITS = ReadLimits(max_xml_bytes=512 * MB, max_expanded_bytes=1024 * MB, max_seconds=600)


def check_zip(path: Path, limits: ReadLimits) -> None:
    """IngestError when the zip at `path` would unpack to more than the limits allow.

    A file that is not a zip at all, or one zipfile cannot open (NotImplementedError: a
    version or method it does not support), is left to the reader, which names that problem
    better."""
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError):
        return
    xml = sum(m.file_size for m in members if m.filename.endswith((".xml", ".rels")))
    total = sum(m.file_size for m in members)
    if xml > limits.max_xml_bytes:
        raise IngestError(
            f"{path.name}: its XML unpacks to {_mb(xml)} (limit {_mb(limits.max_xml_bytes)}); "
            "skipped"
        )
    if total > limits.max_expanded_bytes:
        raise IngestError(
            f"{path.name}: unpacks to {_mb(total)} (limit {_mb(limits.max_expanded_bytes)}); "
            "skipped"
        )


def check_file_size(path: Path, limits: ReadLimits) -> None:
    """IngestError when a plain (text) file is larger than the limit."""
    try:
        size = path.stat().st_size
    except OSError:
        return  # the reader reports a file it cannot open
    if size > limits.max_expanded_bytes:
        raise IngestError(
            f"{path.name}: {_mb(size)} is more than the {_mb(limits.max_expanded_bytes)} "
            "limit for one file; skipped"
        )


class Deadline:
    """Checked between the pieces of a file (pages, slides, blocks, rows)."""

    def __init__(
        self, path: Path, limits: ReadLimits, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.path = path
        self.limits = limits
        self.clock = clock
        self.ends = clock() + limits.max_seconds

    def check(self) -> None:
        if self.clock() > self.ends:
            raise IngestError(
                f"{self.path.name}: reading took more than {self.limits.max_seconds:g} s "
                "(the limit for one file); skipped"
            )


def _mb(size: int) -> str:
    return f"{size / MB:,.1f} MB"
