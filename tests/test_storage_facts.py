"""The fact table on SQLite and PostgreSQL: exact numbers, idempotent loads, fast lookups."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine

from core.contracts.types import Fact, Period, PeriodType, Source, format_decimal
from storage.db import open_database
from storage.fact_files import read_fact_file
from storage.fact_store import SqlFactStore, UpsertCounts

FY = PeriodType.FY
HEADER = "metric,entity,period_type,period,channel,value,unit,source_doc,source_locator\n"


def fact(
    value: str,
    period: Period | None = None,
    *,
    channel: str = "TOTAL",
    entity: str = "ORBIS_CN",
    doc: str = "review.pptx",
) -> Fact:
    return Fact(
        metric="REVENUE",
        entity=entity,
        period=period or Period(FY, "2024"),
        channel=channel,
        value=Decimal(value),
        unit="EUR_M",
        source=Source(doc, "slide=2"),
    )


def load_csv(path: Path, body: str) -> list[Fact]:
    path.write_text(HEADER + body, encoding="utf-8")
    report = read_fact_file(
        path,
        known_metrics={"REVENUE", "EBITDA"},
        known_entities={"ORBIS_CN", "ORBIS_GROUP"},
        known_channels={"ONLINE"},
    )
    assert report.ok, report.errors
    return report.facts


def test_loading_the_same_file_twice_changes_nothing_and_an_edit_is_an_update(
    engine: Engine, tmp_path: Path
) -> None:
    body = (
        "REVENUE,ORBIS_CN,FY,2024,,1320,EUR_M,review.pptx,slide=2\n"
        "REVENUE,ORBIS_CN,FY,2025,,1250.5,EUR_M,review.pptx,slide=3\n"
        "EBITDA,ORBIS_GROUP,Q,2025Q3,ONLINE,-12.345,EUR_M,q3.pdf,page=4\n"
    )
    store = SqlFactStore(engine)
    assert store.upsert_facts(load_csv(tmp_path / "facts.csv", body)) == UpsertCounts(3, 0, 0)
    assert store.upsert_facts(load_csv(tmp_path / "facts.csv", body)) == UpsertCounts(0, 0, 3)
    assert store.count() == 3

    edited = body.replace("1250.5", "1251")
    assert store.upsert_facts(load_csv(tmp_path / "facts.csv", edited)) == UpsertCounts(0, 1, 2)
    found = store.lookup("REVENUE", "ORBIS_CN", Period(FY, "2025"), "TOTAL")
    assert found is not None and str(found.value) == "1251"
    assert store.count() == 3


def test_a_changed_source_is_an_update_too(engine: Engine) -> None:
    store = SqlFactStore(engine)
    store.upsert_facts([fact("10")])
    assert store.upsert_facts([fact("10", doc="restated.pdf")]) == UpsertCounts(0, 1, 0)
    found = store.lookup("REVENUE", "ORBIS_CN", Period(FY, "2024"), "TOTAL")
    assert found is not None and found.source == Source("restated.pdf", "slide=2")


@pytest.mark.parametrize("text", ["1320", "0.1", "-12.345", "0.10", "123456789012345.678901"])
def test_values_come_back_digit_for_digit_after_a_restart(db_url: str, text: str) -> None:
    first = open_database(db_url)
    try:
        SqlFactStore(first).upsert_facts([fact(text)])
    finally:
        first.dispose()
    reopened = open_database(db_url)
    try:
        found = SqlFactStore(reopened).lookup("REVENUE", "ORBIS_CN", Period(FY, "2024"), "TOTAL")
    finally:
        reopened.dispose()
    assert found is not None
    assert str(found.value) == text
    assert format_decimal(found.value) == format_decimal(Decimal(text))


@pytest.mark.parametrize("preload", [True, False], ids=["preloaded", "one-shot"])
def test_lookup_needs_all_five_parts_to_match(engine: Engine, preload: bool) -> None:
    SqlFactStore(engine).upsert_facts([fact("100"), fact("7", channel="ONLINE")])
    store = SqlFactStore(engine, preload=preload)
    key = ("REVENUE", "ORBIS_CN", Period(FY, "2024"))
    assert store.lookup(*key, "TOTAL").value == Decimal("100")  # type: ignore[union-attr]
    assert store.lookup(*key, "ONLINE").value == Decimal("7")  # type: ignore[union-attr]
    assert store.lookup("REVENUE", "ORBIS_CN", Period(FY, "2023"), "TOTAL") is None
    assert store.lookup("REVENUE", "ORBIS_GROUP", Period(FY, "2024"), "TOTAL") is None
    assert store.lookup("EBITDA", "ORBIS_CN", Period(FY, "2024"), "TOTAL") is None
    assert store.lookup("REVENUE", "ORBIS_CN", Period(PeriodType.HY, "2024"), "TOTAL") is None


@pytest.mark.parametrize("preload", [True, False], ids=["preloaded", "one-shot"])
def test_periods_are_listed_newest_first_longest_first_on_ties(
    engine: Engine, preload: bool
) -> None:
    periods = [
        Period(FY, "2023"),
        Period(PeriodType.M, "2025-03"),
        Period(FY, "2025"),
        Period(PeriodType.Q, "2025Q4"),
        Period(PeriodType.HY, "2025H1"),
        Period(FY, "2024"),
        Period(PeriodType.Q, "2025Q2"),
        Period(PeriodType.HY, "2025H2"),
        Period(PeriodType.M, "2025-12"),
    ]
    writer = SqlFactStore(engine)
    writer.upsert_facts([fact("1", p) for p in periods])
    writer.upsert_facts([fact("1", Period(FY, "2026"), channel="ONLINE")])
    store = SqlFactStore(engine, preload=preload)
    assert [p.code for p in store.periods("REVENUE", "ORBIS_CN", "TOTAL")] == [
        "FY2025",
        "2025H2",
        "2025Q4",
        "2025-12",
        "2025H1",
        "2025Q2",
        "2025-03",
        "FY2024",
        "FY2023",
    ]
    assert store.periods("REVENUE", "ORBIS_CN", "ONLINE") == [Period(FY, "2026")]
    assert store.periods("REVENUE", "NOBODY", "TOTAL") == []


def test_a_second_store_sees_another_writer_after_refresh_or_when_stale(engine: Engine) -> None:
    writer = SqlFactStore(engine)
    cached = SqlFactStore(engine)
    watching = SqlFactStore(engine, stale_after=0.0)
    key = ("REVENUE", "ORBIS_CN", Period(FY, "2024"), "TOTAL")
    assert cached.lookup(*key) is None and watching.lookup(*key) is None

    writer.upsert_facts([fact("42")])
    assert cached.lookup(*key) is None  # served from its index until refreshed
    assert watching.lookup(*key).value == Decimal("42")  # type: ignore[union-attr]
    cached.refresh()
    assert cached.lookup(*key).value == Decimal("42")  # type: ignore[union-attr]


def test_a_bulk_load_spans_several_batches(engine: Engine) -> None:
    facts = [
        fact(f"{i}.5", Period(PeriodType.M, f"{2000 + i // 12}-{i % 12 + 1:02d}"))
        for i in range(2500)
    ]
    store = SqlFactStore(engine)
    assert store.upsert_facts(facts) == UpsertCounts(2500, 0, 0)
    assert store.count() == 2500
    assert len(store.all_facts()) == 2500
    last = store.periods("REVENUE", "ORBIS_CN", "TOTAL")[0]
    assert last == Period(PeriodType.M, "2208-04")
    assert store.lookup("REVENUE", "ORBIS_CN", last, "TOTAL").value == Decimal("2499.5")  # type: ignore[union-attr]
