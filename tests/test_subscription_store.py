"""The subscription store on SQLite and PostgreSQL: bounded per chat, cancel only from its own
chat, each due time planned once and each delivery claimed by one replica at a time — many
replicas (threads with engines of their own) racing over many due subscriptions deliver each
exactly once; a missed time is sent once within the grace period, recorded as missed past it."""

from __future__ import annotations

import datetime as dt
import threading
from collections import Counter
from collections.abc import Iterator

import pytest
from sqlalchemy.engine import Engine

from core.contracts.subscriptions import MISSED, SENT, SubscriptionRecord
from core.subscriptions.desk import next_after
from storage.db import open_database
from storage.subscription_store import SqlSubscriptionStore

T0 = dt.datetime(2026, 12, 7, 8, 0, tzinfo=dt.UTC)  # Monday 09:00 in Rome
GRACE, LATE = dt.timedelta(hours=2), dt.timedelta(minutes=2)
LEASE = dt.timedelta(minutes=5)


def add(store: SqlSubscriptionStore, chat: str = "telegram:1", *, limit: int = 20,
        due: dt.datetime = T0) -> SubscriptionRecord | None:
    return store.add(platform="telegram", chat=chat, user="telegram:1", language="en",
                     schedule="weekly:0@09:00", timezone="Europe/Rome", question="revenue",
                     next_run_at=due, limit=limit)


def plan(store: SqlSubscriptionStore, now: dt.datetime) -> tuple[int, int]:
    return store.plan_due(now, next_after=next_after, grace=GRACE, late_after=LATE)


def test_a_chat_holds_a_bounded_number_and_cancels_only_its_own(engine: Engine) -> None:
    store = SqlSubscriptionStore(engine)
    made = [add(store, limit=3) for _ in range(4)]
    assert made[3] is None and all(made[:3])
    assert [r.id for r in store.for_chat("telegram:1")] == [r.id for r in made[:3] if r]
    first = made[0]
    assert first is not None
    assert store.cancel("telegram:2", first.id) is None  # another chat's number
    assert store.cancel("telegram:1", first.id) is not None
    assert store.cancel("telegram:1", first.id) is None  # once
    assert add(store, limit=3) is not None  # room again
    store.set_chat_timezone("telegram:1", "Asia/Shanghai")
    store.set_chat_timezone("telegram:1", "Europe/Rome")
    assert store.chat_timezone("telegram:1") == "Europe/Rome"
    assert store.chat_timezone("telegram:9") is None


def test_a_due_time_is_planned_once_and_the_next_one_follows(engine: Engine) -> None:
    store = SqlSubscriptionStore(engine)
    record = add(store)
    assert record is not None
    assert plan(store, T0 - dt.timedelta(seconds=1)) == (0, 0)
    assert plan(store, T0) == (1, 0)
    assert plan(store, T0) == (0, 0)
    claimed = store.claim_delivery(T0, owner="a", lease=LEASE, platforms=["telegram"])
    assert claimed is not None and not claimed.late and claimed.due_at == T0
    assert store.claim_delivery(T0, owner="b", lease=LEASE, platforms=["telegram"]) is None
    store.delivered(claimed.id, T0)
    (sub,) = store.for_chat("telegram:1")
    assert sub.next_run_at == T0 + dt.timedelta(days=7)


def test_a_lease_run_out_hands_the_delivery_to_another_replica(engine: Engine) -> None:
    store = SqlSubscriptionStore(engine)
    add(store)
    plan(store, T0)
    first = store.claim_delivery(T0, owner="dead", lease=LEASE, platforms=["telegram"])
    assert first is not None
    assert store.claim_delivery(T0 + LEASE / 2, owner="b", lease=LEASE,
                                platforms=["telegram"]) is None
    second = store.claim_delivery(T0 + LEASE, owner="b", lease=LEASE, platforms=["telegram"])
    assert second is not None and second.id == first.id and second.attempts == 2
    assert store.claim_delivery(T0, owner="c", lease=LEASE, platforms=["slack"]) is None


