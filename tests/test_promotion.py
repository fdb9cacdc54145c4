"""Promotion of recurring multi-step plans (design 4.4) on SQLite and PostgreSQL: proposals,
approval changing what serves the next request, death with inheritance, rejection, tier 2,
retirement, and the admin commands. Time is injected."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from sqlalchemy.engine import Engine

from core.catalog.lookup import say
from core.chat.admin import Admin
from core.chat.admin_commands import run_admin_command
from core.contracts.maintenance import EntrySummary
from core.contracts.types import Answer, Request
from core.fastpath.plan_cache import PlanCache
from core.nightly.maintenance_rules import PromotionPolicy, promotion_groups
from core.pipeline.pipeline import Pipeline
from core.planning.answering import Answerer
from tests.acme import REF, MemoryFacts, read_acme_facts
from tests.maintenance_fixtures import NOW, Clock, Job, add_entry, make_job, two_years_plan

GROUP = [
    "ACME China revenue in FY2023 and FY2024",
    "ACME Hong Kong revenue in FY2024 and FY2025",
    "ACME group revenue in FY2023 and FY2025",
]


def add_group(job: Job, prefix: str, *, n: int, uses: list[int], intent: str,
              age_days: float = 31) -> list[Any]:
    return [
        add_entry(job.fastpaths, f"{prefix} {i}", age_days=age_days, used_days_ago=1,
                  uses=uses[i], plan=two_years_plan(intent))
        for i in range(n)
    ]


def summary(
    i: int, *, uses: int, age_days: float, steps: int = 2, qs: bool = False
) -> EntrySummary:
    plan = two_years_plan().to_dict()
    plan["steps"] = plan["steps"][:steps]
    return EntrySummary(
        id=f"e{i}", canonical_hash=f"h{i}", canonical_text=f"q{i}", framework_hash="f",
        intent="structured:REVENUE", route="structured", plan=plan, query_specific=qs,
        created_at=NOW - dt.timedelta(days=age_days), last_used_at=NOW, n_uses=uses,
    )


@pytest.mark.parametrize(
    ("case", "members", "qualifies"),
    [
        ("3 entries, 15 uses, 30 days", [(5, 30), (5, 1), (5, 1)], True),
        ("one use short", [(5, 31), (5, 1), (4, 1)], False),
        ("two entries only", [(10, 31), (10, 1)], False),
        ("oldest 29 days", [(5, 29), (5, 1), (5, 1)], False),
    ],
)
def test_the_promotion_floor(case: str, members: list[tuple[int, int]], qualifies: bool) -> None:
    entries = [summary(i, uses=u, age_days=a) for i, (u, a) in enumerate(members)]
    groups = promotion_groups(entries, now=NOW, policy=PromotionPolicy())
    assert bool(groups) is qualifies, case


def test_single_step_and_query_specific_plans_are_never_candidates() -> None:
    single = [summary(i, uses=10, age_days=40, steps=1) for i in range(4)]
    specific = [summary(i, uses=10, age_days=40, qs=True) for i in range(4)]
    for entries in (single, specific):
        assert promotion_groups(entries, now=NOW, policy=PromotionPolicy()) == []


def test_a_group_one_use_short_is_not_proposed(engine: Engine) -> None:
    job = make_job(engine)
    add_group(job, "revenue two years", n=3, uses=[5, 5, 4], intent="structured:REVENUE")
    report = job.maintenance.run()
    assert report.promotions == []
    assert job.promotion_store.proposals() == []


def test_a_qualifying_group_is_proposed_once(engine: Engine) -> None:
    job = make_job(engine)
    members = add_group(job, "revenue two years", n=3, uses=[5, 5, 5], intent="structured:REVENUE")

    first = job.maintenance.run_nightly()
    job.clock.advance(days=1)
    second = job.maintenance.run_nightly()

    assert [n.action for n in first.promotions] == ["proposed"]
    assert "proposed #" in first.text() and "15 uses" in first.text()
    assert second.ran and second.promotions == []
    (proposal,) = job.promotion_store.proposals()
    assert proposal.status == "pending"
    assert sorted(m[0] for m in proposal.members) == sorted(e.id for e in members)


def test_a_rejection_is_remembered(engine: Engine) -> None:
    job = make_job(engine)
    add_group(job, "revenue two years", n=3, uses=[5, 5, 5], intent="structured:REVENUE")
    job.maintenance.run()
    (proposal,) = job.promotions.list_proposals()

    assert "rejected" in job.promotions.reject(proposal.id, by="slack:U1")
    job.clock.advance(days=1)
    add_entry(job.fastpaths, "revenue two years 9", age_days=40, used_days_ago=1, uses=30,
              plan=two_years_plan())
    report = job.maintenance.run()

    assert report.promotions == []
    assert job.promotions.list_proposals() == []
    assert [p.status for p in job.promotion_store.proposals()] == ["rejected"]
    assert "already rejected" in job.promotions.approve(proposal.id, by="slack:U1")


def test_tier_two_approves_at_most_one_per_night(engine: Engine) -> None:
    job = make_job(engine, promotion=PromotionPolicy(tier2=True))
    add_group(job, "revenue", n=5, uses=[12] * 5, intent="structured:REVENUE")
    add_group(job, "ebitda", n=5, uses=[11] * 5, intent="structured:EBITDA")

    approved_per_night = []
    for _ in range(4):
        report = job.maintenance.run_nightly()
        job.maintenance.run()  # a manual run the same night must not approve another
        approved_per_night.append([n.executor for n in report.promotions
                                   if n.action == "auto-approved"])
        job.clock.advance(days=1)

    assert approved_per_night[:2] == [[], []]
    assert len(approved_per_night[2]) == 1 and len(approved_per_night[3]) == 1
    assert approved_per_night[2][0].startswith("macro_structured_revenue_")
    assert approved_per_night[3][0].startswith("macro_structured_ebitda_")
    assert {e.approved_by for e in job.promotion_store.executors()} == {"auto (tier 2)"}


def test_tier_two_is_off_by_default(engine: Engine) -> None:
    job = make_job(engine)
    add_group(job, "revenue", n=5, uses=[12] * 5, intent="structured:REVENUE")
    for _ in range(4):
        job.maintenance.run_nightly()
        job.clock.advance(days=1)
    assert job.promotion_store.executors() == []
    assert [p.status for p in job.promotion_store.proposals()] == ["pending"]


# -- approval changes what serves the next request -------------------------------------------


def cascade_for(job: Job, glossary: Any, clock: Clock) -> Pipeline:
    answerer = Answerer(
        glossary=glossary, facts=MemoryFacts(read_acme_facts()), today=lambda: REF,
        now=clock, catalog=job.catalog,
    )
    return Pipeline(answerer, PlanCache(
        fastpaths=job.fastpaths,
        catalog=answerer.catalog,
        clock=clock,
    ))


def ask(cascade: Pipeline, text: str) -> Answer:
    return cascade.answer(Request(text=text, chat="telegram:1", user="u", reference_date=REF))


def test_approval_changes_what_serves_the_next_matching_request(
    engine: Engine, acme_glossary: Any
) -> None:
    clock = Clock(NOW - dt.timedelta(days=40))
    job = make_job(engine, clock=clock)
    cascade = cascade_for(job, acme_glossary, clock)
    for text in GROUP:
        assert ask(cascade, text).succeeded
    clock.now = NOW - dt.timedelta(days=1)
    for entry in job.fastpaths.iter_all():
        for _ in range(5):
            job.fastpaths.touch(entry.id, clock.now)
    clock.now = NOW
    before = ask(cascade, "ACME group revenue in FY2024 and FY2025")
    assert [s["tool"] for s in before.plan["steps"]] == ["query_metric", "query_metric"]

    job.maintenance.run()
    (proposal,) = job.promotions.list_proposals()
    message = job.promotions.approve(proposal.id, by="telegram:42", name="revenue_two_years")
    assert "approved proposal" in message and "revenue_two_years" in message

    after = ask(cascade, "ACME China revenue in FY2024 and FY2025")
    assert after.served_by == "planner"
    assert after.plan["steps"] == [{"tool": "revenue_two_years", "args": {}}]
    step_by_step = Answerer(glossary=acme_glossary, facts=MemoryFacts(read_acme_facts()),
                            today=lambda: REF, now=clock)
    expected = Pipeline(step_by_step).answer(
        Request(text="ACME China revenue in FY2024 and FY2025", chat="telegram:1", user="u",
                reference_date=REF)
    )
    assert after.text == expected.text and after.facts == expected.facts
    # a request of another shape is untouched by the macro
    single = ask(cascade, "ACME China revenue in FY2024")
    assert [s["tool"] for s in single.plan["steps"]] == ["query_metric"]

    # the next night the replaced entries die and their uses go to the heir executor
    clock.advance(days=1)
    report = job.maintenance.run()
    superseded = [r for r in report.removals if r.rule == "superseded"]
    assert len(superseded) == 4  # the three of the group and the one asked before approval
    assert {r.heir for r in superseded} == {"revenue_two_years"}
    (executor,) = job.promotion_store.executors()
    assert executor.inherited_uses == 15
    again = ask(cascade, "ACME China revenue in FY2024 and FY2025")
    assert again.served_by == "L0a" and again.text == expected.text

    # retired: planned step by step again, and plans naming the macro die
    assert "retired executor" in job.promotions.retire("revenue_two_years", by="telegram:42")
    retired = ask(cascade, "ACME China revenue in FY2023 and FY2024")
    assert [s["tool"] for s in retired.plan["steps"]] == ["query_metric", "query_metric"]
    clock.advance(days=1)
    report = job.maintenance.run()
    assert {r.rule for r in report.removals} == {"missing_tool"}
    assert all("revenue_two_years" in r.detail for r in report.removals)


def test_admin_commands_list_approve_reject_and_retire(engine: Engine) -> None:
    job = make_job(engine)
    add_group(job, "revenue", n=3, uses=[5] * 3, intent="structured:REVENUE")
    add_group(job, "ebitda", n=3, uses=[5] * 3, intent="structured:EBITDA")
    job.maintenance.run()
    admin = Admin(fastpaths=job.fastpaths, turns=None, promotions=job.promotions)  # type: ignore[arg-type]

    def command(name: str, args: str = "", *, allowed: bool = True) -> str:
        return run_admin_command(admin, name, args, user="telegram:42", is_admin=allowed)

    listing = command("proposals")
    assert "2 proposal(s)" in listing and "structured:REVENUE" in listing
    ids = [p.id for p in job.promotions.list_proposals()]
    assert command("approve", "", allowed=False).startswith("Sorry, only ricorda admins")
    assert "approved proposal" in command("approve", f"{ids[0]} revenue_macro")
    assert "rejected proposal" in command("reject", f"#{ids[1]}")
    assert command("proposals") == "no pending proposals"
    assert "revenue_macro active" in command("proposals", "executors")
    assert "approve which proposal" in command("approve", "first")
    assert "retired executor revenue_macro" in command("retire", "revenue_macro")
    assert "already retired" in command("retire", "revenue_macro")
    (executor,) = job.promotion_store.executors()
    assert executor.approved_by == "telegram:42"


def test_an_admin_reads_the_promotion_replies_in_their_language(engine: Engine) -> None:
    """The listing's heading and hint and each command's outcome follow the reader's language;
    the rows (ids, statuses, tools, counts) are the same for every reader."""
    job = make_job(engine)
    add_group(job, "revenue", n=3, uses=[5] * 3, intent="structured:REVENUE")
    job.maintenance.run()
    admin = Admin(fastpaths=job.fastpaths, turns=None, promotions=job.promotions)  # type: ignore[arg-type]

    def command(name: str, args: str = "") -> str:
        return run_admin_command(admin, name, args, user="telegram:42", is_admin=True,
                                 language="it")

    listing = command("proposals")
    assert listing.startswith("1 proposta/e:") and "structured:REVENUE" in listing
    assert listing.endswith("approve <id> [nome] oppure reject <id>")
    (proposal_id,) = [p.id for p in job.promotions.list_proposals()]
    assert command("reject", str(proposal_id)).startswith(f"proposta #{proposal_id} rifiutata")
    assert command("proposals") == "nessuna proposta in attesa"
    assert command("retire", "") == say("retire_which", "it")


def test_an_approved_executor_is_loaded_again_after_a_restart(engine: Engine) -> None:
    from bot.wiring.maintenance import build_catalog

    job = make_job(engine)
    add_group(job, "revenue", n=3, uses=[5] * 3, intent="structured:REVENUE")
    job.maintenance.run()
    (proposal,) = job.promotions.list_proposals()
    job.promotions.approve(proposal.id, by="cli", name="revenue_two_years")

    restarted = build_catalog(engine)

    assert "revenue_two_years" in restarted and restarted.complete
    assert restarted.substitute(two_years_plan()).steps == [
        {"tool": "revenue_two_years", "args": {}}
    ]
    job.promotions.retire("revenue_two_years", by="cli")
    assert "revenue_two_years" not in build_catalog(engine)
