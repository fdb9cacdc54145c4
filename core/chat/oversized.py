"""An answer that would not fit in a few chat messages: a table goes as a CSV file, the rest is
cut with a line saying so, and no chat ever gets more than the configured messages for one
answer (issue 26: one question posted 234 Telegram messages into a chat in 15 s).

Platform-neutral: an adapter says how many messages a presentation takes on its platform and
when a table is too big for one message; it then sends what `fit` returns, and the files.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from core.catalog.lookup import say
from core.catalog.presentation import Presentation
from core.contracts.types import Line, Segment, Table

SUMMARY_ROWS = 5  # rows of a table shown in the message when the whole table is attached


@dataclass(frozen=True)
class Attachment:
    """A file sent with an answer (a table as CSV)."""

    filename: str
    data: bytes
    title: str = ""
    mime: str = "text/csv"


def table_csv(table: Table, sources: Sequence[str] = ()) -> bytes:
    """The whole table as CSV (UTF-8 with a BOM, so a spreadsheet reads 营收 and €): the
    columns, every row, its notes, then the sources its [n] refer to; the values exactly as
    the answer shows them."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(table.columns)
    writer.writerows(table.rows)
    for line in (*table.notes, *sources):
        writer.writerow([line])
    return ("\ufeff" + out.getvalue()).encode("utf-8")


def csv_name(table: Table) -> str:
    """A file name from the table's title: letters, digits and dashes, then `.csv`."""
    stem = re.sub(r"[^\w]+", "-", table.title, flags=re.UNICODE).strip("-")[:60]
    return f"{stem or 'table'}.csv"


def fit(shown: Presentation, *, language: str, limit: int,
        count: Callable[[Presentation], int], too_big: Callable[[Table], bool]
        ) -> tuple[Presentation, list[Attachment]]:
    """`shown` within `limit` messages (as `count` counts them on the platform): a table
    `too_big` for one message is shown as its first rows and attached whole as CSV; what
    still does not fit is cut from the end, with a line saying so."""
    files: list[Attachment] = []
    segments: list[Segment] = []
    for seg in shown.segments:
        if isinstance(seg, Table) and too_big(seg):
            name = csv_name(seg)
            files.append(Attachment(name, table_csv(seg, shown.sources), seg.title))
            note = say("table_attached", language, rows=len(seg.rows), file=name)
            seg = replace(seg, rows=seg.rows[:SUMMARY_ROWS], notes=(*seg.notes, note))
        segments.append(seg)
    shown = replace(shown, segments=tuple(segments))
    budget = max(1, limit)
    if count(shown) <= budget:
        return shown, files
    listed = list(shown.sources)
    sources = list(listed)
    while sources and count(shown) > budget:  # sources past the room: counted, not listed
        sources.pop()
        shown = replace(shown, sources=[*sources, f"(+{len(listed) - len(sources)})"])
    if count(shown) <= budget:
        return shown, files
    notice = Line("notice", say("bound_messages", language, limit=budget))
    while segments:
        segments.pop()
        trial = replace(shown, segments=(*segments, notice))
        if count(trial) <= budget:
            return trial, files
    bare = replace(shown, segments=(notice,), body=notice.text, sources=[])
    return bare, files
