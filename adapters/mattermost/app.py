"""Mattermost events (endpoint.py) -> neutral events for core.chat.dispatch, and the port its
replies go out through (markdown: render.py; REST v4: client.py; a refused call is logged). A
channel post is a question when it mentions the bot, a direct message always; answers go into
the question's thread.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any

import httpx

from adapters.charts import chart_for
from adapters.mattermost import words
from adapters.mattermost.client import MattermostClient
from adapters.mattermost.render import answer_posts, buttons, code, escape
from adapters.typing_action import typing_while
from core.catalog.presentation import Presentation, table_grid
from core.chat.chat_ports import ChatServices
from core.chat.chat_replies import reply_language, supported_language
from core.chat.dispatch import MESSAGE, REACTION, TAP, Dispatcher, Inbound, PlatformWords
from core.chat.oversized import Attachment
from core.contracts.errors import StorageError
from core.contracts.types import Answer, Table

log = logging.getLogger("ricorda.mattermost")
PLATFORM = "mattermost"
ACK = "memo"  # the bot's reaction on an answer that carries verdicts: "noted", either way


class MattermostBot:
    def __init__(self, services: ChatServices, client: MattermostClient, *,
                 actions_url: str, team_id: str = "") -> None:
        self.s, self.client, self.team_id = services, client, team_id
        self.actions_url = actions_url  # where the server posts button taps
        self.dispatcher = Dispatcher(
            services, PLATFORM,
            PlatformWords(words.how_to_ask, words.ask_usage, f"{words.COMMAND} {{name}}",
                          words.POSITIVE, words.NEGATIVE),
            draw=lambda answer: chart_for(answer, services.chart))
        self.locales: dict[str, str | None] = {}  # the bot's language for a user's locale

    async def on_event(self, message: dict[str, Any]) -> None:
        """One WebSocket event: a post, a reaction added or removed; others are ignored."""
        kind, data = message.get("event"), message.get("data") or {}
        if kind == "posted":
            await self.on_post(json.loads(data.get("post") or "{}"), data)
        elif kind in ("reaction_added", "reaction_removed"):
            reaction = json.loads(data.get("reaction") or "{}")
            reaction.setdefault("channel_id", (message.get("broadcast") or {}).get("channel_id"))
            await self.on_reaction(reaction, added=kind == "reaction_added")

    async def on_post(self, post: dict[str, Any], data: dict[str, Any]) -> None:
        user, channel, text = post.get("user_id"), post.get("channel_id"), post.get("message")
        if (not user or not channel or user == self.client.bot_id or post.get("type")
                or (post.get("props") or {}).get("from_bot")):
            return  # the bot's own posts, system messages, other bots
        direct = data.get("channel_type") == "D"
        if not direct and self.team_id and data.get("team_id") not in (self.team_id, "", None):
            return  # another team's channel
        mentioned = self.client.bot_id in json.loads(data.get("mentions") or "[]")
        if not (direct or mentioned) or not await self._first(f"post:{post.get('id')}"):
            return
        question = " ".join(str(text or "").replace(f"@{self.client.bot_name}", " ").split())
        root = post.get("root_id") or ("" if direct else str(post.get("id") or ""))
        event = Inbound(MESSAGE, f"{PLATFORM}:{channel}", user, text=question,
                        conversation=f"{PLATFORM}:{channel}:thread:{root}" if root else "")
        await self.dispatcher.handle(event, MattermostPort(self, channel, user, root=root))

    async def on_reaction(self, reaction: dict[str, Any], *, added: bool) -> None:
        user, post, emoji = (reaction.get("user_id"), reaction.get("post_id"),
                             str(reaction.get("emoji_name") or ""))
        if not user or not post or user == self.client.bot_id:
            return
        channel = str(reaction.get("channel_id") or "")
        if not channel or not await self._first(
                f"reaction:{post}:{user}:{emoji}:{added}:{reaction.get('create_at')}"):
            return
        if added:
            old, new = (), (emoji,)
        else:  # what the user still has on the post: another verdict of theirs may stand
            if self.s.verdicts.for_reaction(PLATFORM, emoji) is None:
                return
            left = tuple(str(r.get("emoji_name")) for r in await self.client.call(
                "GET", f"/posts/{post}/reactions") or [] if r.get("user_id") == user)
            old, new = (*left, emoji), left
        event = Inbound(REACTION, f"{PLATFORM}:{channel}", user, message=post, old=old, new=new)
        await self.dispatcher.handle(event, MattermostPort(self, channel, user))

    async def on_action(self, payload: dict[str, Any], token: str | None) -> None:
        """A button tap whose context the endpoint verified (None: refused, "expired")."""
        channel, user = str(payload.get("channel_id") or ""), str(payload.get("user_id") or "")
        root = str((payload.get("context") or {}).get("root") or payload.get("post_id") or "")
        event = Inbound(TAP, f"{PLATFORM}:{channel}", user, token=token)
        await self.dispatcher.handle(event, MattermostPort(self, channel, user, root=root))

    async def on_command(self, form: dict[str, str]) -> None:
        """`/ricorda help|ask …|fastpaths|purge …`: replies only the user sees."""
        channel, user = form.get("channel_id") or "", form.get("user_id") or ""
        event = Inbound.command_in(f"{PLATFORM}:{channel}", user, form.get("text"))
        await self.dispatcher.handle(event, MattermostPort(self, channel, user, private=True))

    async def _first(self, delivery: str) -> bool:
        """Claimed across replicas (each one's WebSocket sees every event)."""
        try:
            return self.s.deliveries is None or await self.s.run(
                self.s.deliveries.first_time, PLATFORM, delivery[:255])
        except StorageError as exc:
            log.warning("cannot claim %s (%s); handling it anyway", delivery, exc)
            return True


class MattermostPort:
    def __init__(self, bot: MattermostBot, channel: str, user: str, *, root: str = "",
                 private: bool = False) -> None:
        self.bot, self.client, self.s = bot, bot.client, bot.s
        self.channel, self.user, self.root, self.private = channel, user, root, private

    def count(self, answer: Answer, shown: Presentation) -> int:
        return len(answer_posts(shown))

    def too_big(self, table: Table) -> bool:
        return len(code(table_grid(table))) > 16_000

    async def send_chart(self, table: Table, png: bytes) -> tuple[str | None, bool]:
        return await self._file("chart.png", png, table.title), False

    async def send_file(self, attachment: Attachment) -> str | None:
        return await self._file(attachment.filename, attachment.data, attachment.title)

    async def send_messages(self, answer: Answer, shown: Presentation) -> list[str]:
        """The posts in the thread, the option buttons under the last."""
        posts, sent = answer_posts(shown), []
        props = buttons([(g.header, [(label, self.s.signer.encode_option(answer.turn_id, i))
                                     for i, label in g.options]) for g in shown.groups],
                        signer=self.s.signer, channel=self.channel, root=self.root,
                        url=self.bot.actions_url) if shown.groups else None
        for i, text in enumerate(posts):
            sent.append(await self.client.post(self.channel, text, root=self.root,
                                               props=props if i == len(posts) - 1 else None))
        return sent

    async def _file(self, name: str, data: bytes, title: str) -> str | None:
        try:
            found = await self.client.upload(self.channel, name, data)
            return await self.client.post(self.channel, escape(title), root=self.root,
                                          files=[found])
        except httpx.HTTPError as exc:  # the text still goes out
            log.warning("%s not uploaded to %s: %s", name, self.channel,
                        exc.__class__.__name__)
            return None

    async def note(self, text: str, *, alert: bool = False) -> None:
        if alert:  # a refused button: only its tapper reads why
            await self.client.ephemeral(self.channel, self.user, escape(text), root=self.root)
        else:
            await self.reply(text)

    async def reply(self, text: str, *, monospace: bool = False) -> None:
        """In the thread; a slash command's replies only its user sees."""
        markdown = code(text) if monospace else escape(text)
        if self.private:
            await self.client.ephemeral(self.channel, self.user, markdown, root=self.root)
        else:
            await self.client.post(self.channel, markdown, root=self.root)

    async def prompt(self, text: str, choices: Sequence[tuple[str, str]]) -> None:
        props = buttons([("", list(choices))], signer=self.s.signer, channel=self.channel,
                        root=self.root, url=self.bot.actions_url)
        await self.client.ephemeral(self.channel, self.user, escape(text), props=props)

    async def settle(self, text: str) -> None:
        await self.client.ephemeral(self.channel, self.user, escape(text), root=self.root)

    async def acknowledge(self, message: str | int, *, shown: bool,
                          verdict: str | None) -> None:
        try:
            await self.client.react(str(message), ACK, on=shown)
        except httpx.HTTPError as exc:  # the verdict is recorded already; the mark is a courtesy
            log.info("cannot mark post %s: %s", message, exc.__class__.__name__)

    async def language(self, question: str | None = None) -> str:
        """The user's Mattermost locale when the bot speaks it (asked once), else the
        question's language."""
        if self.user not in self.bot.locales:
            with contextlib.suppress(httpx.HTTPError, AttributeError):
                found = await self.client.call("GET", f"/users/{self.user}")
                self.bot.locales[self.user] = supported_language(found.get("locale"))
        return reply_language(self.bot.locales.get(self.user), question)

    def working(self) -> AbstractAsyncContextManager[object]:
        return typing_while(self.thinking, delay=self.s.typing_delay)

    async def thinking(self) -> None:
        await self.client.typing(self.channel, self.root)

    async def chosen(self, index: int) -> None:
        """The answer to the option follows in the thread; the buttons stay."""
