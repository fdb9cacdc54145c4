"""Each user counts once per plan in L1: one person cannot block, or promote, a plan for
everyone by voting on their own turns. Real stores on SQLite and PostgreSQL, through the
feedback API every adapter calls.
"""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest
from sqlalchemy.engine import Engine

from core.contracts.ports import TurnRecord
from core.fastpath.autopath import Autopaths
from core.fastpath.feedback import Feedback
from core.fastpath.thresholds import CosineThresholds
from storage.autopath_store import SqlAutopathStore
from storage.fastpath_store import SqlFastpathStore
from storage.turn_store import SqlTurnStore

T0 = dt.datetime(2026, 1, 5, 9, 0, tzinfo=dt.UTC)
PLAN = {"route": "structured", "steps": [{"tool": "query_metric", "args": {"m": "${metric}"}}]}
E0 = np.eye(4)[0]


def build(engine: Engine, **options: object) -> tuple[Feedback, Autopaths, SqlTurnStore]:
    turns = SqlTurnStore(engine)
    autopaths = Autopaths(
        SqlAutopathStore(engine),
        thresholds=CosineThresholds(l0=0.95, cluster=0.9, floor=0.8),
        clock=lambda: T0,
        **options,  # type: ignore[arg-type]
    )
    feedback = Feedback(
        turns=turns, fastpaths=SqlFastpathStore(engine), autopaths=autopaths, clock=lambda: T0
    )
    return feedback, autopaths, turns


@pytest.fixture
def parts(engine: Engine) -> tuple[Feedback, Autopaths, SqlTurnStore]:
    return build(engine, demotion_floor=0.0)


def answered(autopaths: Autopaths, turns: SqlTurnStore, turn_id: str, user: str) -> str:
    """A turn asked by `user`, recorded and observed like the cascade does."""
    turns.record_turn(
        TurnRecord(
            id=turn_id, chat=f"telegram:{user}", user=user, question="What was revenue in 2024?",
            language="en", route="structured", served_by="planner", plan=PLAN, answer_text="1",
            options=[], fixed_slots={}, latency_ms=1.0,
        )
    )  # fmt: skip
    autopaths.observe(
        turn_id=turn_id, intent="structured:revenue", intent_hash="i-revenue", embedding=E0,
        framework_hash="f-metric", plan=PLAN, query_specific=False, latency_ms=1.0,
    )  # fmt: skip
    return turn_id


def test_one_user_rejecting_their_own_turns_three_times_blocks_nothing(parts) -> None:
    feedback, autopaths, turns = parts
    for n in range(3):
        feedback.record(answered(autopaths, turns, f"t{n}", "mallory"), "mallory", "negative",
                        via="reaction")  # fmt: skip
    assert autopaths.anti_autopaths() == []


def test_three_users_rejecting_block_the_plan(parts) -> None:
    feedback, autopaths, turns = parts
    for n, user in enumerate(("ann", "bob", "cy")):
        feedback.record(answered(autopaths, turns, f"t{n}", user), user, "negative", via="reaction")
    [block] = autopaths.anti_autopaths()
    assert block.failures == 3


def test_a_withdrawn_vote_counts_again_only_once_the_users_last_one_goes(parts) -> None:
    feedback, autopaths, turns = parts
    for n in range(2):
        feedback.record(answered(autopaths, turns, f"m{n}", "mallory"), "mallory", "negative",
                        via="reaction")  # fmt: skip
    for n, user in enumerate(("ann", "bob")):
        feedback.record(answered(autopaths, turns, f"t{n}", user), user, "negative", via="reaction")
    assert [b.failures for b in autopaths.anti_autopaths()] == [3]  # mallory, ann, bob
    feedback.withdraw("m0", "mallory")  # her other ✗ still stands: still three users
    assert [b.failures for b in autopaths.anti_autopaths()] == [3]
    feedback.withdraw("m1", "mallory")
    assert autopaths.anti_autopaths() == []


def test_one_users_confirmations_count_once_towards_promotion(engine: Engine) -> None:
    feedback, autopaths, turns = build(engine, min_confirmations=2)
    for n in range(3):
        feedback.record(answered(autopaths, turns, f"m{n}", "mallory"), "mallory", "positive",
                        via="reaction")  # fmt: skip
    assert autopaths.lookup(embedding=E0, intent_hash="i-revenue") is None  # one person
    feedback.record(answered(autopaths, turns, "a0", "ann"), "ann", "positive", via="reaction")
    assert autopaths.lookup(embedding=E0, intent_hash="i-revenue") is not None
