"""`ricorda check`: what the loaded knowledge base gives away (disclosure control, issue 26).

Minimal on purpose: it runs core's disclosure checker on the ingested glossary and facts and
prints every restricted figure a chat without clearance can compute exactly, with the cells
that disclose it. Exit 1 when the policy is "protect" and something still discloses (protect
should have covered it: declare the relation or restrict the cell); under "disclose" the
company published those totals, so they are listed and the exit is 0.
"""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    app.command("check")(check)


def check(ctx: typer.Context) -> None:
    """List restricted figures an uncleared chat can work out from public ones."""
    from bot.cli_output import fail, open_app_or_exit, safe
    from bot.disclosure_report import disclosure_lines
    from core.errors import RicordaError
    from core.knowledge.disclosure import PROTECT, policy

    app_ = open_app_or_exit(ctx)
    try:
        glossary = app_.glossary
        lines = disclosure_lines(glossary, app_.facts.all_facts())
    except RicordaError as exc:
        fail(str(exc))
        return
    finally:
        app_.close()
    if not lines:
        typer.echo(f"disclosure: no restricted figure can be computed by an uncleared chat "
                   f"(policy \"{policy(glossary)}\")")
        return
    for line in lines:
        typer.echo(safe(line))
    if policy(glossary) == PROTECT:
        raise typer.Exit(1)
