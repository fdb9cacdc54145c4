"""The delivery of one subscription (core.scheduled.deliveries) over the real store: a
question that stopped reading pauses its subscription with one note; a platform that fails is
tried again with doubling backoff, then recorded as failed with its error; the counters on
/metrics count each outcome."""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Any

from sqlalchemy.engine import Engine

from bot.wiring.metrics import Metrics
from core.contracts.subscriptions import PAUSED
from core.contracts.types import Answer, Option, Request, Route
from core.scheduled.deliveries import Deliverer, DeliveryPolicy, Target
from storage.subscription_store import SqlSubscriptionStore

DUE = dt.datetime(2026, 1, 12, 8, 0, tzinfo=dt.UTC)


class Services:
    show_footer = False

    def __init__(self, answer: Answer) -> None:
        self.answer, self.asked = answer, []

    async def run(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    def ask(self, request: Request) -> Answer:
        self.asked.append(request)
        return self.answer


class Turns:
    def __init__(self, services: Services) -> None:
        self.s = services

    async def deliver(self, answer: Answer, shown: Any, port: Port) -> list[int]:
        await port.reply(answer.text)
        return [len(port.lines)]

    async def link(self, chat: str, sent: Any, turn_id: str) -> None:
        return None


class Port:
    def __init__(self, failures: int = 0) -> None:
        self.lines: list[str] = []
        self.failures = failures

    async def reply(self, text: str, *, monospace: bool = False) -> None:
        if self.failures:
            self.failures -= 1
            raise ConnectionError("Bot API unreachable")
        self.lines.append(text)


def deliverer(engine: Engine, answer: Answer, port: Port, clock: list[dt.datetime],
              metrics: Metrics) -> tuple[Deliverer, SqlSubscriptionStore, Services]:
    store = SqlSubscriptionStore(engine)
    assert store.add(platform="telegram", chat="telegram:1", user="telegram:1", language="en",
                     schedule="daily@09:00", timezone="Europe/Rome", question="How much?",
                     next_run_at=DUE, limit=5) is not None
    services = Services(answer)
    target = Target(Turns(services), lambda chat: port)  # type: ignore[arg-type]
    return (Deliverer(store, {"telegram": target}, now=lambda: clock[0], owner="t",
                      policy=DeliveryPolicy(retries=3), observe=metrics.observe_delivery),
            store, services)


def test_a_question_that_stopped_reading_pauses_its_subscription_once(engine: Engine) -> None:
    asks_metric = Answer(turn_id="t", route=Route.CLARIFY, served_by="planner",
                         text="Which metric?", succeeded=False,
                         options=[Option("Revenue", "metric", "REVENUE")])
    port, clock, metrics = Port(), [DUE], Metrics()
    job, store, services = deliverer(engine, asks_metric, port, clock, metrics)
    assert asyncio.run(job.tick()) == 0
    (sub,) = store.for_chat("telegram:1")
    assert sub.status == PAUSED
    assert len(port.lines) == 1 and "Subscription #1 is paused" in port.lines[0]
    assert services.asked[0].reference_date == dt.date(2026, 1, 12)  # the delivery's day
    clock[0] = DUE + dt.timedelta(days=1)
    asyncio.run(job.tick())
    assert len(port.lines) == 1  # paused: not asked again
    assert b'ricorda_scheduled_deliveries_total{outcome="paused"} 1.0' in metrics.render()


def test_a_failing_platform_is_retried_with_doubling_backoff_then_recorded(
        engine: Engine) -> None:
    fine = Answer(turn_id="t", route=Route.STRUCTURED, served_by="planner",
                  text="Revenue was $5,480.5M.", succeeded=True)
    port, clock, metrics = Port(failures=5), [DUE], Metrics()
    job, store, _ = deliverer(engine, fine, port, clock, metrics)
    tries = []
    for wait in (0, 30, 60):  # the backoff doubles: 30 s, then 60 s
        clock[0] += dt.timedelta(seconds=wait)
        asyncio.run(job.tick())
        (record,) = store.deliveries()
        tries.append((record.attempts, record.status))
        clock[0] += dt.timedelta(seconds=wait + 29)  # not yet
        asyncio.run(job.tick())
        assert store.deliveries()[0].attempts == record.attempts
        clock[0] -= dt.timedelta(seconds=wait + 29)
    assert tries == [(1, "pending"), (2, "pending"), (3, "failed")]
    assert store.deliveries()[0].error == "ConnectionError: Bot API unreachable"
    assert port.lines == []
    shown = metrics.render()
    assert b'outcome="retried"} 2.0' in shown and b'outcome="failed"} 1.0' in shown


def test_subscriptions_are_offered_only_where_serve_delivers_them() -> None:
    """A platform without a delivery target keeps the commands as help, rather than accept a
    subscription that would never be sent: the two lists agree."""
    from bot.serve.scheduler import TARGETS
    from bot.wiring.chat import DELIVERED

    assert frozenset(TARGETS) == DELIVERED
