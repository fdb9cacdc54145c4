"""`core.nightly.maintenance.MaintenanceStore` on SQLite or PostgreSQL.

Scans read only the columns the rules need (never the embeddings), streamed. Removals go in
batches, each one transaction that deletes, writes `maintenance_log` and adds inherited uses to
the heir executor, so the log and the data never disagree. An L0 entry is deleted only if its
row is the version that was read (same revision and use count): one rewritten or used while
maintenance ran is kept. Deletions follow the fastpath generation protocol
(storage.fastpath_tables): the generation row's revision and deletion counters move in the same
transaction, so every replica's cosine index drops what is gone.
"""

from __future__ import annotations

import datetime as dt
import json
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from sqlalchemy import Text, bindparam, cast, delete, select, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from core.contracts.errors import StorageError
from core.contracts.maintenance import (
    AUTOPATH,
    FASTPATH,
    AutopathSummary,
    EntrySummary,
    Removal,
)
from storage.autopath_tables import AutopathRow
from storage.fastpath_tables import FastpathGenerationRow, FastpathRow
from storage.maintenance_tables import ExecutorRow, MaintenanceLogRow, MaintenanceRunRow

_FP = FastpathRow.__table__  # type: ignore[attr-defined]
_GEN = FastpathGenerationRow.__table__  # type: ignore[attr-defined]
_AP = AutopathRow.__table__  # type: ignore[attr-defined]
_LOG = MaintenanceLogRow.__table__  # type: ignore[attr-defined]
_RUNS = MaintenanceRunRow.__table__  # type: ignore[attr-defined]
_EXEC = ExecutorRow.__table__  # type: ignore[attr-defined]
_BATCH = 1000  # ids per statement
_PER_TRANSACTION = 20_000  # few commits: on SQLite each may checkpoint the WAL
_SCAN = select(
    _FP.c.id,
    _FP.c.canonical_hash,
    _FP.c.canonical_text,
    _FP.c.framework_hash,
    _FP.c.intent,
    _FP.c.route,
    cast(_FP.c.plan, Text).label("plan"),  # parsed once per distinct plan
    _FP.c.query_specific,
    _FP.c.created_at,
    _FP.c.last_used_at,
    _FP.c.n_uses,
    _FP.c.revision,
    _FP.c.restricted,
).order_by(_FP.c.id)
_LOCK_ROWS = (  # rows locked to commit on PostgreSQL; SQLite holds the write lock already
    select(_FP.c.id, _FP.c.revision, _FP.c.n_uses)
    .where(_FP.c.id.in_(bindparam("ids", expanding=True)))
    .with_for_update()
)
_DELETE_IDS = (
    delete(_FP).where(_FP.c.id.in_(bindparam("ids", expanding=True))).returning(_FP.c.id)
)
_BUMP_DELETE = (
    update(_GEN)
    .where(_GEN.c.id == 1)
    .values(revision=_GEN.c.revision + 1, deletions=_GEN.c.deletions + 1)
)


