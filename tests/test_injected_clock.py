"""Core reads the day and makes ids only through what it is given: the answerer's `today` decides
what "last year" means all the way down to the fact lookup, and the cascade names the plans it
registers with its injected id source. Nothing in these paths asks the machine's clock."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from itertools import count
from pathlib import Path

import pytest

from core.contracts.types import FactStatus, Request
from core.fastpath.plan_cache import PlanCache
from core.knowledge.glossary import Glossary
from core.pipeline.pipeline import Pipeline
from core.planning.answering import Answerer
from storage.db import open_database
from storage.fastpath_store import SqlFastpathStore
from tests.acme import MemoryFacts, MemoryTurns, read_acme_facts

SUMMER_2025 = dt.date(2025, 6, 15)  # "last year" is FY2024 then
SUMMER_2026 = dt.date(2026, 6, 15)  # and FY2025 a year on


def answerer(glossary: Glossary, today: dt.date) -> Answerer:
    return Answerer(glossary=glossary, facts=MemoryFacts(read_acme_facts()), turns=MemoryTurns(),
                    today=lambda: today)


@pytest.mark.parametrize(("today", "year", "value"), [(SUMMER_2025, "2024", 1320),
                                                      (SUMMER_2026, "2025", 1188)])
def test_last_year_is_read_against_the_injected_today(
    acme_glossary: Glossary, today: dt.date, year: str, value: int
) -> None:
    """A request that carries no date is answered as of the answerer's `today`."""
    ans = Pipeline(answerer(acme_glossary, today)).answer(
        Request("What was ACME China revenue last year?"))
    (fact,) = ans.facts
    assert fact.status is FactStatus.FOUND
    assert (fact.period.value, fact.fact.value) == (year, value)


def test_the_fact_lookup_has_no_clock_of_its_own(acme_glossary: Glossary) -> None:
    """The structured channel reads a period in words against the date it is handed (the
    request's, from the answerer's clock) and has no machine-clock fallback to reach for."""
    structured = answerer(acme_glossary, SUMMER_2026).structured
    found = structured.query_metric("REVENUE", "ACME_CN", "last year",
                                    reference_date=SUMMER_2025)
    assert (found.period.value, found.fact.value) == ("2024", 1320)
    with pytest.raises(TypeError):
        structured.query_metric("REVENUE", "ACME_CN", "last year")  # type: ignore[call-arg]


@pytest.fixture
def fastpaths(tmp_path: Path) -> Iterator[SqlFastpathStore]:
    engine = open_database(f"sqlite:///{tmp_path / 'r.db'}")
    yield SqlFastpathStore(engine)
    engine.dispose()


def test_the_cascade_names_registered_plans_with_its_injected_id_source(
    acme_glossary: Glossary, fastpaths: SqlFastpathStore
) -> None:
    ids = (f"plan-{n:04d}" for n in count(1))
    moment = dt.datetime(2026, 6, 15, 9, 30, tzinfo=dt.UTC)
    cascade = Pipeline(answerer(acme_glossary, SUMMER_2026), PlanCache(
        fastpaths=fastpaths,
        clock=lambda: moment,
        new_id=lambda: next(ids),
    ))
    for question in ("What was ACME China revenue in FY2024?", "ACME Italia EBITDA FY2025"):
        assert cascade.answer(Request(question, chat="telegram:1", user="u")).succeeded
    entries = sorted(fastpaths.iter_all(), key=lambda e: e.id)
    assert [e.id for e in entries] == ["plan-0001", "plan-0002"]
    assert {e.created_at for e in entries} == {moment}
