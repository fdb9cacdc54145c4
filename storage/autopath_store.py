"""`AutopathStore` on SQLite or PostgreSQL: observations, autopaths and anti-autopaths.

Verdicts change several rows at once (the observation's counts, the autopath, the anti-autopath
counters), so `core.fastpath.autopath` does that inside `transaction()`; rows read there are locked
on
PostgreSQL (SELECT .. FOR UPDATE), and SQLite serialises writers. Every SQLAlchemy failure
becomes a StorageError with the cause chained.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from sqlalchemy import and_, delete, func, select, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from core.contracts.autopaths import AntiView, AutopathView, Observation
from core.contracts.errors import StorageError
from storage.autopath_tables import AntiAutopathRow, AutopathObservationRow, AutopathRow
from storage.embedding_blob import pack, unpack
from storage.engine import answer_path_writes
from storage.tables import FeedbackRow
from storage.upsert import upsert_statement

if TYPE_CHECKING:
    import numpy as np

_OBS = AutopathObservationRow.__table__  # type: ignore[attr-defined]
_PATHS = AutopathRow.__table__  # type: ignore[attr-defined]
_ANTI = AntiAutopathRow.__table__  # type: ignore[attr-defined]
_FEEDBACK = FeedbackRow.__table__  # type: ignore[attr-defined]
_PATH_FIELDS = (
    "cluster_id",
    "framework_hash",
    "intent_hash",
    "plan",
    "created_at",
    "updated_at",
    "confirmations",
    "failures",
    "uses",
    "failed_uses",
    "mean_latency_ms",
    "status",
    "promoted_at",
    "last_used_at",
    "demoted_at",
)
_ANTI_KEY = ("cluster_id", "intent_hash", "framework_hash")
_ANTI_FIELDS = (*_ANTI_KEY, "failures", "blocked_until", "updated_at")


class SqlAutopathStore:
    """The database behind `core.fastpath.autopath.Autopaths`."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._writes = answer_path_writes(engine)
        self._upsert_anti = upsert_statement(
            engine.dialect.name, _ANTI, _ANTI_KEY, ("failures", "blocked_until", "updated_at")
        )

    def add_observation(self, observation: Observation) -> bool:
        params = {
            "turn_id": observation.turn_id,
            "intent": observation.intent,
            "intent_hash": observation.intent_hash,
            "cluster_id": observation.cluster_id,
            "framework_hash": observation.framework_hash,
            "plan": observation.plan,
            "embedding": pack(observation.embedding),
            "query_specific": observation.query_specific,
            "latency_ms": observation.latency_ms,
            "positives": observation.positives,
            "negatives": observation.negatives,
            "created_at": observation.created_at,
            "restricted": observation.restricted,
        }
        try:
            with self._writes, self._engine.begin() as conn:
                conn.execute(_OBS.insert(), params)
        except IntegrityError:
            with self.transaction() as tx:  # a duplicate only if the turn is really there
                if tx.observation(observation.turn_id) is None:
                    raise StorageError(
                        f"cannot record the observation of turn {observation.turn_id}"
                    ) from None
            return False
        except SQLAlchemyError as exc:
            raise StorageError(
                f"cannot record the observation of turn {observation.turn_id}: "
                f"{exc.__class__.__name__}"
            ) from exc
        return True

    def recent_embeddings(self, per_cluster: int) -> list[tuple[str, np.ndarray]]:
        rank = (
            func.row_number()
            .over(
                partition_by=_OBS.c.cluster_id,
                order_by=(_OBS.c.created_at.desc(), _OBS.c.turn_id.desc()),
            )
            .label("rank")
        )
        ranked = select(
            _OBS.c.cluster_id, _OBS.c.embedding, _OBS.c.created_at, _OBS.c.turn_id, rank
        ).subquery()
        query = (
            select(ranked.c.cluster_id, ranked.c.embedding)
            .where(ranked.c.rank <= per_cluster)
            .order_by(ranked.c.created_at, ranked.c.turn_id)
        )
        return [(row.cluster_id, unpack(row.embedding)) for row in self._rows(query)]

    def intent_clusters(self) -> list[tuple[str, str]]:
        query = select(_OBS.c.intent_hash, _OBS.c.cluster_id).distinct()
        return [(row.intent_hash, row.cluster_id) for row in self._rows(query)]

    def cluster_state(self, cluster_id: str) -> tuple[list[AutopathView], list[AntiView]]:
        try:
            with self._engine.connect() as conn:
                paths = conn.execute(
                    select(_PATHS).where(_PATHS.c.cluster_id == cluster_id).order_by(_PATHS.c.id)
                )
                autopaths = [_autopath(row) for row in paths.mappings()]
                antis = conn.execute(
                    select(_ANTI)
                    .where(_ANTI.c.cluster_id == cluster_id)
                    .order_by(_ANTI.c.intent_hash, _ANTI.c.framework_hash)
                )
                return autopaths, [_anti(row) for row in antis.mappings()]
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot read autopaths: {exc.__class__.__name__}") from exc

    def purge_plans(self) -> tuple[int, int]:
        """Delete every autopath and every observation (the plans they were learned from), in
        one transaction; anti-autopaths stay. Returns (autopaths, observations) deleted."""
        try:
            with self._engine.begin() as conn:
                paths = conn.execute(delete(_PATHS)).rowcount or 0
                observations = conn.execute(delete(_OBS)).rowcount or 0
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot purge autopaths: {exc.__class__.__name__}") from exc
        return int(paths), int(observations)

    def autopaths(self) -> list[AutopathView]:
        query = select(_PATHS).order_by(_PATHS.c.cluster_id, _PATHS.c.id)
        return [_autopath(row) for row in self._rows(query, mappings=True)]

    def anti_autopaths(self) -> list[AntiView]:
        query = select(_ANTI).order_by(*(_ANTI.c[name] for name in _ANTI_KEY))
        return [_anti(row) for row in self._rows(query, mappings=True)]

    @contextmanager
    def transaction(self) -> Iterator[_SqlAutopathTransaction]:
        try:
            with self._engine.begin() as conn:
                yield _SqlAutopathTransaction(conn, self._upsert_anti)
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot update autopaths: {exc.__class__.__name__}") from exc

    def _rows(self, query: Any, *, mappings: bool = False) -> list[Any]:
        try:
            with self._engine.connect() as conn:
                result = conn.execute(query)
                return list(result.mappings() if mappings else result)
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot read autopaths: {exc.__class__.__name__}") from exc


