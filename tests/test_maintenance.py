"""Nightly maintenance on SQLite and PostgreSQL: aging, death with inheritance, autopath
pruning, the removal log, dry runs, and one run at a time across replicas. Time is injected."""

from __future__ import annotations

import datetime as dt
import threading

import pytest
from sqlalchemy import insert, select
from sqlalchemy.engine import Engine

from core.contracts.errors import StorageError
from core.nightly.maintenance_rules import AgingPolicy
from core.planning.catalog import Catalog
from storage.autopath_tables import AutopathRow
from storage.db import open_database
from storage.maintenance_lock import MaintenanceLock
from tests.maintenance_fixtures import NOW, Clock, add_entry, make_job, one_step_plan


def test_entry_never_reused_for_20_days_is_removed(engine: Engine) -> None:
    job = make_job(engine)
    old = add_entry(job.fastpaths, "old never reused", age_days=20)
    young = add_entry(job.fastpaths, "young never reused", age_days=10)
    reused = add_entry(job.fastpaths, "old but reused", age_days=20, used_days_ago=2, uses=1)

    report = job.maintenance.run()

    assert job.fastpaths.by_id(old.id) is None
    assert job.fastpaths.by_id(young.id) is not None
    assert job.fastpaths.by_id(reused.id) is not None
    assert job.log_rules() == {old.id: "never_reused"}
    assert "never_reused" in report.text() and "old never reused" in report.text()


def test_entry_last_used_45_days_ago_is_removed(engine: Engine) -> None:
    job = make_job(engine)
    stale = add_entry(job.fastpaths, "used long ago", age_days=90, used_days_ago=45, uses=9)
    fresh = add_entry(job.fastpaths, "used lately", age_days=90, used_days_ago=5, uses=9)

    job.maintenance.run()

    assert job.fastpaths.by_id(stale.id) is None
    assert job.fastpaths.by_id(fresh.id) is not None
    log = job.store.log()
    assert [(r.entry_id, r.rule, r.uses, r.at) for r in log] == [(stale.id, "unused", 9, NOW)]


def test_cap_removes_the_least_recently_used(engine: Engine) -> None:
    job = make_job(engine, aging=AgingPolicy(max_entries=3))
    entries = [
        add_entry(job.fastpaths, f"question {i}", age_days=20, used_days_ago=10 - i, uses=1)
        for i in range(5)
    ]

    report = job.maintenance.run()

    assert job.fastpaths.count() == 3
    removed = {e.id for e in entries[:2]}  # used 10 and 9 days ago
    assert {r.entry_id for r in report.removals} == removed
    assert job.log_rules() == dict.fromkeys(removed, "over_cap")


def test_plan_whose_tool_left_the_catalog_dies(engine: Engine) -> None:
    job = make_job(engine)
    gone = add_entry(job.fastpaths, "uses a retired tool", uses=3, used_days_ago=1,
                     plan=one_step_plan("currency_convert"))
    fine = add_entry(job.fastpaths, "uses a known tool", uses=3, used_days_ago=1)

    job.maintenance.run()

    assert job.fastpaths.by_id(gone.id) is None
    assert job.fastpaths.by_id(fine.id) is not None
    assert job.log_rules() == {gone.id: "missing_tool"}


def test_no_plan_dies_while_the_catalog_is_incomplete(engine: Engine) -> None:
    def broken() -> list:
        raise StorageError("database unreachable")

    job = make_job(engine, catalog=Catalog(composites=broken))
    kept = add_entry(job.fastpaths, "uses a tool not loaded", uses=3, used_days_ago=1,
                     plan=one_step_plan("currency_convert"))

    report = job.maintenance.run()

    assert job.fastpaths.by_id(kept.id) is not None
    assert report.removals == []
    assert "catalog is incomplete" in report.text()


def test_dry_run_reports_and_writes_nothing(engine: Engine) -> None:
    job = make_job(engine)
    old = add_entry(job.fastpaths, "old never reused", age_days=20)

    report = job.maintenance.run(dry_run=True)

    assert [r.entry_id for r in report.removals] == [old.id]
    assert report.text().startswith("dry run: nothing written")
    assert "would remove 1" in report.text()
    assert job.fastpaths.by_id(old.id) is not None
    assert job.store.log() == []