class SqlMaintenanceStore:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def scan_fastpaths(self) -> Iterator[EntrySummary]:
        rows = self._read(_SCAN)
        plans: dict[str, dict[str, Any]] = {}  # the planner emits few distinct plans
        for r in rows:
            plan = plans.get(r.plan)
            if plan is None:
                parsed = json.loads(r.plan) if r.plan else {}
                plan = plans[r.plan] = parsed if isinstance(parsed, dict) else {}
            yield EntrySummary(
                id=r.id,
                canonical_hash=r.canonical_hash,
                canonical_text=r.canonical_text,
                framework_hash=r.framework_hash,
                intent=r.intent,
                route=r.route,
                plan=plan,
                query_specific=bool(r.query_specific),
                created_at=r.created_at,
                last_used_at=r.last_used_at,
                n_uses=int(r.n_uses),
                revision=int(r.revision),
                restricted=bool(r.restricted),
            )

    def scan_autopaths(self) -> Iterator[AutopathSummary]:
        query = select(
            _AP.c.id, _AP.c.cluster_id, _AP.c.status, _AP.c.created_at, _AP.c.updated_at,
            _AP.c.promoted_at, _AP.c.last_used_at, _AP.c.demoted_at,
        ).where(_AP.c.status.in_(("active", "demoted")))
        for r in self._read(query):
            yield AutopathSummary(
                r.id, r.cluster_id, r.status, r.created_at, r.updated_at, r.promoted_at,
                r.last_used_at, r.demoted_at,
            )

    def remove(self, removals: list[Removal], *, run_id: str, at: dt.datetime) -> list[Removal]:
        fastpaths = [r for r in removals if r.kind == FASTPATH]
        autopaths = [r for r in removals if r.kind == AUTOPATH]
        done: list[Removal] = []
        try:
            for start in range(0, len(fastpaths), _PER_TRANSACTION):
                with self._engine.begin() as conn:
                    done += self._remove_fastpaths(
                        conn, fastpaths[start : start + _PER_TRANSACTION], run_id, at
                    )
            if autopaths:
                with self._engine.begin() as conn:
                    done += self._remove_autopaths(conn, autopaths, run_id, at)
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot remove cached plans: {exc.__class__.__name__}") from exc
        return done

    def night_done(self, night: str) -> bool:
        return bool(self._read(select(_RUNS.c.night).where(_RUNS.c.night == night)))

    def mark_night(
        self, night: str, *, run_id: str, at: dt.datetime, summary: dict[str, Any]
    ) -> bool:
        row = {"night": night, "run_id": run_id, "finished_at": at, "summary": summary}
        try:
            with self._engine.begin() as conn:
                conn.execute(_RUNS.insert(), row)
        except IntegrityError:
            return False
        except SQLAlchemyError as exc:
            what = f"cannot record the maintenance run: {exc.__class__.__name__}"
            raise StorageError(what) from exc
        return True

    def log(self, run_id: str | None = None, limit: int = 100) -> list[Any]:
        """The newest log rows (of one run when given), for admins and tests."""
        query = select(_LOG).order_by(_LOG.c.id.desc()).limit(limit)
        if run_id is not None:
            query = query.where(_LOG.c.run_id == run_id)
        return self._read(query)

    # -- internals ------------------------------------------------------------------------------

    def _remove_fastpaths(
        self, conn: Connection, batch: list[Removal], run_id: str, at: dt.datetime
    ) -> list[Removal]:
        if conn.execute(_BUMP_DELETE).rowcount == 0:
            conn.execute(_GEN.insert().values(id=1, revision=1, deletions=1))
        expected = {r.entry_id: (r.revision, r.uses) for r in batch}
        ids = list(expected)
        deleted: set[str] = set()
        for start in range(0, len(ids), _BATCH):
            current = conn.execute(_LOCK_ROWS, {"ids": ids[start : start + _BATCH]})
            unchanged = [i for i, rev, uses in current if expected[i] == (int(rev), int(uses))]
            if unchanged:
                deleted.update(conn.execute(_DELETE_IDS, {"ids": unchanged}).scalars())
        done = [r for r in batch if r.entry_id in deleted]
        self._log(conn, done, run_id, at)
        inherited: dict[str, int] = defaultdict(int)
        for r in done:
            if r.heir is not None:
                inherited[r.heir] += r.uses
        for heir, uses in sorted(inherited.items()):
            conn.execute(
                update(_EXEC)
                .where(_EXEC.c.name == heir)
                .values(inherited_uses=_EXEC.c.inherited_uses + uses)
            )
        return done

    def _remove_autopaths(
        self, conn: Connection, batch: list[Removal], run_id: str, at: dt.datetime
    ) -> list[Removal]:
        ids = [int(r.entry_id) for r in batch]
        deleted = set(
            conn.execute(delete(_AP).where(_AP.c.id.in_(ids)).returning(_AP.c.id)).scalars()
        )
        done = [r for r in batch if int(r.entry_id) in deleted]
        self._log(conn, done, run_id, at)
        return done

    @staticmethod
    def _log(conn: Connection, done: list[Removal], run_id: str, at: dt.datetime) -> None:
        if done:
            conn.execute(
                _LOG.insert(),
                [
                    {
                        "run_id": run_id,
                        "kind": r.kind,
                        "entry_id": r.entry_id,
                        "rule": r.rule,
                        "detail": r.detail[:500],
                        "uses": r.uses,
                        "heir": r.heir,
                        "at": at,
                    }
                    for r in done
                ],
            )

    def _read(self, query: Any) -> list[Any]:
        try:
            with self._engine.connect() as conn:
                return list(conn.execute(query))
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot read for maintenance: {exc.__class__.__name__}") from exc
