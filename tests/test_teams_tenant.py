"""Teams in a real tenant: `python -m bot serve` with each kind of Azure bot gets its token
where Entra gives it (tests/fake_tenant.py over HTTPS on 127.0.0.1) and sends a reply through
the Connector (tests/fake_teams.py): single-tenant (its own tenant, the docs' default),
multi-tenant (`botframework.com`) and a user-assigned managed identity (the App Service
identity endpoint, no secret). A single-tenant app set up as multi-tenant stops serve with the
setting to fix; Microsoft's keys being unreachable is a 503 and a line that says so."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fake_teams import APP_ID, PASSWORD, FakeTeams, text_of
from tests.fake_tenant import MULTI, TENANT, FakeTenant
from tests.loopback import free_port
from tests.test_teams_adapter import REPO, TeamsBot, ask, data_dir

__all__ = ["data_dir"]  # the demo knowledge base, as the adapter tests build it
QUESTION, ANSWER = "What was Orbis Italia revenue in FY2024?", "€318.9M"
CALLBACK = "a-long-random-callback-secret-for-tests-3c9d"


@pytest.fixture
def fake() -> Iterator[FakeTeams]:
    fake = FakeTeams().start()
    yield fake
    fake.stop()


def _identity(kind: str, tenant: FakeTenant) -> dict[str, str]:
    if kind == "single-tenant":
        return {"RICORDA_TEAMS_APP_TYPE": kind, "RICORDA_TEAMS_TENANT_ID": TENANT,
                "RICORDA_TEAMS_APP_PASSWORD": PASSWORD}
    if kind == "multi-tenant":
        return {"RICORDA_TEAMS_APP_TYPE": kind, "RICORDA_TEAMS_APP_PASSWORD": PASSWORD}
    return {"RICORDA_TEAMS_APP_TYPE": kind, "RICORDA_CALLBACK_SECRET": CALLBACK,
            **tenant.managed_identity_env()}


@pytest.mark.parametrize(("kind", "asked"), [
    ("single-tenant", TENANT), ("multi-tenant", MULTI), ("managed-identity", "managed-identity"),
])
def test_each_kind_of_azure_bot_gets_its_token_and_replies(
        data_dir: Path, fake: FakeTeams, tmp_path: Path, kind: str, asked: str) -> None:
    tenant = FakeTenant(tmp_path, multi_tenant=kind == "multi-tenant").start()
    bot = TeamsBot(data_dir, fake, tenant, identity=_identity(kind, tenant))
    try:
        reply = ask(bot, f"a:{kind}", QUESTION)
        assert ANSWER in text_of(reply)
        assert tenant.tokens and {t for t, _ in tenant.tokens} == {asked}
        assert {client for _, client in tenant.tokens} == {APP_ID}
    finally:
        bot.stop()
        tenant.stop()
    assert PASSWORD not in bot.output() and CALLBACK not in bot.output()


def test_a_single_tenant_bot_set_up_as_multi_tenant_is_told_to_set_its_tenant(
        data_dir: Path, fake: FakeTeams, tmp_path: Path) -> None:
    tenant = FakeTenant(tmp_path).start()  # registered single-tenant, as Azure creates bots
    env = {**os.environ, "RICORDA_DATA_DIR": str(data_dir), "RICORDA_TEAMS_APP_ID": APP_ID,
           "RICORDA_TEAMS_APP_PASSWORD": PASSWORD, **tenant.env(),
           "RICORDA_TEAMS_PORT": str(free_port()), "RICORDA_EMBEDDER": "hashing",
           "RICORDA_METRICS_PORT": "0", "HF_HUB_OFFLINE": "1"}
    try:
        done = subprocess.run([sys.executable, "-m", "bot", "serve"], env=env, cwd=REPO,
                              capture_output=True, text=True, timeout=300)
    finally:
        tenant.stop()
    assert done.returncode != 0
    assert "set RICORDA_TEAMS_TENANT_ID" in done.stderr, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and PASSWORD not in done.stderr


def test_keys_that_cannot_be_fetched_are_a_503_and_a_clear_line_not_a_401(
        data_dir: Path, fake: FakeTeams) -> None:
    fake.openid_url = f"http://127.0.0.1:{free_port()}/v1/.well-known/openidconfiguration"
    bot = TeamsBot(data_dir, fake)
    try:
        response = bot.post(fake.message("a:keys-down", "aad-user-1", QUESTION))
        assert response.status_code == 503
    finally:
        bot.stop()
    assert "Bot Framework signing keys" in bot.output()
    assert "cannot be fetched" in bot.output() and "Traceback" not in bot.output()
    assert fake.messages("a:keys-down") == []
