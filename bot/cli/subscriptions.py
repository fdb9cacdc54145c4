"""`ricorda subscriptions`: every chat's subscriptions, and the record of recent deliveries.

Registered on the main CLI by `register(app)` (bot.cli). The CLI is a cleared viewer, as for
the fast-path listings: a question made in a cleared chat is shown, marked [restricted].
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from bot.wiring.build import App


def register(app: typer.Typer) -> None:
    app.command("subscriptions")(subscriptions)


def subscriptions(
    ctx: typer.Context,
    deliveries: Annotated[
        int, typer.Option("--deliveries", help="Also show the last N deliveries' record.")
    ] = 0,
) -> None:
    """Every subscription (id, chat, schedule, question); with --deliveries N, the last N
    deliveries: sent, failed with the platform's error, missed past the grace period."""
    from bot.cli.output import print_result

    print_result(ctx, lambda app_: listing(app_, max(0, min(deliveries, 1000))))


def listing(app: App, deliveries: int) -> str:
    from core.chat.admin_commands import MAX_LIST
    from core.subscriptions.desk import admin_listing
    from storage.subscription_store import SqlSubscriptionStore

    store = SqlSubscriptionStore(app.storage.engine)
    glossary = app.core.glossary
    text = admin_listing(store.listing(MAX_LIST), "en", viewer_cleared=True,
                         is_cleared=glossary.is_cleared)
    if deliveries:
        lines = [f"last {deliveries} deliveries:"]
        for d in store.deliveries(limit=deliveries):
            error = f" · {d.error}" if d.error else ""
            lines.append(f"#{d.subscription.id} due {d.due_at:%Y-%m-%d %H:%M} UTC · {d.status}"
                         f"{' (late)' if d.late else ''} · tries {d.attempts}{error}")
        text += "\n\n" + "\n".join(lines)
    return text
