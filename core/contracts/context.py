"""What one request is about, decided once when it is prepared and read by every later step.

The reply language, the chat's clearance, the reference date and the fiscal calendar are facts
of the request, not of any one step: they were once worked out again, or passed along one by
one, by each function that needed them. The pipeline makes this object once (after the gates)
and hands it down; a function takes it, or the one field it needs.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass


@dataclass(frozen=True)
class RequestContext:
    """`text`: the question as cleaned and read (a word read as a name is the name);
    `cleared`: the chat may see restricted data (the one name for clearance);
    `reference`: the day relative periods are read against ("last year");
    `fiscal_year_end`: "MM-DD", the calendar periods are labelled and bounded on;
    `glossary_version`: which glossary read it (a reload makes another answerer)."""

    chat: str
    user: str
    text: str
    language: str
    cleared: bool
    reference: dt.date
    fiscal_year_end: str = "12-31"
    glossary_version: int = 0
