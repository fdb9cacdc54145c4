"""Shared parts of the maintenance tests: a moving clock, L0 entries with a chosen age and use
count, and the maintenance job wired on real stores."""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import Engine

from core.contracts.fastpath import FastpathEntry
from core.nightly.maintenance import Maintenance
from core.nightly.maintenance_rules import AgingPolicy, PromotionPolicy
from core.nightly.promotion import Promotions
from core.planning.catalog import Catalog
from core.planning.plan import Plan, intent_hash
from storage.fastpath_store import SqlFastpathStore
from storage.maintenance_lock import MaintenanceLock
from storage.maintenance_store import SqlMaintenanceStore
from storage.promotion_store import SqlPromotionStore

NOW = dt.datetime(2026, 6, 15, 3, 30, tzinfo=dt.UTC)


class Clock:
    def __init__(self, now: dt.datetime = NOW) -> None:
        self.now = now

    def __call__(self) -> dt.datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += dt.timedelta(**delta)


def two_years_plan(intent: str = "structured:REVENUE") -> Plan:
    """The planner's plan for "<entity> <metric> in FY<a> and FY<b>": two steps."""
    steps = [
        {
            "tool": "query_metric",
            "args": {
                "metric": "${metric[0]}",
                "entity": "${entity[0]}",
                "period": f"${{period[{i}]}}",
                "channel": "${channel:total}",
            },
        }
        for i in (0, 1)
    ]
    shape = {"metric": 1, "entity": 1, "period": 2, "channel": 0}
    return Plan(route="structured", steps=steps, shape=shape, intent=intent)


def one_step_plan(tool: str = "query_metric") -> Plan:
    args = {"metric": "${metric[0]}", "entity": "${entity[0]}", "period": "${period[0]}"}
    return Plan(
        route="structured",
        steps=[{"tool": tool, "args": args}],
        shape={"metric": 1, "entity": 1, "period": 1, "channel": 0},
        intent="structured:REVENUE",
    )


def add_entry(
    store: SqlFastpathStore,
    text: str,
    *,
    now: dt.datetime = NOW,
    age_days: float = 1,
    used_days_ago: float | None = None,
    uses: int = 0,
    plan: Plan | None = None,
    query_specific: bool = False,
) -> FastpathEntry:
    plan = plan or one_step_plan()
    created = now - dt.timedelta(days=age_days)
    last = created if used_days_ago is None else now - dt.timedelta(days=used_days_ago)
    return store.upsert(
        FastpathEntry(
            id=uuid.uuid4().hex,
            canonical_text=text,
            canonical_hash=uuid.uuid5(uuid.NAMESPACE_URL, text).hex[:16],
            plan=plan.to_dict(),
            route=plan.route,
            intent=plan.intent,
            intent_hash=intent_hash(plan.intent),
            framework_hash=plan.framework_hash(),
            origin="planner",
            query_specific=query_specific,
            embedder="",
            embedding=None,
            created_at=created,
            last_used_at=last,
            n_uses=uses,
        )
    )


@dataclass
class Job:
    maintenance: Maintenance
    promotions: Promotions
    store: SqlMaintenanceStore
    promotion_store: SqlPromotionStore
    fastpaths: SqlFastpathStore
    catalog: Catalog
    clock: Clock

    def log_rules(self) -> dict[str, str]:
        return {row.entry_id: row.rule for row in self.store.log(limit=10_000)}


def make_job(
    engine: Engine,
    *,
    clock: Clock | None = None,
    aging: AgingPolicy | None = None,
    promotion: PromotionPolicy | None = None,
    catalog: Catalog | None = None,
    **lock: Any,
) -> Job:
    clock = clock or Clock()
    promotion_store = SqlPromotionStore(engine)
    catalog = catalog or Catalog(composites=promotion_store.composites)
    promotions = Promotions(
        promotion_store, catalog=catalog, policy=promotion or PromotionPolicy(), clock=clock
    )
    store = SqlMaintenanceStore(engine)
    maintenance = Maintenance(
        store=store,
        promotions=promotions,
        catalog=catalog,
        aging=aging or AgingPolicy(),
        clock=clock,
        lock=MaintenanceLock(engine, **lock),
        tz=dt.UTC,
    )
    return Job(
        maintenance, promotions, store, promotion_store, SqlFastpathStore(engine), catalog, clock
    )
