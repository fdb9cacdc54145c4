"""Reactions on the bot's own answers become verdicts on their turns (docs/fast-path.md#feedback).

Only messages the bot posted for a turn count (the map is in the database, so this holds after
a restart and across replicas); reactions elsewhere are ignored with a log line. Removing a
reaction withdraws the user's verdict unless another meaningful reaction of theirs remains on
the message, in which case that one stands.

A verdict is acknowledged with the bot's own reaction on the answer (:memo:, "noted"),
never with a message: it reads the same whichever way the user voted (:white_check_mark: would
look like the bot agreeing with an :x:) and is in neither verdict set, so clicking it casts no
vote. Slack shows one bot reaction per message for everyone, so it goes when the last verdict
on the answer is withdrawn. The verdict is recorded first; a refused reactions.add/remove
(missing `reactions:write`, a deleted message) is logged and changes nothing else.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.questions import SlackPort
from adapters.slack.services import PLATFORM, SlackServices, chat_key
from core.chat.dispatch import REACTION, Dispatcher, Inbound

log = logging.getLogger("ricorda.slack")


class Reactions:
    """reaction_added / reaction_removed -> neutral events for the dispatcher."""

    def __init__(self, services: SlackServices, dispatcher: Dispatcher) -> None:
        self.s, self.dispatcher = services, dispatcher

    async def on_added(self, event: dict[str, Any], client: AsyncWebClient,
                       bot_user_id: str | None = None) -> None:
        found = self._person_on_message(event, bot_user_id)
        if found is not None:
            await self._dispatch(client, *found, old=(), new=(event.get("reaction") or "",))

    async def on_removed(self, event: dict[str, Any], client: AsyncWebClient,
                         bot_user_id: str | None = None) -> None:
        removed = event.get("reaction") or ""
        found = self._person_on_message(event, bot_user_id)
        if found is None or self.s.verdicts.for_reaction(PLATFORM, removed) is None:
            return
        channel, ts, user = found
        turn_id = await self.dispatcher.turns.answer_turn(chat_key(channel), ts)
        if turn_id is None:
            return
        remaining = tuple(await self._remaining(client, channel, ts, user))
        await self._dispatch(client, channel, ts, user, old=(*remaining, removed),
                             new=remaining, turn_id=turn_id)

    async def _dispatch(self, client: AsyncWebClient, channel: str, ts: str, user: str, *,
                        old: tuple[str, ...], new: tuple[str, ...],
                        turn_id: str | None = None) -> None:
        event = Inbound(REACTION, chat_key(channel), user, message=ts, old=old, new=new,
                        turn_id=turn_id)
        await self.dispatcher.handle(event, SlackPort(self.s, client, channel, user))

    @staticmethod
    def _person_on_message(event: dict[str, Any],
                           bot_user_id: str | None) -> tuple[str, str, str] | None:
        """(channel, ts, user) when a person (not the bot) reacted on a message."""
        item = event.get("item") or {}
        user = event.get("user")
        if item.get("type") != "message" or not user or user == bot_user_id:
            return None
        return item.get("channel") or "", item.get("ts") or "", user

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
