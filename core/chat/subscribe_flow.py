"""The subscription commands of every chat, written once (the dispatcher routes to them):
`/subscribe <schedule> <question>` (said back, with OK and Cancel buttons), `/subscriptions`
(an admin's `/subscriptions all` lists every chat's, a cleared chat's question only where the
reader's chat is cleared too), `/unsubscribe N` and `/timezone [zone]`.

Bad input gets one sentence saying what to write instead, and bounded work: the length is
checked before anything is read, the schedule is read by a small grammar
(core.subscriptions.schedule), and a chat holds at most `limit` subscriptions.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from core.catalog.lookup import say
from core.chat.admin_commands import MAX_LIST, is_admin
from core.chat.chat_ports import ChatServices
from core.contracts.subscriptions import AlertRecord
from core.contracts.types import Request
from core.subscriptions.alert_rules import AlertError, Check, comparison, read_alert
from core.subscriptions.desk import (
    SubscriptionDesk,
    admin_listing,
    describe,
    describe_record,
    subscription_line,
    unreadable,
)
from core.subscriptions.schedule import ScheduleError, next_due, read_schedule, zone

log = logging.getLogger("ricorda.subscriptions")

COMMANDS = ("subscribe", "subscriptions", "unsubscribe", "timezone", "alert", "alerts",
            "unalert")
KEEP, DROP = "k", "u"  # the two signed tokens under a subscription's confirmation


@dataclass(frozen=True)
class Inbound:
    """What of the dispatcher's event these commands read (core.chat.dispatch.Inbound)."""

    chat: str
    user: str
    text: str = ""
    token: str | None = None


class ReplyPort(Protocol):
    """The replies these commands send (core.chat.dispatch.ReplyPort has them all)."""

    async def reply(self, text: str, *, monospace: bool = False) -> None: ...

    async def prompt(self, text: str, buttons: Sequence[tuple[str, str]]) -> None: ...

    async def settle(self, text: str) -> None: ...

    async def note(self, text: str, *, alert: bool = False) -> None: ...

    async def language(self, question: str | None = None) -> str: ...


