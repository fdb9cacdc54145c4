"""Reactions on the bot's own answers become verdicts on their turns (design.md 4.1).

Only messages the bot posted for a turn count (the map is in the database, so this holds after
a restart and across replicas); reactions elsewhere are ignored with a log line. Removing a
reaction withdraws the user's verdict unless another meaningful reaction of theirs remains on
the message, in which case that one stands.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.services import PLATFORM, SlackServices, chat_key, user_key

log = logging.getLogger("ricorda.slack")


class Reactions:
    def __init__(self, services: SlackServices) -> None:
        self.s = services

    async def on_added(self, event: dict[str, Any]) -> None:
        verdict = self.s.verdicts.for_reaction(PLATFORM, event.get("reaction") or "")
        if verdict is None:
            return
        found = await self._turn(event)
        if found is not None:
            turn_id, user = found
            await self.s.run(self.s.feedback.record, turn_id, user, verdict, via="reaction")

    async def on_removed(self, event: dict[str, Any], client: AsyncWebClient) -> None:
        removed = event.get("reaction") or ""
        if self.s.verdicts.for_reaction(PLATFORM, removed) is None:
            return
        found = await self._turn(event)
        if found is None:
            return
        turn_id, user = found
        item = event["item"]
        remaining = await self._remaining(client, item["channel"], item["ts"], event["user"])
        verdict, withdrawn = self.s.verdicts.for_reaction_change(
            PLATFORM, [*remaining, removed], remaining)
        if verdict is not None:
            await self.s.run(self.s.feedback.record, turn_id, user, verdict, via="reaction")
        elif withdrawn:
            await self.s.run(self.s.feedback.withdraw, turn_id, user)

    async def _turn(self, event: dict[str, Any]) -> tuple[str, str] | None:
        """(turn id, user key) when the reaction is a person's, on one of the bot's answers."""
        item = event.get("item") or {}
        if item.get("type") != "message" or not event.get("user"):
            return None
        channel, ts = item.get("channel") or "", item.get("ts") or ""
        turn_id = await self.s.run(self.s.turns.turn_for_message, PLATFORM, chat_key(channel), ts)
        if turn_id is None:
            log.info("reaction on %s in %s: not one of my answers, ignored", ts, chat_key(channel))
            return None
        return turn_id, user_key(event["user"])

    async def _remaining(self, client: AsyncWebClient, channel: str, ts: str,
                         user: str) -> list[str]:
        """The user's reactions still on the message; none when Slack cannot tell us."""
        try:
            response = await client.reactions_get(channel=channel, timestamp=ts, full=True)
        except SlackApiError as exc:
            log.warning("reactions.get failed (%s): treating the verdict as withdrawn",
                        exc.response.get("error") if exc.response is not None else "error")
            return []
        reactions = (response.get("message") or {}).get("reactions") or []
        return [r.get("name", "") for r in reactions if user in (r.get("users") or [])]