class _SqlAutopathTransaction:
    """`core.fastpath.autopath.AutopathTransaction` over one open connection."""

    def __init__(self, conn: Connection, upsert_anti: Any) -> None:
        self._conn = conn
        self._upsert_anti = upsert_anti

    def observation(self, turn_id: str) -> Observation | None:
        query = select(_OBS).where(_OBS.c.turn_id == turn_id).with_for_update()
        row = self._conn.execute(query).mappings().first()
        return None if row is None else _observation(row)

    def set_verdict_counts(self, turn_id: str, *, positives: int, negatives: int) -> None:
        self._conn.execute(
            update(_OBS)
            .where(_OBS.c.turn_id == turn_id)
            .values(positives=positives, negatives=negatives)
        )

    def autopath(self, cluster_id: str, framework_hash: str) -> AutopathView | None:
        where = and_(_PATHS.c.cluster_id == cluster_id, _PATHS.c.framework_hash == framework_hash)
        return self._one_autopath(where)

    def autopath_by_id(self, autopath_id: int) -> AutopathView | None:
        return self._one_autopath(_PATHS.c.id == autopath_id)

    def save_autopath(self, autopath: AutopathView) -> AutopathView:
        values = {name: getattr(autopath, name) for name in _PATH_FIELDS}
        if autopath.id is None:
            result = self._conn.execute(_PATHS.insert().values(values).returning(_PATHS.c.id))
            return replace(autopath, id=int(result.scalar_one()))
        self._conn.execute(update(_PATHS).where(_PATHS.c.id == autopath.id).values(values))
        return autopath

    def antis(self, intent_hash: str, framework_hash: str) -> list[AntiView]:
        query = (
            select(_ANTI)
            .where(_ANTI.c.intent_hash == intent_hash, _ANTI.c.framework_hash == framework_hash)
            .order_by(_ANTI.c.cluster_id)
            .with_for_update()
        )
        return [_anti(row) for row in self._conn.execute(query).mappings()]

    def save_anti(self, anti: AntiView) -> None:
        self._conn.execute(self._upsert_anti, {name: getattr(anti, name) for name in _ANTI_FIELDS})

    def delete_anti(self, cluster_id: str, intent_hash: str, framework_hash: str) -> None:
        self._conn.execute(
            delete(_ANTI).where(
                _ANTI.c.cluster_id == cluster_id,
                _ANTI.c.intent_hash == intent_hash,
                _ANTI.c.framework_hash == framework_hash,
            )
        )

    def other_verdicts(
        self,
        user: str,
        verdict: str,
        turn_id: str,
        *,
        framework_hash: str,
        cluster_id: str | None = None,
        intent_hash: str | None = None,
    ) -> int:
        where = [
            _FEEDBACK.c.user == user,
            _FEEDBACK.c.verdict == verdict,
            _FEEDBACK.c.turn_id != turn_id,
            _OBS.c.framework_hash == framework_hash,
        ]
        if cluster_id is not None:
            where.append(_OBS.c.cluster_id == cluster_id)
        if intent_hash is not None:
            where.append(_OBS.c.intent_hash == intent_hash)
        query = (
            select(func.count())
            .select_from(_FEEDBACK.join(_OBS, _OBS.c.turn_id == _FEEDBACK.c.turn_id))
            .where(*where)
        )
        return int(self._conn.execute(query).scalar_one())

    def _one_autopath(self, where: Any) -> AutopathView | None:
        row = self._conn.execute(select(_PATHS).where(where).with_for_update()).mappings().first()
        return None if row is None else _autopath(row)


def _observation(row: Any) -> Observation:
    return Observation(
        turn_id=row["turn_id"],
        intent=row["intent"],
        intent_hash=row["intent_hash"],
        cluster_id=row["cluster_id"],
        framework_hash=row["framework_hash"],
        plan=row["plan"],
        embedding=unpack(row["embedding"]),
        query_specific=bool(row["query_specific"]),
        latency_ms=float(row["latency_ms"]),
        created_at=row["created_at"],
        positives=row["positives"],
        negatives=row["negatives"],
        restricted=bool(row["restricted"]),
    )


def _autopath(row: Any) -> AutopathView:
    return AutopathView(id=row["id"], **{name: row[name] for name in _PATH_FIELDS})


def _anti(row: Any) -> AntiView:
    return AntiView(**{name: row[name] for name in _ANTI_FIELDS})
