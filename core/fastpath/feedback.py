"""Feedback on an answered turn: the platform-neutral API every adapter and the CLI call.

positive -> an L1 confirmation; negative -> the L0 entry for that turn's question is replaced by
a rejection marker (core.fastpath.rejections: the question is planned afresh at every level until a
positive verdict lifts it) and an L1 failure is recorded. Each user counts once per plan in L1
(core.fastpath.autopath). A user's changed verdict replaces the earlier one; withdrawing undoes it.
The
verdict is stored before anything else happens, so it is never lost to a later failure.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.contracts.deferred import Deferred, deferred
from core.contracts.learning_ports import FastpathStore
from core.contracts.ports import FeedbackTurns as FeedbackTurns  # declared with every storage port
from core.contracts.ports import TurnRecord
from core.fastpath.canonical import cache_key
from core.fastpath.rejections import lift_rejection, mark_rejected
from core.fastpath.verified import is_verified

if TYPE_CHECKING:
    from core.fastpath.autopath import Autopaths

log = logging.getLogger("ricorda.feedback")

POSITIVE, NEGATIVE = "positive", "negative"


@dataclass(frozen=True)
class FeedbackOutcome:
    applied: bool
    message: str
    removed_fastpath: bool = False


class Feedback:
    def __init__(
        self,
        *,
        turns: FeedbackTurns,
        fastpaths: FastpathStore,
        autopaths: Autopaths | Deferred[Autopaths] | None = None,
        observe: Callable[[TurnRecord], None] | None = None,
        on_feedback: Callable[[str], None] | None = None,
        clock: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC),
        is_admin: Callable[[str], bool] = lambda user: False,
    ) -> None:
        """`observe` makes sure the turn has its L1 observation before a verdict counts;
        `on_feedback` is told each applied verdict (metrics) and cannot break one;
        `autopaths` may be handed built or as a `Deferred`, built by the first verdict;
        `is_admin` says whose ✗ removes a verified answer (core.fastpath.verified)."""
        self.turns = turns
        self.fastpaths = fastpaths
        self.autopaths = deferred(autopaths)
        self.observe = observe
        self.on_feedback = on_feedback
        self.clock = clock
        self.is_admin = is_admin

    def record(self, turn_id: str, user: str, verdict: str, *, via: str) -> FeedbackOutcome:
        if verdict not in (POSITIVE, NEGATIVE):
            raise ValueError(f"verdict must be {POSITIVE!r} or {NEGATIVE!r}, not {verdict!r}")
        turn = self.turns.get_turn(turn_id)
        if turn is None:
            log.info("feedback for unknown turn %s ignored", turn_id)
            return FeedbackOutcome(False, f"no answer with id {turn_id}")
        previous = self.turns.set_feedback(turn_id, user, verdict, via)
        if previous == verdict:
            return FeedbackOutcome(True, "verdict unchanged")
        if previous is not None and self.autopaths is not None:
            self.autopaths.get().withdraw(turn_id, previous, user=user)
        if self.observe is not None:  # also writes what the learning writer still holds
            self.observe(turn)
        # after the writer's queue is written: a queued rewrite of this question's entry (an
        # embedding backfill) must not land over the marker
        removed = False
        canonical, key = cache_key(turn.question, turn.language, turn.fixed_slots)
        if verdict == NEGATIVE and is_verified(self.fastpaths.by_hash(key)) and not (
                self.is_admin(user)):
            # an admin vouched for it: recorded (the report shows it), the answer stays
            log.info("✗ on verified answer %s by a non-admin: recorded, kept", turn_id)
        elif verdict == NEGATIVE:
            # worked out afresh at every level until confirmed (core.fastpath.rejections)
            removed = mark_rejected(
                self.fastpaths, canonical, key, self.clock(), restricted=turn.restricted
            )
        else:
            lift_rejection(self.fastpaths, key)
        if self.autopaths is not None:
            if verdict == NEGATIVE:
                self.autopaths.get().reject(turn_id, user=user)
            else:
                self.autopaths.get().confirm(turn_id, user=user)
        log.info("feedback turn=%s verdict=%s via=%s removed_l0=%s", turn_id, verdict, via, removed)
        self._notify(verdict)
        return FeedbackOutcome(True, f"{verdict} feedback recorded", removed)

    def withdraw(self, turn_id: str, user: str) -> FeedbackOutcome:
        """A removed reaction: the user's verdict no longer counts."""
        if self.turns.get_turn(turn_id) is None:
            return FeedbackOutcome(False, f"no answer with id {turn_id}")
        previous = self.turns.withdraw_feedback(turn_id, user)
        if previous is not None and self.autopaths is not None:
            self.autopaths.get().withdraw(turn_id, previous, user=user)
        return FeedbackOutcome(
            previous is not None, "verdict withdrawn" if previous else "nothing to withdraw"
        )

    def _notify(self, verdict: str) -> None:
        if self.on_feedback is None:
            return
        try:
            self.on_feedback(verdict)
        except Exception:  # an observer's failure must never lose or undo a verdict
            log.exception("on_feedback observer failed; ignored")
