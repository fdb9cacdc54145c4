"""`core.nightly.promotion.PromotionStore` on SQLite or PostgreSQL: proposals, composite executors
and
their provenance (`promotions`).

Approval is one transaction that moves the proposal from pending (a conditional UPDATE, so two
admins approving at once end with one executor), inserts the executor and its provenance rows.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import and_, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from core.contracts.composites import CompositeSpec
from core.contracts.errors import StorageError
from core.contracts.maintenance import Provenance
from core.contracts.promotion import APPROVED, AUTO, PENDING, REJECTED, ExecutorView, ProposalView
from storage.composite_reader import ACTIVE, read_composites
from storage.fastpath_tables import FastpathRow
from storage.maintenance_tables import ExecutorRow, PromotionRow, ProposalRow

_P = ProposalRow.__table__  # type: ignore[attr-defined]
_E = ExecutorRow.__table__  # type: ignore[attr-defined]
_PR = PromotionRow.__table__  # type: ignore[attr-defined]
_FP = FastpathRow.__table__  # type: ignore[attr-defined]
RETIRED = "retired"


class SqlPromotionStore:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    # -- proposals ------------------------------------------------------------------------------

    def proposal_for(self, framework_hash: str, intent: str) -> ProposalView | None:
        rows = self._read(
            select(_P).where(_P.c.framework_hash == framework_hash, _P.c.intent == intent)
        )
        return _proposal(rows[0]) if rows else None

    def proposal(self, proposal_id: int) -> ProposalView | None:
        rows = self._read(select(_P).where(_P.c.id == proposal_id))
        return _proposal(rows[0]) if rows else None

    def proposals(self, status: str | None = None) -> list[ProposalView]:
        query = select(_P).order_by(_P.c.id)
        if status is not None:
            query = query.where(_P.c.status == status)
        return [_proposal(r) for r in self._read(query)]

    def add_proposal(self, proposal: ProposalView) -> ProposalView:
        values = _proposal_values(proposal)
        values["created_at"] = proposal.created_at or proposal.oldest_at
        try:
            with self._engine.begin() as conn:
                new_id = conn.execute(_P.insert().values(values).returning(_P.c.id)).scalar_one()
        except IntegrityError:  # another replica proposed it first
            existing = self.proposal_for(proposal.framework_hash, proposal.intent)
            if existing is None:
                raise StorageError("cannot store the proposal") from None
            return existing
        except SQLAlchemyError as exc:
            raise _error("cannot store the proposal", exc) from exc
        return self.proposal(int(new_id)) or proposal

    def update_proposal(self, proposal: ProposalView) -> None:
        values = _proposal_values(proposal)
        self._write(
            update(_P).where(_P.c.id == proposal.id, _P.c.status == PENDING).values(values),
            "cannot update the proposal",
        )

    def group_members(self, framework_hash: str, intent: str) -> list[tuple[str, str]]:
        query = select(_FP.c.id, _FP.c.canonical_hash).where(
            _FP.c.framework_hash == framework_hash,
            _FP.c.intent == intent,
            _FP.c.query_specific.is_(False),
        )
        return [(r.id, r.canonical_hash) for r in self._read(query)]

    def approve(
        self, proposal_id: int, spec: CompositeSpec, members: list[tuple[str, str]], *,
        by: str, at: dt.datetime, night: str,
    ) -> bool:
        decide = (
            update(_P)
            .where(_P.c.id == proposal_id, _P.c.status == PENDING)
            .values(status=APPROVED, decided_at=at, decided_by=by, decided_night=night,
                    executor_name=spec.name)
        )
        executor = {
            "name": spec.name, "route": spec.route, "steps": spec.steps, "shape": spec.shape,
            "assumed": spec.assumed, "intent": spec.intent, "framework_hash": spec.framework_hash,
            "proposal_id": proposal_id, "status": ACTIVE, "inherited_uses": 0,
            "approved_by": by, "created_at": at,
        }
        links = [
            {"executor_name": spec.name, "fastpath_id": fid, "canonical_hash": h,
             "framework_hash": spec.framework_hash, "created_at": at}
            for fid, h in members
        ]
        try:
            with self._engine.begin() as conn:
                if conn.execute(decide).rowcount != 1:
                    return False
                conn.execute(_E.insert(), executor)
                if links:
                    conn.execute(_PR.insert(), links)
        except SQLAlchemyError as exc:
            raise _error("cannot approve the proposal", exc) from exc
        return True

    def reject(self, proposal_id: int, *, by: str, at: dt.datetime, night: str) -> bool:
        stmt = (
            update(_P)
            .where(_P.c.id == proposal_id, _P.c.status == PENDING)
            .values(status=REJECTED, decided_at=at, decided_by=by, decided_night=night)
        )
        return self._write(stmt, "cannot reject the proposal") == 1

    def auto_approved_on(self, night: str) -> bool:
        query = select(_P.c.id).where(_P.c.decided_by == AUTO, _P.c.decided_night == night)
        return bool(self._read(query.limit(1)))

    # -- executors ------------------------------------------------------------------------------

    def executor_named(self, name: str) -> ExecutorView | None:
        rows = self._read(select(_E).where(_E.c.name == name))
        return _executor(rows[0]) if rows else None

    def executors(self) -> list[ExecutorView]:
        return [_executor(r) for r in self._read(select(_E).order_by(_E.c.created_at, _E.c.name))]

    def composites(self) -> list[CompositeSpec]:
        return read_composites(self._engine)  # the catalog's reader: one query for both

    def retire(self, name: str, *, by: str, at: dt.datetime) -> bool:
        stmt = (
            update(_E)
            .where(_E.c.name == name, _E.c.status == ACTIVE)
            .values(status=RETIRED, retired_at=at, retired_by=by)
        )
        return self._write(stmt, "cannot retire the executor") == 1

    def provenance(self) -> list[Provenance]:
        query = (
            select(_PR.c.executor_name, _PR.c.fastpath_id, _PR.c.canonical_hash,
                   _PR.c.framework_hash)
            .select_from(_PR.join(_E, and_(_E.c.name == _PR.c.executor_name)))
            .where(_E.c.status == ACTIVE)
            .order_by(_PR.c.id)
        )
        return [Provenance(*r) for r in self._read(query)]

    # -- helpers --------------------------------------------------------------------------------

    def _read(self, query: Any) -> list[Any]:
        try:
            with self._engine.connect() as conn:
                return list(conn.execute(query))
        except SQLAlchemyError as exc:
            raise _error("cannot read proposals", exc) from exc

    def _write(self, stmt: Any, what: str) -> int:
        try:
            with self._engine.begin() as conn:
                return int(conn.execute(stmt).rowcount)
        except SQLAlchemyError as exc:
            raise _error(what, exc) from exc


def _proposal_values(p: ProposalView) -> dict[str, Any]:
    return {
        "framework_hash": p.framework_hash,
        "intent": p.intent,
        "route": p.route,
        "plan": p.plan,
        "members": [list(m) for m in p.members],
        "entries": p.entries,
        "uses": p.uses,
        "oldest_at": p.oldest_at,
        "status": p.status,
        "tier2_nights": p.tier2_nights,
        "last_seen_night": p.last_seen_night,
        "restricted": p.restricted,
    }


def _proposal(r: Any) -> ProposalView:
    return ProposalView(
        id=r.id, framework_hash=r.framework_hash, intent=r.intent, route=r.route,
        plan=dict(r.plan), members=[(m[0], m[1]) for m in r.members], entries=r.entries,
        uses=r.uses, oldest_at=r.oldest_at, status=r.status, tier2_nights=r.tier2_nights,
        last_seen_night=r.last_seen_night, created_at=r.created_at, decided_at=r.decided_at,
        decided_by=r.decided_by, decided_night=r.decided_night, executor_name=r.executor_name,
        restricted=bool(r.restricted),
    )


def _executor(r: Any) -> ExecutorView:
    return ExecutorView(
        name=r.name, intent=r.intent, steps=list(r.steps), status=r.status,
        inherited_uses=int(r.inherited_uses), approved_by=r.approved_by,
        created_at=r.created_at, retired_at=r.retired_at,
    )


def _error(what: str, exc: SQLAlchemyError) -> StorageError:
    return StorageError(f"{what}: {exc.__class__.__name__}")