class SubscriptionFlow:
    def __init__(self, services: ChatServices, platform: str) -> None:
        self.s = services
        self.platform = platform

    @property
    def desk(self) -> SubscriptionDesk | None:
        return self.s.subscriptions

    def handles(self, name: str) -> bool:
        desk = self.desk
        return name in COMMANDS and desk is not None and self.platform in desk.platforms

    async def command(self, name: str, event: Inbound, port: ReplyPort) -> None:
        desk = self.desk
        assert desk is not None
        language = await port.language(event.text or None)
        if name == "subscribe":
            await self.subscribe(desk, event, port, language)
        elif name == "subscriptions":
            await port.reply(await self.listing(desk, event, language),
                             monospace=event.text.strip().lower() == "all")
        elif name == "unsubscribe":
            await port.reply(await self.unsubscribe(desk, event, language))
        elif name == "alert":
            await port.reply(await self.alert(desk, event, language))
        elif name == "alerts":
            await port.reply(await self.alerts(desk, event, language))
        elif name == "unalert":
            await port.reply(await self.unalert(desk, event, language))
        else:
            await port.reply(await self.timezone(desk, event, language))

    async def subscribe(self, desk: SubscriptionDesk, event: Inbound, port: ReplyPort,
                        language: str) -> None:
        text = event.text.strip()
        usage = say("subscribe_usage", language)
        if not text:
            await port.reply(usage)
            return
        if len(text) > desk.max_chars:  # before reading it: bounded work
            await port.reply(say("subscribe_too_long", language, n=len(text), max=desk.max_chars))
            return
        try:
            reading = read_schedule(text)
        except ScheduleError:
            await port.reply(say("subscribe_bad_schedule", language, usage=usage))
            return
        if not reading.question:
            await port.reply(say("subscribe_no_question", language, usage=usage))
            return
        if len(await self.s.run(desk.store.for_chat, event.chat)) >= desk.limit:
            await port.reply(say("subscribe_limit", language, max=desk.limit))
            return  # before the question is asked: a full chat costs one query per try
        zone_name = await self.s.run(desk.zone_of, event.chat)
        now = desk.now()
        # asked once now, through the same answer path: a question the bot cannot answer is
        # said so today, not discovered by an empty delivery on Monday
        trial = await self.s.run(self.s.ask, Request(
            text=reading.question, chat=event.chat, user=f"{self.platform}:{event.user}",
            reference_date=now.astimezone(zone(zone_name)).date()))
        if unreadable(trial):
            await port.reply(say("subscribe_unreadable", language,
                                 question=reading.question[:200]))
            return
        due = next_due(reading.schedule, now, zone(zone_name))
        record = await self.s.run(
            desk.store.add, platform=self.platform, chat=event.chat,
            user=f"{self.platform}:{event.user}", language=language,
            schedule=reading.schedule.spec(), timezone=zone_name, question=reading.question,
            next_run_at=due, limit=desk.limit)
        if record is None:
            await port.reply(say("subscribe_limit", language, max=desk.limit))
            return
        log.info("subscription #%s in %s (%s), next %s", record.id, event.chat,
                 record.schedule, due.isoformat())
        shown = say("subscribed", language, id=record.id,
                    schedule=describe(reading.schedule, language, zone_name),
                    question=reading.question)
        await port.prompt(shown, (
            (say("subscription_keep", language), self.s.signer.sign(KEEP, str(record.id))),
            (say("subscription_cancel", language), self.s.signer.sign(DROP, str(record.id)))))

    async def tap(self, event: Inbound, port: ReplyPort) -> bool:
        """A confirmation's OK or Cancel (True: it was one of them, answered); the
        subscription must be this chat's, and a forged token is "expired"."""
        token = event.token or ""
        kind = token[:1]
        if token[1:2] != ":" or kind not in (KEEP, DROP) or self.desk is None:
            return False
        language = await port.language()
        fields = self.s.signer.verify(token, kind)
        number = int(fields[0]) if fields and fields[0].isdigit() else None
        record = None if number is None else await self.s.run(self.desk.store.get, number)
        if record is None or record.chat != event.chat:
            await port.note(say("expired", language), alert=True)
            return True
        if kind == KEEP:
            await port.settle(say("subscribed", language, id=record.id,
                                  schedule=describe_record(record, language),
                                  question=record.question))
            return True
        cancelled = await self.s.run(self.desk.store.cancel, event.chat, record.id)
        if cancelled is None:
            await port.note(say("expired", language), alert=True)
        else:
            await port.settle(say("subscription_cancelled", language, id=record.id))
        return True

    async def listing(self, desk: SubscriptionDesk, event: Inbound, language: str) -> str:
        everyone = event.text.strip().lower() == "all"
        user = f"{self.platform}:{event.user}"
        if everyone and is_admin(user, self.s.admins):
            records = await self.s.run(desk.store.listing, MAX_LIST)
            return admin_listing(records, language, viewer_cleared=self.s.is_cleared(event.chat),
                                 is_cleared=self.s.is_cleared)
        if everyone:
            log.warning("refused /subscriptions all for non-admin %s", user)
            return say("admin_refusal", language, name="subscriptions all")
        records = await self.s.run(desk.store.for_chat, event.chat)
        if not records:
            return say("subscriptions_none", language)
        zone_name = await self.s.run(desk.zone_of, event.chat)
        return "\n".join([say("subscriptions_header", language, zone=zone_name)] + [
            f"#{r.id} · {subscription_line(r, language, r.question)}" for r in records])

    async def unsubscribe(self, desk: SubscriptionDesk, event: Inbound, language: str) -> str:
        arg = event.text.strip().lstrip("#")
        if not (arg.isascii() and arg.isdigit() and len(arg) <= 12):
            return say("unsubscribe_usage", language)
        cancelled = await self.s.run(desk.store.cancel, event.chat, int(arg))
        if cancelled is None:
            return say("unsubscribe_unknown", language, id=int(arg))
        return say("subscription_cancelled", language, id=cancelled.id)

    async def timezone(self, desk: SubscriptionDesk, event: Inbound, language: str) -> str:
        wanted = event.text.strip()
        if not wanted:
            return say("timezone_shown", language, zone=await self.s.run(desk.zone_of,
                                                                         event.chat))
        try:
            if len(wanted) > 64:
                raise ValueError(wanted)
            zone(wanted)
        except ValueError:
            return say("timezone_unknown", language, zone=wanted[:64])
        await self.s.run(desk.store.set_chat_timezone, event.chat, wanted)
        return say("timezone_set", language, zone=wanted)

    # -- alerts -----------------------------------------------------------------------------

    async def alert(self, desk: SubscriptionDesk, event: Inbound, language: str) -> str:
        """`/alert when <subject> falls|rises more than X% month on month | above|below N`:
        read, its subject read into one metric the chat may see, stored with its state now
        (it fires when it becomes true, not for being true already)."""
        text = event.text.strip()
        if len(text) > desk.max_chars:
            return say("subscribe_too_long", language, n=len(text), max=desk.max_chars)
        try:
            rule = read_alert(text)
        except AlertError:
            return say("alert_usage", language)
        subject = None
        if desk.read_subject is not None:
            subject = await self.s.run(desk.read_subject, rule.subject, event.chat)
        if subject is None:
            return say("alert_no_subject", language, subject=rule.subject[:200])
        metric, entity, channel = subject
        record = await self.s.run(
            desk.store.add_alert, platform=self.platform, chat=event.chat,
            user=f"{self.platform}:{event.user}", language=language, condition=text,
            metric=metric, entity=entity, channel=channel, kind=rule.kind,
            threshold=f"{rule.threshold:f}", limit=desk.limit)
        if record is None:
            return say("alert_limit", language, max=desk.limit)
        now: Check | None = None
        if desk.evaluate is not None:
            now = await self.s.run(desk.evaluate, record)
        if now is not None and now.holds:  # true already: it fires after it has been false
            await self.s.run(desk.store.flip, record.id, True)
        log.info("alert #%s in %s: %s %s %s %s", record.id, event.chat, metric, entity,
                 rule.kind, rule.threshold)
        shown = comparison(now, language) if now is not None else say("alert_no_figures",
                                                                        language)
        return say("alert_made", language, id=record.id, condition=text, now=shown)

    async def alerts(self, desk: SubscriptionDesk, event: Inbound, language: str) -> str:
        records: list[AlertRecord] = list(await self.s.run(desk.store.alerts, event.chat))
        if not records:
            return say("alerts_none", language)
        return "\n".join([say("alerts_header", language)]
                         + [f"#{r.id} · {r.condition}" for r in records])

    async def unalert(self, desk: SubscriptionDesk, event: Inbound, language: str) -> str:
        arg = event.text.strip().lstrip("#")
        if not (arg.isascii() and arg.isdigit() and len(arg) <= 12):
            return say("unalert_usage", language)
        removed = await self.s.run(desk.store.cancel_alert, event.chat, int(arg))
        if removed is None:
            return say("unalert_unknown", language, id=int(arg))
        return say("alert_cancelled", language, id=removed.id)