def test_missed_times_within_the_grace_go_once_late_and_past_it_are_recorded(
        engine: Engine) -> None:
    store = SqlSubscriptionStore(engine)
    add(store, "telegram:1", due=T0 - dt.timedelta(days=7))  # two Mondays missed
    assert plan(store, T0 + dt.timedelta(hours=1)) == (1, 0)
    late = store.claim_delivery(T0 + dt.timedelta(hours=1), owner="a", lease=LEASE,
                                platforms=["telegram"])
    assert late is not None and late.late and late.due_at == T0  # the latest, once
    store.delivered(late.id, T0 + dt.timedelta(hours=1))
    (sub,) = store.for_chat("telegram:1")
    assert sub.next_run_at == T0 + dt.timedelta(days=7)  # one plan, not one per missed week
    add(store, "telegram:2", due=T0 + dt.timedelta(days=7))
    assert plan(store, T0 + dt.timedelta(days=7, hours=3)) == (0, 2)  # past the grace
    assert store.claim_delivery(T0 + dt.timedelta(days=7, hours=3), owner="a", lease=LEASE,
                                platforms=["telegram"]) is None
    missed = sorted((d.subscription.chat, d.due_at) for d in store.deliveries()
                    if d.status == MISSED)
    assert missed == [("telegram:1", T0 + dt.timedelta(days=7)),
                      ("telegram:2", T0 + dt.timedelta(days=7))]


def test_a_failed_send_is_retried_then_recorded_with_its_error(engine: Engine) -> None:
    store = SqlSubscriptionStore(engine)
    add(store)
    plan(store, T0)
    first = store.claim_delivery(T0, owner="a", lease=LEASE, platforms=["telegram"])
    assert first is not None
    store.failed(first.id, T0, "Forbidden: bot was blocked", retry_at=T0 + LEASE)
    assert store.claim_delivery(T0, owner="a", lease=LEASE, platforms=["telegram"]) is None
    again = store.claim_delivery(T0 + LEASE, owner="a", lease=LEASE, platforms=["telegram"])
    assert again is not None and again.attempts == 2
    store.failed(again.id, T0 + LEASE, "Forbidden: bot was blocked", retry_at=None)
    (record,) = store.deliveries()
    assert (record.status, record.error) == ("failed", "Forbidden: bot was blocked")


@pytest.fixture
def url(db_url: str) -> Iterator[str]:
    yield db_url


def test_replicas_racing_deliver_each_due_time_exactly_once(url: str) -> None:
    """Four replicas, each with its own engine, plan and claim over 120 due subscriptions at
    once, again and again: every due time is sent once, none twice, none lost."""
    setup = open_database(url)
    store = SqlSubscriptionStore(setup)
    for i in range(120):
        add(store, f"telegram:{i}", limit=1)
    sent: list[int] = []
    lock = threading.Lock()
    errors: list[BaseException] = []
    start = threading.Barrier(4)

    def replica(name: str) -> None:
        engine = open_database(url)
        own = SqlSubscriptionStore(engine)
        try:
            start.wait()
            for _ in range(40):
                try:
                    own.plan_due(T0, next_after=next_after, grace=GRACE, late_after=LATE,
                                 batch=10)
                    while (d := own.claim_delivery(T0, owner=name, lease=LEASE,
                                                   platforms=["telegram"])) is not None:
                        with lock:
                            sent.append(d.subscription.id)
                        own.delivered(d.id, T0)
                except Exception as exc:  # SQLite: a writer busy for too long; try again
                    if url.startswith("postgresql"):
                        raise
                    errors.append(exc)
        finally:
            engine.dispose()

    threads = [threading.Thread(target=replica, args=(f"r{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    twice = [k for k, n in Counter(sent).items() if n > 1]
    assert twice == []
    assert len(sent) == 120, (len(sent), errors[:3])
    assert {d.status for d in store.deliveries()} == {SENT}
    setup.dispose()


def test_an_alert_state_flips_once_for_whoever_gets_there_first(engine: Engine) -> None:
    store = SqlSubscriptionStore(engine)
    alert = store.add_alert(platform="telegram", chat="telegram:1", user="telegram:1",
                            language="en", condition="when China revenue above 500",
                            metric="REVENUE", entity="ACME_CN", channel="TOTAL", kind="above",
                            threshold="500", limit=1)
    assert alert is not None and not alert.triggered
    assert store.add_alert(platform="telegram", chat="telegram:1", user="telegram:1",
                           language="en", condition="x", metric="REVENUE", entity="ACME_CN",
                           channel="TOTAL", kind="below", threshold="1", limit=1) is None
    assert store.flip(alert.id, False) is False  # false already: nothing to say
    assert store.flip(alert.id, True) is True  # became true: this caller sends
    assert store.flip(alert.id, True) is False  # another replica, same news: silent
    assert store.flip(alert.id, False) is True
    assert store.flip(alert.id, True) is True  # true again after false: said again
    assert store.cancel_alert("telegram:2", alert.id) is None
    assert store.cancel_alert("telegram:1", alert.id) is not None
    assert store.alerts() == [] and store.flip(alert.id, False) is False
