"""The assumed period: the last complete fiscal year, or the latest with a figure when that one
has none yet -- never looked for on behalf of a chat not cleared for the entity."""

from __future__ import annotations

import datetime as dt

from core.contracts.types import Period, PeriodType, Request
from core.figures.default_period import DefaultPeriod, default_period
from core.figures.structured import StructuredChannel
from core.knowledge.glossary import Glossary
from core.knowledge.names import NameIndex
from core.pipeline.pipeline import Pipeline
from core.planning.answering import Answerer
from tests.acme import MemoryFacts, acme_glossary, read_acme_facts

__all__ = ["acme_glossary"]  # the fixture, imported for pytest

FY = PeriodType.FY
IN_2027 = dt.date(2027, 3, 1)  # FY2026 is the last complete year; the table stops at FY2025


def channel(glossary: Glossary) -> StructuredChannel:
    return StructuredChannel(names=NameIndex(glossary), facts=MemoryFacts(read_acme_facts()))


def test_the_last_complete_year_when_it_has_a_figure(acme_glossary: Glossary) -> None:
    chosen = default_period(channel(acme_glossary), "REVENUE", "ACME_CN", None,
                            reference_date=dt.date(2026, 6, 15), cleared=False)
    assert chosen == DefaultPeriod(Period(FY, "2025"))


def test_the_latest_year_with_a_figure_when_the_last_complete_has_none(
    acme_glossary: Glossary,
) -> None:
    chosen = default_period(channel(acme_glossary), "REVENUE", "ACME_CN", "TOTAL",
                            reference_date=IN_2027, cleared=False)
    assert chosen == DefaultPeriod(Period(FY, "2025"), missing=Period(FY, "2026"))


def test_no_year_with_a_figure_keeps_the_last_complete_one(acme_glossary: Glossary) -> None:
    # ACME Italia has FY2025 only: in 2024 the last complete year is FY2023, and nothing
    # earlier has a figure, so FY2023 is answered (as "no figure"), never a later year
    chosen = default_period(channel(acme_glossary), "REVENUE", "ACME_IT", None,
                            reference_date=dt.date(2024, 5, 1), cleared=False)
    assert chosen == DefaultPeriod(Period(FY, "2023"))


def test_a_restricted_entity_is_not_looked_at_for_an_uncleared_chat(
    acme_glossary: Glossary,
) -> None:
    structured = channel(acme_glossary)
    uncleared = default_period(structured, "REVENUE", "ACME_LABS", None,
                               reference_date=IN_2027, cleared=False)
    assert uncleared == DefaultPeriod(Period(FY, "2026"))  # no hint that FY2025 has a figure
    cleared = default_period(structured, "REVENUE", "ACME_LABS", None,
                             reference_date=IN_2027, cleared=True)
    assert cleared == DefaultPeriod(Period(FY, "2025"), missing=Period(FY, "2026"))


def test_the_answer_says_which_year_it_fell_back_to(acme_glossary: Glossary) -> None:
    answerer = Answerer(glossary=acme_glossary, facts=MemoryFacts(read_acme_facts()),
                        today=lambda: IN_2027)
    answer = Pipeline(answerer).answer(
        Request("What was ACME China revenue?", reference_date=IN_2027))
    assert answer.facts[0].fact is not None and answer.facts[0].fact.value == 1188
    assert "FY2025 (the latest fiscal year with a figure: FY2026 has none yet)" in answer.text
    named = Pipeline(answerer).answer(Request("What was ACME China revenue in FY2026?",
                                    reference_date=IN_2027))
    assert named.facts[0].fact is None and "1,188" not in named.text
