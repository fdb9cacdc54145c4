"""A fact table larger than a process should hold (issue 28): served by indexed queries, never
loaded whole, on SQLite and PostgreSQL, with the same answers as a preloaded one."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy.engine import Engine

from core.contracts.types import Fact, Period, PeriodType, Source
from storage.fact_store import SqlFactStore, UpsertCounts

LIMIT = 50


def facts(n: int, *, entity: str = "ORBIS_CN", bump: str = "0") -> list[Fact]:
    return [
        Fact("REVENUE", entity, Period(PeriodType.M, f"{2000 + i // 12}-{i % 12 + 1:02d}"),
             "TOTAL", Decimal(f"{i}.{bump}5"), "EUR_M", Source("ledger.xlsx", f"row={i}"))
        for i in range(n)
    ]


def test_a_table_above_the_limit_is_queried_not_held_and_answers_the_same(
    engine: Engine,
) -> None:
    loader = SqlFactStore(engine, preload_limit=LIMIT)
    assert loader.upsert_facts(facts(120)) == UpsertCounts(120, 0, 0)
    serving = SqlFactStore(engine, preload_limit=LIMIT)
    holding = SqlFactStore(engine)  # the default limit: this table is small enough to hold
    period = Period(PeriodType.M, "2005-07")
    got = serving.lookup("REVENUE", "ORBIS_CN", period, "TOTAL")
    assert got is not None and got.value == Decimal("66.05") and got.source.locator == "row=66"
    assert got == holding.lookup("REVENUE", "ORBIS_CN", period, "TOTAL")
    assert serving.periods("REVENUE", "ORBIS_CN", "TOTAL") == holding.periods(
        "REVENUE", "ORBIS_CN", "TOTAL"
    )
    assert serving.lookup("REVENUE", "ORBIS_IT", period, "TOTAL") is None
    assert sorted(f.source.locator for f in serving.all_facts()) == sorted(
        f.source.locator for f in holding.all_facts()
    )
    assert not serving.loaded and holding.loaded

    # another process's load: answered once the serving store catches up with the version
    SqlFactStore(engine, preload=False).upsert_facts(
        [*facts(1, entity="ORBIS_IT"), facts(67, bump="7")[66]]
    )
    serving.catch_up()
    found = serving.lookup("REVENUE", "ORBIS_IT", Period(PeriodType.M, "2000-01"), "TOTAL")
    assert found is not None and found.value == Decimal("0.05")
    changed = serving.lookup("REVENUE", "ORBIS_CN", period, "TOTAL")
    assert changed is not None and changed.value == Decimal("66.75")
    assert not serving.loaded


def test_a_load_into_a_large_table_is_classified_row_by_row_against_it(engine: Engine) -> None:
    store = SqlFactStore(engine, preload_limit=LIMIT)
    store.upsert_facts(facts(2500))  # several batches
    assert store.upsert_facts(facts(2500)) == UpsertCounts(0, 0, 2500)
    changed = facts(2500)
    changed[1234] = facts(1235, bump="9")[1234]
    assert store.upsert_facts(changed + facts(1, entity="ORBIS_HK")) == UpsertCounts(1, 1, 2499)
    assert store.count() == 2501 and not store.loaded
    again = store.lookup("REVENUE", "ORBIS_CN", changed[1234].period, "TOTAL")
    assert again is not None and again.value == Decimal("1234.95")


def test_a_held_table_that_outgrows_the_limit_is_let_go_on_catch_up(engine: Engine) -> None:
    serving = SqlFactStore(engine, preload_limit=LIMIT)
    SqlFactStore(engine).upsert_facts(facts(10))
    assert serving.lookup("REVENUE", "ORBIS_CN", Period(PeriodType.M, "2000-01"), "TOTAL")
    assert serving.loaded
    SqlFactStore(engine).upsert_facts(facts(100, entity="ORBIS_IT"))
    serving.catch_up()
    assert not serving.loaded
    late = serving.lookup("REVENUE", "ORBIS_IT", Period(PeriodType.M, "2008-04"), "TOTAL")
    assert late is not None and late.value == Decimal("99.05")
