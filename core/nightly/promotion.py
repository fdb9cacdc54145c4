"""Promotion of recurring multi-step plans to named composite executors (design section 4.4).

Nightly, each group of L0 entries over the floor (core.nightly.maintenance_rules.promotion_groups)
becomes a tier-1 *proposal*, once: the `proposals` row outlives its decision, so an approved or
rejected group is never proposed again. An admin approves (the macro enters the catalog, the
entries it replaces are recorded in `promotions`) or rejects. Tier 2 (off by default) approves
automatically a proposal whose group stayed over a much higher floor on `tier2_nights` nights,
at most one per night.

This is the platform-neutral service the CLI and the chat admin commands call; every method
returns or carries the sentence to show.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from core.catalog.lookup import say
from core.contracts.composites import CompositeSpec
from core.contracts.learning_ports import PromotionStore as PromotionStore
from core.contracts.promotion import (
    APPROVED,
    AUTO,
    PENDING,
    REJECTED,
    ExecutorView,
    ProposalView,
)
from core.knowledge.clearance import RESTRICTED_PROPOSAL
from core.nightly.maintenance_rules import (
    Group,
    PromotionPolicy,
    meets_tier2,
    plan_tools,
    promotion_groups,
)
from core.planning.catalog import Catalog, macro_name, valid_name

log = logging.getLogger("ricorda.promotion")

@dataclass
class PromotionNote:
    """What tonight did with one group: proposed, would propose, seen again, auto-approved."""

    action: str
    proposal_id: int | None
    intent: str
    framework_hash: str
    entries: int
    uses: int
    oldest_days: int
    tools: list[str] = field(default_factory=list)
    executor: str | None = None

    def line(self) -> str:
        ref = f"#{self.proposal_id} " if self.proposal_id is not None else ""
        extra = f" -> executor {self.executor}" if self.executor else ""
        return (
            f"{self.action} {ref}{self.intent} [{' > '.join(self.tools)}]: {self.entries} "
            f"entries, {self.uses} uses, oldest {self.oldest_days} days{extra}"
        )


class Promotions:
    def __init__(
        self,
        store: PromotionStore,
        *,
        catalog: Catalog,
        policy: PromotionPolicy,
        clock: Callable[[], dt.datetime],
        night_of: Callable[[dt.datetime], str] = lambda t: t.date().isoformat(),
    ) -> None:
        self.store = store
        self.catalog = catalog
        self.policy = policy
        self.clock = clock
        self.night_of = night_of

    # -- nightly ----------------------------------------------------------------------------

    def nightly(
        self, groups: list[Group], *, now: dt.datetime, night: str, dry_run: bool
    ) -> list[PromotionNote]:
        """Propose new groups, count tier-2 nights on pending ones, auto-approve one (tier 2)."""
        notes: list[PromotionNote] = []
        ready: list[tuple[ProposalView, Group]] = []
        for group in groups:
            tier2 = meets_tier2(group, now, self.policy)
            existing = self.store.proposal_for(group.framework_hash, group.intent)
            if existing is None:
                proposal = _proposal(group, night, tier2)
                if not dry_run:
                    proposal = self.store.add_proposal(proposal)
                notes.append(self._note("would propose" if dry_run else "proposed", proposal,
                                        group, now))
                existing = proposal
            elif existing.status == PENDING and existing.last_seen_night != night:
                existing = replace(
                    _proposal(group, night, tier2),
                    id=existing.id,
                    status=PENDING,
                    tier2_nights=existing.tier2_nights + (1 if tier2 else 0),
                    created_at=existing.created_at,
                )
                if not dry_run:
                    self.store.update_proposal(existing)
            if (
                existing.status == PENDING
                and tier2
                and existing.tier2_nights >= self.policy.tier2_nights
            ):
                ready.append((existing, group))
        if self.policy.tier2 and ready and not self.store.auto_approved_on(night):
            proposal, group = ready[0]  # groups come most used first
            if dry_run:
                notes.append(self._note("would auto-approve", proposal, group, now))
            elif proposal.id is not None:
                message, name = self._approve(proposal.id, by=AUTO, name=None, now=now, night=night)
                log.info("tier 2: %s", message)
                if name is not None:
                    notes.append(self._note("auto-approved", proposal, group, now, name))
        return notes

    # -- admin ------------------------------------------------------------------------------

    def list_proposals(self, status: str | None = PENDING) -> list[ProposalView]:
        return self.store.proposals(status)

    def approve(self, proposal_id: int, *, by: str, name: str | None = None,
                language: str = "en") -> str:
        """The reply in `language` (the admin's; the CLI's is English)."""
        now = self.clock()
        message, _ = self._approve(proposal_id, by=by, name=name, now=now,
                                   night=self.night_of(now), language=language)
        return message

    def reject(self, proposal_id: int, *, by: str, language: str = "en") -> str:
        proposal = self.store.proposal(proposal_id)
        if proposal is None:
            return say("no_proposal", language, id=proposal_id)
        if proposal.status != PENDING:
            return say("proposal_already", language, id=proposal_id, status=proposal.status)
        now = self.clock()
        if not self.store.reject(proposal_id, by=by, at=now, night=self.night_of(now)):
            return say("proposal_meanwhile", language, id=proposal_id)
        return say("proposal_rejected", language, id=proposal_id, intent=proposal.intent)

    def retire(self, name: str, *, by: str, language: str = "en") -> str:
        executor = self.store.executor_named(name)
        if executor is None:
            return say("no_executor", language, name=repr(name))
        if executor.status != "active":
            return say("executor_already", language, name=name, status=executor.status)
        self.store.retire(name, by=by, at=self.clock())
        self.catalog.reload()
        return say("executor_retired", language, name=name)

    # -- text shared by every admin surface --------------------------------------------------

    def proposals_text(self, status: str | None = PENDING, *, cleared: bool = False,
                       language: str = "en") -> str:
        """`cleared`: the viewer may see what a proposal grouped from cleared chats is about;
        others see RESTRICTED_PROPOSAL with its id, tools and counts."""
        proposals = self.list_proposals(status)
        if not proposals:
            return say("no_pending_proposals" if status == PENDING else "no_proposals", language)
        now = self.clock()
        lines = [say("proposals_head", language, n=len(proposals))]
        for p in proposals:
            days = (now - p.oldest_at).days
            lines.append(
                f"#{p.id} {p.status} "
                f"{RESTRICTED_PROPOSAL if p.restricted and not cleared else p.intent} "
                f"[{' > '.join(plan_tools(p.plan))}]: {p.entries} entries, "
                f"{p.uses} uses, oldest {days} days"
                + (f" -> {p.executor_name}" if p.executor_name else "")
            )
        if status == PENDING:
            lines.append(say("proposals_hint", language))
        return "\n".join(lines)

    def executors_text(self, language: str = "en") -> str:
        rows = self.store.executors()
        if not rows:
            return say("no_executors", language)
        lines = [say("executors_head", language)]
        for e in rows:
            lines.append(
                f"{e.name} {e.status} inherited_uses={e.inherited_uses} "
                f"[{' > '.join(str(s.get('tool')) for s in e.steps)}] by {e.approved_by}"
            )
        return "\n".join(lines)

    # -- internals ----------------------------------------------------------------------------

    def _approve(
        self, proposal_id: int, *, by: str, name: str | None, now: dt.datetime, night: str,
        language: str = "en",
    ) -> tuple[str, str | None]:
        proposal = self.store.proposal(proposal_id)
        if proposal is None:
            return say("no_proposal", language, id=proposal_id), None
        if proposal.status != PENDING:
            return say("proposal_already", language, id=proposal_id,
                       status=proposal.status), None
        name = (name or macro_name(proposal.intent, proposal.framework_hash)).strip()
        if not valid_name(name):
            return say("executor_name_invalid", language, name=repr(name)), None
        if name in self.catalog.builtin_names or self.store.executor_named(name) is not None:
            return say("executor_exists", language, name=name), None
        plan = proposal.plan
        spec = CompositeSpec(
            name=name,
            route=proposal.route,
            steps=list(plan.get("steps", [])),
            intent=proposal.intent,
            framework_hash=proposal.framework_hash,
            shape=dict(plan.get("shape", {})),
            assumed=list(plan.get("assumed", [])),
        )
        members = dict(proposal.members)
        members.update(self.store.group_members(proposal.framework_hash, proposal.intent))
        if not self.store.approve(
            proposal_id, spec, sorted(members.items()), by=by, at=now, night=night
        ):
            return say("proposal_meanwhile", language, id=proposal_id), None
        self.catalog.reload()
        return say("proposal_approved", language, id=proposal_id, name=name,
                   intent=proposal.intent, n=len(members)), name

    def _note(
        self, action: str, proposal: ProposalView, group: Group, now: dt.datetime,
        executor: str | None = None,
    ) -> PromotionNote:
        return PromotionNote(
            action=action,
            proposal_id=proposal.id,
            intent=group.intent,
            framework_hash=group.framework_hash,
            entries=len(group.members),
            uses=group.uses,
            oldest_days=(now - group.oldest_at).days,
            tools=plan_tools(proposal.plan),
            executor=executor,
        )


def _proposal(group: Group, night: str, tier2: bool) -> ProposalView:
    rep = group.representative
    return ProposalView(
        id=None,
        framework_hash=group.framework_hash,
        intent=group.intent,
        route=rep.route,
        plan=dict(rep.plan),
        members=sorted((m.id, m.canonical_hash) for m in group.members),
        entries=len(group.members),
        uses=group.uses,
        oldest_at=group.oldest_at,
        tier2_nights=1 if tier2 else 0,
        last_seen_night=night,
        restricted=any(m.restricted for m in group.members),
    )


__all__ = [
    "APPROVED",
    "AUTO",
    "PENDING",
    "REJECTED",
    "ExecutorView",
    "PromotionNote",
    "PromotionStore",
    "Promotions",
    "ProposalView",
    "promotion_groups",
]
