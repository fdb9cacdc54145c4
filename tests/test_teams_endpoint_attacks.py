"""The Teams endpoint as an attacker with no credentials meets it: the real aiohttp endpoint on
127.0.0.1 (adapters/teams/endpoint.py) in front of a recorder instead of the bot, Microsoft's
OpenID metadata and keys played by tests/fake_teams.py, which counts every key request.

A token naming an Entra tenant as its issuer is refused without any outbound request; the
serviceUrl is always checked; a slow key download leaves /healthz answering; keys that cannot be
fetched are a 503 with a line that says so; bodies that are not JSON objects are a 400 without
a traceback."""

from __future__ import annotations

import asyncio
import logging
import threading
import uuid
from collections.abc import Iterator
from concurrent.futures import Future
from typing import Any

import httpx
import pytest
from microsoft_teams.api.auth.cloud_environment import PUBLIC, with_overrides

from adapters.teams.endpoint import ChannelTokens, Endpoint
from adapters.web_site import start_site
from tests.fake_teams import APP_ID, KEYS_PATH, FakeTeams, new_key
from tests.loopback import free_port


class Recorder:
    """Stands where the bot stands: what reached it is what the endpoint let through."""

    def __init__(self) -> None:
        self.handled: list[dict[str, Any]] = []

    async def handle(self, activity: dict[str, Any]) -> None:
        self.handled.append(activity)


class Served:
    """The endpoint listening on its own event loop thread, as `serve` runs it."""

    def __init__(self, fake: FakeTeams, *, openid_url: str | None = None) -> None:
        cloud = with_overrides(PUBLIC, openid_metadata_url=openid_url or fake.openid_url,
                               login_endpoint=fake.url)
        self.recorder, self.port = Recorder(), free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.check = ChannelTokens(APP_ID, cloud)
        endpoint = Endpoint(self.recorder, self.check)  # type: ignore[arg-type]
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.runner = self._run(start_site(endpoint.application(), host="127.0.0.1",
                                           port=self.port)).result(30)

    def _run(self, coro: Any) -> Future[Any]:
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def stop(self) -> None:
        self._run(self.runner.cleanup()).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(30)
        self.check.close()

    def post(self, body: bytes, token: str | None) -> httpx.Response:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        return httpx.post(self.url + "/api/messages", content=body, headers=headers, timeout=90)


@pytest.fixture
def fake() -> Iterator[FakeTeams]:
    fake = FakeTeams().start()
    yield fake
    if fake.keys_gate is not None:
        fake.keys_gate.set()
    fake.stop()


@pytest.fixture
def served(fake: FakeTeams) -> Iterator[Served]:
    served = Served(fake)
    yield served
    served.stop()


def _body(fake: FakeTeams, **change: Any) -> bytes:
    import json

    activity = {**fake.message("a:attack", "aad-user-1", "What was revenue?"), **change}
    return json.dumps({k: v for k, v in activity.items() if v is not None}).encode()


def test_a_token_naming_any_tenant_as_issuer_is_refused_without_any_key_request(
        fake: FakeTeams, served: Served) -> None:
    for _ in range(5):  # a new tenant each time, as an attacker would
        tenant = str(uuid.uuid4())
        token = fake.activity_token(issuer=f"{fake.url}/{tenant}/v2.0", tid=tenant,
                                    azp="5a807f24-c9de-44ee-a3a7-329e88a00ffc",
                                    kid=uuid.uuid4().hex)
        assert served.post(_body(fake), token).status_code == 401
    assert fake.gets == []  # not the tenant's keys, not the Bot Framework's
    assert served.recorder.handled == []


def test_the_service_url_is_checked_even_when_the_activity_leaves_it_out(
        fake: FakeTeams, served: Served) -> None:
    assert served.post(_body(fake, serviceUrl=None), fake.activity_token()).status_code == 401
    assert served.recorder.handled == []
    assert served.post(_body(fake), fake.activity_token()).status_code == 200  # the genuine one


def test_forged_key_ids_do_not_make_the_bot_fetch_keys_per_request(
        fake: FakeTeams, served: Served) -> None:
    for _ in range(10):
        token = fake.activity_token(key=new_key(), kid=uuid.uuid4().hex)
        assert served.post(_body(fake), token).status_code == 401
    assert fake.gets.count(KEYS_PATH) <= 2  # the first fetch, at most one refresh
    assert served.recorder.handled == []


def test_a_slow_key_download_does_not_stall_the_health_check(
        fake: FakeTeams, served: Served) -> None:
    fake.keys_gate = threading.Event()
    answer: list[httpx.Response] = []
    poster = threading.Thread(target=lambda: answer.append(
        served.post(_body(fake), fake.activity_token())))
    poster.start()
    fake.wait_for(lambda: KEYS_PATH in fake.gets, timeout=30)  # the download is under way
    try:
        assert httpx.get(served.url + "/healthz", timeout=20).status_code == 200
    finally:
        fake.keys_gate.set()
        poster.join(90)
    assert answer[0].status_code == 200


def test_keys_that_cannot_be_fetched_are_a_503_that_says_so(
        fake: FakeTeams, caplog: pytest.LogCaptureFixture) -> None:
    closed = f"http://127.0.0.1:{free_port()}/v1/.well-known/openidconfiguration"
    served = Served(fake, openid_url=closed)
    try:
        with caplog.at_level(logging.INFO):
            response = served.post(_body(fake), fake.activity_token())
    finally:
        served.stop()
    assert response.status_code == 503
    said = [r.getMessage() for r in caplog.records if r.name == "ricorda.teams"]
    assert any("signing keys" in line and "cannot be fetched" in line for line in said), said


@pytest.mark.parametrize("body", [
    b'{"type": "message", "text": "\xff\xfe"}',  # not UTF-8
    b"[" * 100_000 + b"]" * 100_000,  # deeper than any parser goes
    b'["a list"]',
    b"",
], ids=["invalid-utf8", "deep-json", "a-list", "empty"])
def test_a_malformed_body_is_a_400_without_a_traceback(
        fake: FakeTeams, served: Served, body: bytes, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG):
        response = served.post(body, fake.activity_token())
    assert response.status_code == 400
    assert [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR] == []
    assert served.recorder.handled == []
