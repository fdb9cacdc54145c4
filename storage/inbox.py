"""The delivery inbox: every platform delivery (a Telegram update, a Slack event) is stored here
before the platform is told it arrived, and removed once it has been handled.

A process that dies between receiving a question and answering it leaves its entry behind.
Each entry carries a lease (owner, expiry) that its process renews while it runs; an entry whose
lease ran out is taken over by whichever process (this one after a restart, or another replica)
sweeps first, atomically in the database, and handled again. The claim in the delivery log is
made in the same commit as the store, so a redelivered update is still dropped as a duplicate.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import Column, Integer, String, Text, and_, delete, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Field, SQLModel

from core.contracts.errors import StorageError
from storage.delivery_log import SqlDeliveryLog
from storage.tables import UtcDateTime, utcnow

LEASE = dt.timedelta(seconds=30)
MAX_ATTEMPTS = 3  # a delivery that took its handler down this often is dropped, not retried


class InboxRow(SQLModel, table=True):
    __tablename__ = "inbox"

    platform: str = Field(sa_column=Column(String(16), primary_key=True))
    delivery_id: str = Field(sa_column=Column(String(128), primary_key=True))
    payload: str = Field(sa_column=Column(Text, nullable=False))
    received_at: dt.datetime = Field(sa_column=Column(UtcDateTime, nullable=False))
    lease_owner: str = Field(sa_column=Column(String(128), nullable=False))
    lease_until: dt.datetime = Field(sa_column=Column(UtcDateTime, nullable=False, index=True))
    attempts: int = Field(default=1, sa_column=Column(Integer, nullable=False, default=1))


_TABLE = InboxRow.__table__  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Pending:
    """An entry taken over from a process that stopped renewing its lease."""

    delivery_id: str
    payload: str
    attempts: int


class SqlInbox:
    def __init__(self, engine: Engine, *, deliveries: SqlDeliveryLog | None = None,
                 lease: dt.timedelta = LEASE, clock: Callable[[], dt.datetime] = utcnow,
                 max_attempts: int = MAX_ATTEMPTS) -> None:
        self._engine = engine
        self._clock = clock
        self.lease = lease
        self.max_attempts = max_attempts
        self.deliveries = deliveries or SqlDeliveryLog(engine, clock=clock)
        try:
            _TABLE.create(engine, checkfirst=True)
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot create the inbox: {exc.__class__.__name__}") from exc

    def receive(self, platform: str, delivery_id: str | int, payload: str, *,
                owner: str) -> bool:
        """Claim the delivery and store it, leased to `owner`, in one commit. False for a
        delivery seen before (nothing stored: it is handled, or held by its first receiver)."""
        now = self._clock()
        try:
            with self._engine.begin() as conn:
                if not self.deliveries.claim(conn, platform, delivery_id):
                    return False
                conn.execute(_TABLE.insert().values(
                    platform=platform, delivery_id=str(delivery_id), payload=payload,
                    received_at=now, lease_owner=owner, lease_until=now + self.lease,
                    attempts=1))
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot store a delivery: {exc.__class__.__name__}") from exc
        return True

    def done(self, platform: str, delivery_id: str | int) -> None:
        """Handled: the entry (and the user's text in it) goes."""
        try:
            with self._engine.begin() as conn:
                conn.execute(delete(_TABLE).where(
                    _TABLE.c.platform == platform, _TABLE.c.delivery_id == str(delivery_id)))
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot mark a delivery done: {exc.__class__.__name__}") from exc

    def renew(self, platform: str, owner: str) -> int:
        """Extend every lease `owner` holds: it is alive and still working on them."""
        try:
            with self._engine.begin() as conn:
                result = conn.execute(update(_TABLE).where(
                    _TABLE.c.platform == platform, _TABLE.c.lease_owner == owner,
                ).values(lease_until=self._clock() + self.lease))
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot renew inbox leases: {exc.__class__.__name__}") from exc
        return int(result.rowcount or 0)

    def take_over(self, platform: str, owner: str) -> tuple[list[Pending], list[str]]:
        """Lease to `owner` every entry whose lease expired: (entries to handle again, ids
        dropped after `max_attempts`). One UPDATE per entry whose WHERE re-checks the expiry,
        so two replicas sweeping at once never both take the same entry."""
        now = self._clock()
        taken: list[Pending] = []
        dropped: list[str] = []
        key = (_TABLE.c.platform == platform)
        try:
            with self._engine.connect() as conn:
                expired = conn.execute(select(_TABLE.c.delivery_id).where(
                    key, _TABLE.c.lease_until < now).order_by(_TABLE.c.received_at)).all()
            for (delivery_id,) in expired:
                with self._engine.begin() as conn:
                    row = conn.execute(update(_TABLE).where(and_(
                        key, _TABLE.c.delivery_id == delivery_id, _TABLE.c.lease_until < now,
                    )).values(lease_owner=owner, lease_until=now + self.lease,
                              attempts=_TABLE.c.attempts + 1).returning(
                        _TABLE.c.payload, _TABLE.c.attempts)).first()
                    if row is None:
                        continue  # another process took it first
                    if row.attempts > self.max_attempts:
                        conn.execute(delete(_TABLE).where(
                            key, _TABLE.c.delivery_id == delivery_id))
                        dropped.append(delivery_id)
                        continue
                    taken.append(Pending(delivery_id, row.payload, row.attempts))
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot take over inbox entries: {exc.__class__.__name__}") from exc
        return taken, dropped

    def pending(self, platform: str) -> int:
        """Entries not handled yet (for tests and health)."""
        with self._engine.connect() as conn:
            return len(conn.execute(select(_TABLE.c.delivery_id).where(
                _TABLE.c.platform == platform)).all())
