"""Subscriptions and their deliveries in SQLite or PostgreSQL (core.contracts.subscriptions).

Exactly once across replicas, by the database alone: planning a due time locks the
subscription row (`FOR UPDATE SKIP LOCKED` on PostgreSQL: another replica passes over it) and
advances `next_run_at` with a conditional UPDATE (its old value in the WHERE: on SQLite, whose
writers are serialised, the second replica changes nothing); the delivery row is unique per
(subscription, due time). Sending claims one delivery the same way and holds it for a lease;
a replica that dies while holding one leaves it to the others when the lease runs out.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import and_, func, or_, select, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import SQLAlchemyError

from core.contracts.errors import StorageError
from core.contracts.subscriptions import (
    ACTIVE,
    CANCELLED,
    FAILED,
    MISSED,
    PAUSED,
    PENDING,
    SENDING,
    SENT,
    AlertRecord,
    DeliveryRecord,
    SubscriptionRecord,
)
from storage.subscription_tables import (
    AlertRow,
    ChatSettingRow,
    SubscriptionDeliveryRow,
    SubscriptionRow,
)
from storage.upsert import upsert_statement

SUBS = SubscriptionRow.__table__  # type: ignore[attr-defined]
DELIVERIES = SubscriptionDeliveryRow.__table__  # type: ignore[attr-defined]
CHATS = ChatSettingRow.__table__  # type: ignore[attr-defined]
ALERTS = AlertRow.__table__  # type: ignore[attr-defined]
MAX_CATCH_UP = 10_000  # due times skipped over while down, counted to find the latest one
MAX_ERROR = 500


def _record(row: Any) -> SubscriptionRecord:
    return SubscriptionRecord(
        id=row.id, platform=row.platform, chat=row.chat, user=row.user, language=row.language,
        schedule=row.schedule, timezone=row.timezone, question=row.question, status=row.status,
        next_run_at=row.next_run_at)


def _alert(row: Any) -> AlertRecord:
    return AlertRecord(
        id=row.id, platform=row.platform, chat=row.chat, user=row.user, language=row.language,
        condition=row.condition, metric=row.metric, entity=row.entity, channel=row.channel,
        kind=row.kind, threshold=row.threshold, status=row.status, triggered=row.triggered)


class SqlSubscriptionStore:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._pg = engine.dialect.name == "postgresql"

    # -- the chat's side ------------------------------------------------------------------------

    def add(self, *, platform: str, chat: str, user: str, language: str, schedule: str,
            timezone: str, question: str, next_run_at: dt.datetime,
            limit: int) -> SubscriptionRecord | None:
        with self._begin("save a subscription") as conn:
            held = conn.execute(select(func.count()).select_from(SUBS).where(
                SUBS.c.chat == chat, SUBS.c.status.in_((ACTIVE, PAUSED)))).scalar_one()
            if held >= limit:
                return None
            new = conn.execute(SUBS.insert().values(
                platform=platform, chat=chat, user=user, language=language, schedule=schedule,
                timezone=timezone, question=question, status=ACTIVE, next_run_at=next_run_at,
                created_at=dt.datetime.now(dt.UTC)).returning(*SUBS.c)).one()
            return _record(new)

    def for_chat(self, chat: str) -> list[SubscriptionRecord]:
        query = select(SUBS).where(SUBS.c.chat == chat, SUBS.c.status.in_((ACTIVE, PAUSED)))
        return self._records(query.order_by(SUBS.c.id))

    def listing(self, limit: int) -> list[SubscriptionRecord]:
        query = select(SUBS).where(SUBS.c.status.in_((ACTIVE, PAUSED)))
        return self._records(query.order_by(SUBS.c.id).limit(limit))

    def get(self, subscription_id: int) -> SubscriptionRecord | None:
        found = self._records(select(SUBS).where(SUBS.c.id == subscription_id))
        return found[0] if found else None

    def cancel(self, chat: str, subscription_id: int) -> SubscriptionRecord | None:
        with self._begin("cancel a subscription") as conn:
            row = conn.execute(select(SUBS).where(
                SUBS.c.id == subscription_id, SUBS.c.chat == chat,
                SUBS.c.status.in_((ACTIVE, PAUSED)))).first()
            if row is None:
                return None
            conn.execute(update(SUBS).where(SUBS.c.id == subscription_id)
                         .values(status=CANCELLED))
            # a delivery planned but not yet sent goes with it
            conn.execute(update(DELIVERIES).where(
                DELIVERIES.c.subscription_id == subscription_id,
                DELIVERIES.c.status == PENDING).values(status=CANCELLED))
            return _record(row)

    def pause(self, subscription_id: int) -> None:
        with self._begin("pause a subscription") as conn:
            conn.execute(update(SUBS).where(SUBS.c.id == subscription_id, SUBS.c.status == ACTIVE)
                         .values(status=PAUSED))

    def chat_timezone(self, chat: str) -> str | None:
        with self._connect("read a chat's time zone") as conn:
            return conn.execute(select(CHATS.c.timezone).where(CHATS.c.chat == chat)).scalar()

    def set_chat_timezone(self, chat: str, timezone: str) -> None:
        upsert = upsert_statement(self._engine.dialect.name, CHATS, ("chat",), ("timezone",))
        with self._begin("save a chat's time zone") as conn:
            conn.execute(upsert, {"chat": chat, "timezone": timezone})

    def chat_reference(self, chat: str) -> str | None:
        with self._connect("read a chat's service URL") as conn:
            return conn.execute(select(CHATS.c.service_url).where(CHATS.c.chat == chat)).scalar()

    def set_chat_reference(self, chat: str, service_url: str) -> None:
        upsert = upsert_statement(self._engine.dialect.name, CHATS, ("chat",), ("service_url",))
        with self._begin("save a chat's service URL") as conn:
            conn.execute(upsert, {"chat": chat, "service_url": service_url[:512]})

    # -- the scheduler's side -------------------------------------------------------------------

    def plan_due(self, now: dt.datetime, *,
                 next_after: Callable[[SubscriptionRecord, dt.datetime], dt.datetime],
                 grace: dt.timedelta, late_after: dt.timedelta,
                 batch: int = 100) -> tuple[int, int]:
        planned = missed_count = 0
        with self._begin("plan deliveries") as conn:
            due = select(SUBS).where(SUBS.c.status == ACTIVE, SUBS.c.next_run_at <= now)
            due = due.order_by(SUBS.c.next_run_at).limit(batch)
            if self._pg:
                due = due.with_for_update(skip_locked=True)
            for row in conn.execute(due).all():
                record = _record(row)
                latest, following = row.next_run_at, next_after(record, row.next_run_at)
                for _ in range(MAX_CATCH_UP):  # down for a while: only the latest is sent
                    if following > now:
                        break
                    latest, following = following, next_after(record, following)
                advanced = conn.execute(update(SUBS).where(
                    SUBS.c.id == row.id, SUBS.c.next_run_at == row.next_run_at,
                    SUBS.c.status == ACTIVE).values(next_run_at=following))
                if advanced.rowcount != 1:  # another replica planned it
                    continue
                missed = now - latest > grace
                conn.execute(DELIVERIES.insert().values(
                    subscription_id=row.id, due_at=latest, planned_at=now,
                    late=now - latest > late_after, status=MISSED if missed else PENDING,
                    attempts=0, next_try_at=now, owner="",
                    error="past the grace period" if missed else ""))
                planned += not missed
                missed_count += missed
        return planned, missed_count

    def claim_delivery(self, now: dt.datetime, *, owner: str, lease: dt.timedelta,
                       platforms: Sequence[str]) -> DeliveryRecord | None:
        with self._begin("claim a delivery") as conn:
            ready = or_(and_(DELIVERIES.c.status == PENDING, DELIVERIES.c.next_try_at <= now),
                        and_(DELIVERIES.c.status == SENDING, DELIVERIES.c.lease_until <= now))
            served = select(SUBS.c.id).where(SUBS.c.platform.in_(tuple(platforms)))
            query = select(DELIVERIES).where(ready, DELIVERIES.c.subscription_id.in_(served))
            query = query.order_by(DELIVERIES.c.next_try_at).limit(1)
            if self._pg:
                query = query.with_for_update(skip_locked=True)
            row = conn.execute(query).first()
            if row is None:
                return None
            taken = conn.execute(update(DELIVERIES).where(
                DELIVERIES.c.id == row.id, DELIVERIES.c.status == row.status,
                DELIVERIES.c.attempts == row.attempts,
            ).values(status=SENDING, owner=owner[:64], lease_until=now + lease,
                     attempts=row.attempts + 1))
            if taken.rowcount != 1:
                return None
            sub = conn.execute(select(SUBS).where(SUBS.c.id == row.subscription_id)).one()
            return DeliveryRecord(id=row.id, subscription=_record(sub), due_at=row.due_at,
                                  late=row.late, attempts=row.attempts + 1, status=SENDING)

    def delivered(self, delivery_id: int, now: dt.datetime) -> None:
        with self._begin("record a delivery") as conn:
            conn.execute(update(DELIVERIES).where(DELIVERIES.c.id == delivery_id).values(
                status=SENT, sent_at=now, lease_until=None))  # an earlier try's error stays

    def failed(self, delivery_id: int, now: dt.datetime, error: str, *,
               retry_at: dt.datetime | None) -> None:
        values: dict[str, Any] = {"error": error[:MAX_ERROR], "lease_until": None}
        if retry_at is None:
            values["status"] = FAILED
        else:
            values.update(status=PENDING, next_try_at=retry_at)
        with self._begin("record a failed delivery") as conn:
            conn.execute(update(DELIVERIES).where(DELIVERIES.c.id == delivery_id).values(**values))

    def deliveries(self, subscription_id: int | None = None,
                   limit: int = 1000) -> list[DeliveryRecord]:
        query = select(DELIVERIES, SUBS).join(SUBS, SUBS.c.id == DELIVERIES.c.subscription_id)
        if subscription_id is not None:
            query = query.where(DELIVERIES.c.subscription_id == subscription_id)
        query = query.order_by(DELIVERIES.c.id.desc()).limit(limit)
        with self._connect("read deliveries") as conn:
            rows = conn.execute(query).all()
        out = []
        for row in rows:
            m = row._mapping
            sub = SubscriptionRecord(
                id=m[SUBS.c.id], platform=m[SUBS.c.platform], chat=m[SUBS.c.chat],
                user=m[SUBS.c.user], language=m[SUBS.c.language], schedule=m[SUBS.c.schedule],
                timezone=m[SUBS.c.timezone], question=m[SUBS.c.question],
                status=m[SUBS.c.status], next_run_at=m[SUBS.c.next_run_at])
            out.append(DeliveryRecord(
                id=m[DELIVERIES.c.id], subscription=sub, due_at=m[DELIVERIES.c.due_at],
                late=m[DELIVERIES.c.late], attempts=m[DELIVERIES.c.attempts],
                status=m[DELIVERIES.c.status], error=m[DELIVERIES.c.error]))
        return out

    # -- alerts -------------------------------------------------------------------------------

    def add_alert(self, *, platform: str, chat: str, user: str, language: str, condition: str,
                  metric: str, entity: str, channel: str, kind: str, threshold: str,
                  limit: int) -> AlertRecord | None:
        with self._begin("save an alert") as conn:
            held = conn.execute(select(func.count()).select_from(ALERTS).where(
                ALERTS.c.chat == chat, ALERTS.c.status == ACTIVE)).scalar_one()
            if held >= limit:
                return None
            row = conn.execute(ALERTS.insert().values(
                platform=platform, chat=chat, user=user, language=language,
                condition=condition, metric=metric, entity=entity, channel=channel, kind=kind,
                threshold=threshold, status=ACTIVE, triggered=False,
                created_at=dt.datetime.now(dt.UTC)).returning(*ALERTS.c)).one()
            return _alert(row)

    def alerts(self, chat: str | None = None, limit: int = 1000) -> list[AlertRecord]:
        query = select(ALERTS).where(ALERTS.c.status == ACTIVE)
        if chat is not None:
            query = query.where(ALERTS.c.chat == chat)
        with self._connect("read alerts") as conn:
            rows = conn.execute(query.order_by(ALERTS.c.id).limit(limit)).all()
        return [_alert(r) for r in rows]

    def cancel_alert(self, chat: str, alert_id: int) -> AlertRecord | None:
        with self._begin("cancel an alert") as conn:
            row = conn.execute(select(ALERTS).where(
                ALERTS.c.id == alert_id, ALERTS.c.chat == chat,
                ALERTS.c.status == ACTIVE)).first()
            if row is None:
                return None
            conn.execute(update(ALERTS).where(ALERTS.c.id == alert_id).values(status=CANCELLED))
            return _alert(row)

    def flip(self, alert_id: int, holds: bool) -> bool:
        with self._begin("record an alert's state") as conn:
            changed = conn.execute(update(ALERTS).where(
                ALERTS.c.id == alert_id, ALERTS.c.status == ACTIVE,
                ALERTS.c.triggered == (not holds)).values(triggered=holds))
            return changed.rowcount == 1

    # -- plumbing -------------------------------------------------------------------------------

    def _records(self, query: Any) -> list[SubscriptionRecord]:
        with self._connect("read subscriptions") as conn:
            return [_record(row) for row in conn.execute(query).all()]

    def _begin(self, what: str) -> _Guarded:
        return _Guarded(self._engine, what, begin=True)

    def _connect(self, what: str) -> _Guarded:
        return _Guarded(self._engine, what, begin=False)


class _Guarded:
    """A connection (in a transaction with `begin`) whose database errors become one
    StorageError naming what failed, never a driver's message (it may quote the URL)."""

    def __init__(self, engine: Engine, what: str, *, begin: bool) -> None:
        self._cm = engine.begin() if begin else engine.connect()
        self._what = what

    def __enter__(self) -> Connection:
        try:
            return self._cm.__enter__()
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot {self._what}: {exc.__class__.__name__}") from None

    def __exit__(self, kind: Any, exc: Any, tb: Any) -> bool:
        try:
            self._cm.__exit__(kind, exc, tb)
        except SQLAlchemyError as error:
            raise StorageError(f"cannot {self._what}: {error.__class__.__name__}") from None
        if isinstance(exc, SQLAlchemyError):
            raise StorageError(f"cannot {self._what}: {exc.__class__.__name__}") from None
        return False