def test_an_entry_used_while_maintenance_ran_is_kept(engine: Engine) -> None:
    job = make_job(engine)
    entry = add_entry(job.fastpaths, "old never reused", age_days=20)
    planned = job.maintenance.run(dry_run=True).removals
    job.fastpaths.touch(entry.id, NOW)  # someone asks it between the scan and the delete

    removed = job.store.remove(planned, run_id="r1", at=NOW)

    assert removed == []
    assert job.fastpaths.by_id(entry.id) is not None
    assert job.store.log() == []


def test_autopaths_demoted_for_30_days_or_idle_for_90_are_pruned(engine: Engine) -> None:
    job = make_job(engine)
    day = dt.timedelta(days=1)
    rows = {
        "demoted_old": ("demoted", NOW - 200 * day, None, NOW - 31 * day),
        "demoted_new": ("demoted", NOW - 200 * day, None, NOW - 5 * day),
        "idle": ("active", NOW - 200 * day, NOW - 91 * day, None),
        "busy": ("active", NOW - 200 * day, NOW - 1 * day, None),
        "never_used_new": ("active", NOW - 10 * day, None, None),
    }
    ids = {}
    with engine.begin() as conn:
        for cluster, (status, created, used, demoted) in rows.items():
            ids[cluster] = conn.execute(
                insert(AutopathRow.__table__)  # type: ignore[attr-defined]
                .values(cluster_id=cluster, framework_hash="f", intent_hash="i", plan={},
                        status=status, created_at=created, updated_at=created,
                        promoted_at=created, last_used_at=used, demoted_at=demoted)
                .returning(AutopathRow.__table__.c.id)  # type: ignore[attr-defined]
            ).scalar_one()

    job.maintenance.run()

    with engine.connect() as conn:
        left = set(conn.execute(select(AutopathRow.__table__.c.cluster_id)).scalars())  # type: ignore[attr-defined]
    assert left == {"demoted_new", "busy", "never_used_new"}
    assert job.log_rules() == {
        str(ids["demoted_old"]): "autopath_demoted",
        str(ids["idle"]): "autopath_idle",
    }


def test_a_second_holder_is_refused_until_the_lock_is_free(engine: Engine) -> None:
    first, second = MaintenanceLock(engine), MaintenanceLock(engine)
    with first.hold() as held:
        assert held
        with second.hold() as also:
            assert not also
    with second.hold() as held_after:
        assert held_after


def test_an_expired_lock_row_is_taken_over(tmp_path) -> None:
    engine = open_database(f"sqlite:///{tmp_path / 'r.db'}")
    clock = Clock()
    dead = MaintenanceLock(engine, clock=clock, ttl=dt.timedelta(minutes=30))
    assert dead._take_row()  # a replica took it and died without freeing it
    other = MaintenanceLock(engine, clock=clock)
    with other.hold() as held:
        assert not held
    clock.advance(minutes=31)
    with other.hold() as held:
        assert held
    engine.dispose()


def test_run_is_skipped_while_another_replica_holds_the_lock(engine: Engine) -> None:
    job = make_job(engine)
    old = add_entry(job.fastpaths, "old never reused", age_days=20)
    with MaintenanceLock(engine).hold() as held:
        assert held
        report = job.maintenance.run()
    assert not report.ran and "another replica" in report.text()
    assert job.fastpaths.by_id(old.id) is not None


def test_the_nightly_job_runs_once_a_night(engine: Engine) -> None:
    job = make_job(engine)
    add_entry(job.fastpaths, "old never reused", age_days=20)
    assert job.maintenance.run_nightly().ran
    again = job.maintenance.run_nightly()
    assert not again.ran and "already ran" in again.text()
    job.clock.advance(days=1)
    assert job.maintenance.run_nightly().ran


@pytest.mark.postgres
def test_two_replicas_at_once_on_postgres_run_it_once(postgres_schema_url: str) -> None:
    engines = [open_database(postgres_schema_url) for _ in range(2)]
    jobs = [make_job(e) for e in engines]
    for i in range(300):
        add_entry(jobs[0].fastpaths, f"old never reused {i}", age_days=20)
    start = threading.Barrier(2)
    reports = []

    def replica(i: int) -> None:
        start.wait()
        reports.append(jobs[i].maintenance.run_nightly())

    threads = [threading.Thread(target=replica, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    assert sorted(r.ran for r in reports) == [False, True]
    log = jobs[0].store.log(limit=10_000)
    assert len(log) == 300 and len({r.entry_id for r in log}) == 300
    assert jobs[0].fastpaths.count() == 0
    for e in engines:
        e.dispose()
