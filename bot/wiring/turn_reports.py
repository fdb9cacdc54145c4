"""The admin's report over the stored turns, for the CLI (`ricorda report`) and the `report`
admin command: storage's rows, the current glossary's names, core's report."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from core.chat.turn_report import Report
    from core.knowledge.glossary import Glossary


def read_report(engine: Engine, glossary: Glossary, since: dt.datetime | None, *,
                cleared: bool) -> Report:
    """The report over the turns kept since `since`, as a viewer of that clearance sees it;
    the words people used are read against `glossary` (what it lacks)."""
    from core.chat.turn_report import ReportTurn, build_report
    from core.knowledge.names import NameIndex
    from core.question.no_figure import missing_subject
    from storage.turn_report_reader import turns_since

    rows = [ReportTurn(*row) for row in turns_since(engine, since)]
    names = NameIndex(glossary)

    def subject(question: str, day: dt.date, language: str) -> str:
        return missing_subject(question, names, day, language)

    return build_report(rows, cleared=cleared, since=since, subject=subject)


def export_rows(engine: Engine, since: dt.datetime | None, *, cleared: bool
                ) -> list[dict[str, object]]:
    """`ricorda turns export`'s rows (core.chat.turn_report.EXPORT_COLUMNS)."""
    from core.chat.turn_report import ReportTurn, export_row
    from storage.turn_report_reader import turns_since

    return [export_row(ReportTurn(*row), cleared=cleared) for row in turns_since(engine, since)]
