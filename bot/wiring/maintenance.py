"""Wiring of the nightly maintenance and promotion: settings -> storage -> core.

`build_catalog` gives an application its executor catalog (built-ins plus the approved
composite executors in the database); `maintenance_services` builds the job, the promotion
service and the lock from checked settings and an engine. Kept apart from
bot.wiring.core_services so the job's parts load only where they are used (serve, the CLI,
admin commands).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy.engine import Engine

from core.planning.catalog import Catalog

if TYPE_CHECKING:  # the nightly job's modules load with it, not with every answer's catalog
    from bot.settings.checks import CheckedSettings
    from bot.settings.model import Settings
    from core.nightly.maintenance import Maintenance
    from core.nightly.maintenance_rules import AgingPolicy, PromotionPolicy
    from core.nightly.promotion import Promotions
    from storage.maintenance_store import SqlMaintenanceStore

Clock = Callable[[], dt.datetime]


def build_catalog(engine: Engine, *, refresh_seconds: float = 30.0) -> Catalog:
    """The application's catalog, loading the composite executors now (fail fast at start)."""
    from storage.composite_reader import read_composites

    catalog = Catalog(
        composites=lambda: read_composites(engine), refresh_seconds=refresh_seconds
    )
    catalog.reload()
    return catalog


def aging_policy(s: Settings) -> AgingPolicy:
    from core.nightly.maintenance_rules import AgingPolicy

    return AgingPolicy(
        never_reused_days=s.aging_never_reused_days,
        unused_days=s.aging_unused_days,
        max_entries=s.aging_max_entries,
        autopath_demoted_days=s.autopath_demoted_days,
        autopath_idle_days=s.autopath_idle_days,
    )


def promotion_policy(s: Settings) -> PromotionPolicy:
    from core.nightly.maintenance_rules import PromotionPolicy

    return PromotionPolicy(
        min_entries=s.promotion_min_entries,
        min_uses=s.promotion_min_uses,
        min_age_days=s.promotion_min_age_days,
        tier2=s.promotion_tier2,
        tier2_min_entries=s.promotion_tier2_min_entries,
        tier2_min_uses=s.promotion_tier2_min_uses,
        tier2_nights=s.promotion_tier2_nights,
    )


def turn_expiry(s: Settings, engine: Engine) -> Callable[[dt.datetime, bool], int] | None:
    """The nightly removal of turns older than RICORDA_TURN_RETENTION_DAYS (0: kept)."""
    if s.turn_retention_days <= 0:
        return None
    keep = dt.timedelta(days=s.turn_retention_days)

    def expire(now: dt.datetime, dry_run: bool) -> int:
        from storage.turn_retention import expire_turns

        return expire_turns(engine, now - keep, dry_run=dry_run)

    return expire


@dataclass
class MaintenanceServices:
    maintenance: Maintenance
    promotions: Promotions
    store: SqlMaintenanceStore
    at: dt.time
    tz: dt.tzinfo | None


def maintenance_services(
    checked: CheckedSettings,
    engine: Engine,
    catalog: Catalog,
    *,
    clock: Clock = lambda: dt.datetime.now(dt.UTC),
    sync: Callable[[], None] | None = None,
) -> MaintenanceServices:
    """Everything the nightly job and the promotion admin commands need (the time and zone
    were checked with the settings). `sync`: the serving plan cache's flush (see Maintenance)."""
    from core.nightly.maintenance import Maintenance
    from core.nightly.promotion import Promotions
    from storage.maintenance_lock import MaintenanceLock
    from storage.maintenance_store import SqlMaintenanceStore
    from storage.promotion_store import SqlPromotionStore

    settings, at, tz = checked.settings, checked.maintenance_at, checked.maintenance_tz
    store = SqlMaintenanceStore(engine)

    def night_of(moment: dt.datetime) -> str:
        return moment.astimezone(tz).date().isoformat()

    promotions = Promotions(
        SqlPromotionStore(engine),
        catalog=catalog,
        policy=promotion_policy(settings),
        clock=clock,
        night_of=night_of,
    )
    maintenance = Maintenance(
        store=store,
        promotions=promotions,
        catalog=catalog,
        aging=aging_policy(settings),
        clock=clock,
        lock=MaintenanceLock(engine),
        tz=tz,
        sync=sync,
        expire_turns=turn_expiry(settings, engine),
    )
    return MaintenanceServices(maintenance, promotions, store, at, tz)

