"""Sending what is due: each subscription's question answered at delivery time, through the same
answer path as a chat question, and sent to its chat through the platform's port.

Answered then, not when it was made: relative periods ("last month") are read against the
delivery's own day in the subscription's zone, and the chat's clearance and the disclosure
policy are those in force then (the request carries the chat; the answer path checks it).
A platform that refuses is tried again with exponential backoff, up to `retries` times, and
every outcome is recorded on the delivery (sent; failed with the platform's error). A delivery
planned after its time (no replica was running) goes once, with a line saying so.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from core.catalog.lookup import say
from core.catalog.presentation import present
from core.chat.chat_turn import ChatTurns
from core.contracts.subscriptions import DeliveryRecord, SubscriptionRecord, SubscriptionStore
from core.contracts.types import Request
from core.subscriptions.desk import describe_record, next_after, unreadable
from core.subscriptions.schedule import zone

log = logging.getLogger("ricorda.subscriptions")

MAX_ERROR = 300


class PushPort(Protocol):
    """A chat the bot writes to first: the answer's pieces (core.chat.chat_turn.ChatPort)
    and a plain line before them."""

    async def reply(self, text: str, *, monospace: bool = False) -> None: ...


@dataclass(frozen=True)
class Target:
    """How one platform is written to: its chat turns (ask, deliver, link) and a port per
    chat key ("telegram:-100…")."""

    turns: ChatTurns
    port_for: Callable[[str], object]


@dataclass
class DeliveryPolicy:
    grace: dt.timedelta = dt.timedelta(hours=2)  # a missed time is still sent this late
    late_after: dt.timedelta = dt.timedelta(minutes=2)  # later than this: sent with a note
    lease: dt.timedelta = dt.timedelta(minutes=5)  # a claimed delivery is this replica's
    retries: int = 5  # sends tried before "failed"
    backoff: dt.timedelta = dt.timedelta(seconds=30)  # then 60, 120 … between tries
    batch: int = 100  # deliveries sent per tick at most


@dataclass
class Deliverer:
    store: SubscriptionStore
    targets: Mapping[str, Target]
    now: Callable[[], dt.datetime]
    owner: str  # this replica's name in the claims
    policy: DeliveryPolicy = field(default_factory=DeliveryPolicy)
    # called with "sent", "failed", "retried", "late", "missed" (bot.wiring.metrics)
    observe: Callable[[str], None] = lambda outcome: None
    redact: Callable[[str], str] = lambda text: text  # secrets out of a recorded error

    async def tick(self) -> int:
        """Plan what is due, then send what is claimable; the number sent."""
        now = self.now()
        _, missed = await asyncio.to_thread(
            self.store.plan_due, now, next_after=next_after, grace=self.policy.grace,
            late_after=self.policy.late_after)
        for _ in range(missed):
            self.observe("missed")
        sent = 0
        for _ in range(self.policy.batch):
            delivery = await asyncio.to_thread(
                self.store.claim_delivery, now, owner=self.owner, lease=self.policy.lease,
                platforms=tuple(self.targets))
            if delivery is None:
                break
            sent += await self.send(delivery, now)
        return sent

    async def send(self, delivery: DeliveryRecord, now: dt.datetime) -> bool:
        sub = delivery.subscription
        target = self.targets[sub.platform]
        request = Request(text=sub.question, chat=sub.chat, user=sub.user,
                          reference_date=now.astimezone(zone(sub.timezone)).date())
        services = target.turns.s
        try:
            answer = await services.run(services.ask, request)
        except Exception as exc:  # the answer path, not the platform: retrying will not help
            log.error("subscription #%s: answering failed: %s", sub.id, exc.__class__.__name__)
            await self._record_failure(delivery, now, f"answer failed: {exc.__class__.__name__}",
                                       retry=False)
            return False
        try:
            port = target.port_for(sub.chat)
        except Exception as exc:  # nowhere to write (Teams: no service URL remembered)
            await self._record_failure(delivery, now, f"{exc.__class__.__name__}: {exc}",
                                       retry=False)
            return False
        if unreadable(answer):
            return await self.pause(delivery, now, port)
        try:
            await port.reply(self.header(delivery))  # type: ignore[attr-defined]
            sent = await target.turns.deliver(answer, present(answer, show_footer=False),
                                              port)  # type: ignore[arg-type]
        except Exception as exc:  # the platform refused or could not be reached
            error = self.redact(f"{exc.__class__.__name__}: {exc}")[:MAX_ERROR]
            log.warning("subscription #%s: delivery %s failed (try %s): %s", sub.id,
                        delivery.id, delivery.attempts, error)
            await self._record_failure(delivery, now, error, retry=True)
            return False
        await target.turns.link(sub.chat, sent, answer.turn_id)
        await asyncio.to_thread(self.store.delivered, delivery.id, now)
        self.observe("sent")
        if delivery.late:
            self.observe("late")
        log.info("subscription #%s delivered to %s (due %s%s)", sub.id, sub.chat,
                 delivery.due_at.isoformat(), ", late" if delivery.late else "")
        return True

    async def pause(self, delivery: DeliveryRecord, now: dt.datetime, port: object) -> bool:
        """The question no longer names a metric the bot knows (the glossary changed): the
        subscription is paused and its chat told, once; nothing else is sent."""
        sub = delivery.subscription
        await asyncio.to_thread(self.store.pause, sub.id)
        await asyncio.to_thread(self.store.failed, delivery.id, now, "paused: the question "
                                "no longer reads", retry_at=None)
        log.warning("subscription #%s paused: its question no longer reads", sub.id)
        try:
            note = say("subscription_paused", sub.language, id=sub.id, question=sub.question)
            await port.reply(note)  # type: ignore[attr-defined]
        except Exception as exc:  # paused either way; /subscriptions shows it
            log.warning("subscription #%s: pause note not sent: %s", sub.id,
                        exc.__class__.__name__)
        self.observe("paused")
        return False

    def header(self, delivery: DeliveryRecord) -> str:
        sub: SubscriptionRecord = delivery.subscription
        lines = [say("delivery_header", sub.language, id=sub.id,
                     schedule=describe_record(sub, sub.language), question=sub.question)]
        if delivery.late:
            due = delivery.due_at.astimezone(zone(sub.timezone))
            lines.append(say("delivery_late", sub.language, due=f"{due:%Y-%m-%d %H:%M}"))
        return "\n".join(lines)

    async def _record_failure(self, delivery: DeliveryRecord, now: dt.datetime, error: str,
                              *, retry: bool) -> None:
        again = retry and delivery.attempts < self.policy.retries
        retry_at = now + self.policy.backoff * 2 ** (delivery.attempts - 1) if again else None
        await asyncio.to_thread(self.store.failed, delivery.id, now, error, retry_at=retry_at)
        self.observe("retried" if again else "failed")
