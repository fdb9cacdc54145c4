"""The inbox's storage contract, on SQLite and PostgreSQL: a delivery is stored once, handled
entries go, and an entry whose lease ran out is taken over by exactly one process."""

from __future__ import annotations

import datetime as dt
import threading

from sqlalchemy.engine import Engine

from storage.inbox import SqlInbox

T0 = dt.datetime(2026, 6, 15, 12, 0, tzinfo=dt.UTC)


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> dt.datetime:
        return self.now


def test_a_delivery_is_stored_once_and_goes_when_done(engine: Engine) -> None:
    inbox = SqlInbox(engine)
    assert inbox.receive("telegram", 1, '{"q": 1}', owner="a") is True
    assert inbox.receive("telegram", 1, '{"q": 1}', owner="b") is False  # a redelivery
    assert inbox.receive("slack", 1, "{}", owner="a") is True  # another platform's id
    assert inbox.pending("telegram") == 1
    inbox.done("telegram", 1)
    assert inbox.pending("telegram") == 0
    assert inbox.receive("telegram", 1, '{"q": 1}', owner="b") is False  # still a duplicate


def test_a_live_lease_is_kept_and_an_expired_one_taken_over(engine: Engine) -> None:
    clock = Clock()
    inbox = SqlInbox(engine, lease=dt.timedelta(seconds=30), clock=clock)
    inbox.receive("telegram", 7, "payload-7", owner="dead")
    inbox.receive("telegram", 8, "payload-8", owner="alive")
    clock.now = T0 + dt.timedelta(seconds=20)
    assert inbox.renew("telegram", "alive") == 1
    assert inbox.take_over("telegram", "me") == ([], [])  # nothing expired yet
    clock.now = T0 + dt.timedelta(seconds=31)
    taken, dropped = inbox.take_over("telegram", "me")
    assert [(p.delivery_id, p.payload, p.attempts) for p in taken] == [("7", "payload-7", 2)]
    assert dropped == []
    assert inbox.take_over("telegram", "other") == ([], [])  # now leased to "me"


def test_a_delivery_that_keeps_failing_is_dropped(engine: Engine) -> None:
    clock = Clock()
    inbox = SqlInbox(engine, lease=dt.timedelta(seconds=1), clock=clock, max_attempts=2)
    inbox.receive("slack", "Ev1", "{}", owner="a")
    clock.now += dt.timedelta(seconds=2)
    assert [p.delivery_id for p in inbox.take_over("slack", "b")[0]] == ["Ev1"]
    clock.now += dt.timedelta(seconds=2)
    assert inbox.take_over("slack", "c") == ([], ["Ev1"])
    assert inbox.pending("slack") == 0


def test_two_processes_sweeping_at_once_take_each_entry_once(engine: Engine) -> None:
    clock = Clock()
    inbox = SqlInbox(engine, lease=dt.timedelta(seconds=1), clock=clock)
    for i in range(40):
        inbox.receive("telegram", i, f"p{i}", owner="dead")
    clock.now += dt.timedelta(seconds=5)
    taken: dict[str, list[str]] = {}

    def sweep(owner: str) -> None:
        taken[owner] = [p.delivery_id for p in SqlInbox(
            engine, lease=dt.timedelta(seconds=60), clock=clock).take_over("telegram", owner)[0]]

    threads = [threading.Thread(target=sweep, args=(name,)) for name in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    together = taken["a"] + taken["b"]
    assert sorted(together, key=int) == [str(i) for i in range(40)]
