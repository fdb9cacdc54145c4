"""Which platform deliveries (Telegram update ids, Slack event ids) were already handled.

Platforms deliver at least once: a webhook retried after a slow reply, a poller restarted
before acknowledging, two replicas behind one webhook. One INSERT .. ON CONFLICT DO NOTHING on
(platform, delivery id) decides, atomically and across replicas, who handles it. Old rows are
pruned as new ones arrive, so the table stays bounded.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from sqlalchemy import Column, String, delete
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Field, SQLModel

from core.contracts.errors import StorageError
from storage.tables import UtcDateTime, utcnow

KEEP = dt.timedelta(days=2)  # platforms stop redelivering long before this
PRUNE_EVERY = 1000


class DeliveryRow(SQLModel, table=True):
    __tablename__ = "deliveries"

    platform: str = Field(sa_column=Column(String(16), primary_key=True))
    delivery_id: str = Field(sa_column=Column(String(128), primary_key=True))
    seen_at: dt.datetime = Field(
        default_factory=utcnow, sa_column=Column(UtcDateTime, nullable=False, index=True)
    )


_TABLE = DeliveryRow.__table__  # type: ignore[attr-defined]


class SqlDeliveryLog:
    def __init__(self, engine: Engine, *, clock: Callable[[], dt.datetime] = utcnow,
                 keep: dt.timedelta = KEEP) -> None:
        self._engine = engine
        self._clock = clock
        self._keep = keep
        self._since_prune = 0
        dialect = engine.dialect.name
        insert = sqlite.insert if dialect == "sqlite" else postgresql.insert
        # RETURNING, not rowcount: psycopg reports rowcount -1 for this statement, which
        # made every delivery look like a redelivery on PostgreSQL
        self._claim = insert(_TABLE).on_conflict_do_nothing(
            index_elements=["platform", "delivery_id"]).returning(_TABLE.c.delivery_id)
        try:
            _TABLE.create(engine, checkfirst=True)
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot create the delivery log: {exc.__class__.__name__}") from exc

    def first_time(self, platform: str, delivery_id: str | int) -> bool:
        """True exactly once per (platform, delivery id): the caller that gets True handles it."""
        try:
            with self._engine.begin() as conn:
                return self.claim(conn, platform, delivery_id)
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot log a delivery: {exc.__class__.__name__}") from exc

    def claim(self, conn: Connection, platform: str, delivery_id: str | int) -> bool:
        """`first_time` inside the caller's transaction (the inbox stores the delivery in the
        same commit that claims it)."""
        params = {"platform": platform, "delivery_id": str(delivery_id), "seen_at": self._clock()}
        claimed = conn.execute(self._claim, params).first() is not None
        self._since_prune += 1
        if self._since_prune >= PRUNE_EVERY:
            self._since_prune = 0
            conn.execute(delete(_TABLE).where(_TABLE.c.seen_at < params["seen_at"] - self._keep))
        return claimed
