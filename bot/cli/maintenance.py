"""`ricorda maintain [--dry-run]` and `ricorda proposals list|approve|reject|executors|retire`.

Registered on the main CLI by `register(app)` (bot.cli.commands). `maintain` runs the nightly job
now, for cron or by hand, and prints what it removed or proposed and why.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from bot.wiring.maintenance import MaintenanceServices

proposals_app = typer.Typer(
    help="Plans proposed for promotion to composite executors: list, approve, reject.",
    no_args_is_help=True,
)


def register(app: typer.Typer) -> None:
    app.command("maintain")(maintain)
    app.add_typer(proposals_app, name="proposals")


def _run(ctx: typer.Context, action: Callable[[MaintenanceServices], str]) -> None:
    """Print what `action(services)` returns, through the CLI's one open-print-close helper."""
    from bot.cli.output import print_result

    print_result(ctx, lambda app_: action(app_.core.maintenance))


def maintain(
    ctx: typer.Context,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Compute and report; change nothing.")
    ] = False,
    show_all: Annotated[
        bool, typer.Option("--all", help="List every removal, not the first 20 per rule.")
    ] = False,
) -> None:
    """Run maintenance now: aging, death with inheritance, autopath pruning, promotion."""
    _run(
        ctx,
        lambda s: s.maintenance.run(dry_run=dry_run).text(
            per_rule=None if show_all else 20, cleared=True  # the CLI is a cleared viewer
        ),
    )


@proposals_app.command("list")
def proposals_list(
    ctx: typer.Context,
    show_all: Annotated[bool, typer.Option("--all", help="Decided ones too.")] = False,
) -> None:
    """Pending proposals (id, intent, steps, entries, uses, age)."""
    _run(  # the CLI is a cleared viewer
        ctx, lambda s: s.promotions.proposals_text(None if show_all else "pending", cleared=True)
    )


@proposals_app.command("approve")
def proposals_approve(
    ctx: typer.Context,
    proposal_id: Annotated[int, typer.Argument(help="The proposal number.")],
    name: Annotated[str | None, typer.Option(help="Name of the new executor.")] = None,
    by: Annotated[str, typer.Option(help="Who approves (recorded).")] = "cli",
) -> None:
    """Register the proposal's composite executor; the planner uses it from now on."""
    _run(ctx, lambda s: s.promotions.approve(proposal_id, by=by, name=name))


@proposals_app.command("reject")
def proposals_reject(
    ctx: typer.Context,
    proposal_id: Annotated[int, typer.Argument(help="The proposal number.")],
    by: Annotated[str, typer.Option(help="Who rejects (recorded).")] = "cli",
) -> None:
    """Reject a proposal; the same group is never proposed again."""
    _run(ctx, lambda s: s.promotions.reject(proposal_id, by=by))


@proposals_app.command("executors")
def proposals_executors(ctx: typer.Context) -> None:
    """Composite executors, active and retired, with the uses they inherited."""
    _run(ctx, lambda s: s.promotions.executors_text())


@proposals_app.command("retire")
def proposals_retire(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The executor's name.")],
    by: Annotated[str, typer.Option(help="Who retires it (recorded).")] = "cli",
) -> None:
    """Retire a composite executor: requests are planned step by step again."""
    _run(ctx, lambda s: s.promotions.retire(name, by=by))
