"""The Slack locale cache against the fake Web API: one users.info call per user, bounded,
expiring, and never holding a reply up for long."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from typing import TypeVar

import pytest
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.locales import UserLocales
from tests.fake_slack import BOT_TOKEN, FakeSlack

T = TypeVar("T")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def fake() -> Iterator[FakeSlack]:
    server = FakeSlack().start()
    server.set_locale("UIT", "it-IT")
    server.set_locale("UZH", "zh-CN")
    server.set_locale("UFR", "fr-FR")
    yield server
    server.stop()


def run(scenario: Callable[[], Awaitable[T]]) -> T:
    async def main() -> T:
        return await scenario()

    return asyncio.run(main())


def client(fake: FakeSlack) -> AsyncWebClient:
    return AsyncWebClient(token=BOT_TOKEN, base_url=fake.api_url)


def test_one_call_per_user_even_when_asked_together(fake: FakeSlack) -> None:
    locales = UserLocales()

    async def scenario() -> list[str | None]:
        web = client(fake)
        first = await asyncio.gather(*(locales.language(web, "UIT") for _ in range(5)))
        return [*first, await locales.language(web, "UZH"), await locales.language(web, "UFR")]

    assert run(scenario) == ["it"] * 5 + ["zh", None]  # French: the caller's fallback
    assert len(fake.calls("users.info", user="UIT")) == 1
    assert fake.calls("users.info")[0].params["include_locale"] in ("1", "true", True)


def test_entries_expire_and_the_cache_is_bounded(fake: FakeSlack) -> None:
    clock = Clock()
    locales = UserLocales(max_users=2, ttl=60, clock=clock)

    async def scenario() -> None:
        web = client(fake)
        for user in ("UIT", "UZH", "UIT"):
            await locales.language(web, user)
        assert len(fake.calls("users.info")) == 2  # the second UIT came from the cache
        await locales.language(web, "UFR")  # a third user: the least recently used (UZH) goes
        await locales.language(web, "UIT")
        assert len(fake.calls("users.info", user="UIT")) == 1
        await locales.language(web, "UZH")
        assert len(fake.calls("users.info", user="UZH")) == 2
        clock.now += 61
        await locales.language(web, "UZH")
        assert len(fake.calls("users.info", user="UZH")) == 3

    run(scenario)


def test_a_failure_falls_back_and_is_not_asked_again_at_once(fake: FakeSlack) -> None:
    clock = Clock()
    locales = UserLocales(failure_ttl=300, clock=clock)
    fake.refuse("users.info", "missing_scope")

    async def scenario() -> list[str | None]:
        web = client(fake)
        out = [await locales.language(web, "UIT"), await locales.language(web, "UIT")]
        fake.refuse("users.info", None)
        clock.now += 301
        return [*out, await locales.language(web, "UIT")]

    assert run(scenario) == [None, None, "it"]
    assert len(fake.calls("users.info")) == 2


def test_a_slow_lookup_does_not_hold_the_reply(fake: FakeSlack) -> None:
    locales = UserLocales(timeout=0.2)
    fake.hold("users.info")

    async def scenario() -> list[str | None]:
        web = client(fake)
        first = await locales.language(web, "UIT")  # gives up waiting; the call goes on
        fake.release("users.info")
        for _ in range(50):
            await asyncio.sleep(0.05)
            if fake.calls("users.info"):
                break
        await asyncio.sleep(0.1)
        return [first, await locales.language(web, "UIT")]

    assert run(scenario) == [None, "it"]
    assert len(fake.calls("users.info")) == 1
