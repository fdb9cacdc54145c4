"""`ricorda serve` never prints a secret, whatever the platform answers: a rejected token (401 /
invalid_auth), a connection dropped on accept, a page of garbage. Every byte of stdout and
stderr is searched for every secret, at INFO (the default) and at DEBUG (tracebacks on)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import fresh_postgres_schema
from tests.fake_slack import FakeSlack
from tests.fake_telegram import FakeTelegram
from tests.hostile_api import DroppingServer, GarbageServer
from tests.loopback import free_port, post_when_up, stop_process
from tests.slack_harness import SIGNING_SECRET, event_callback, mention_event, sign

REPO = Path(__file__).resolve().parents[1]
ACME = Path(__file__).parent / "fixtures" / "acme"
DB_PASSWORD = "pw-Secret-db-4815162342"
SECRETS = {
    "RICORDA_TELEGRAM_TOKEN": "987654321:AAH-secret-telegram-token-zz98765432100",
    "RICORDA_TELEGRAM_WEBHOOK_SECRET": "tg-webhook-secret-value-31337",
    "RICORDA_SLACK_BOT_TOKEN": "xoxb-1111-2222-secretbottokenvalue",
    "RICORDA_SLACK_APP_TOKEN": "xapp-1-A999-3333-secretapptokenvalue",
    "RICORDA_CALLBACK_SECRET": "callback-secret-value-271828",
    "RICORDA_LLM_API_KEY": "sk-secret-llm-api-key-161803",
}


@pytest.fixture(scope="module")
def database() -> Iterator[str]:
    """A PostgreSQL schema holding a knowledge base, reached with a password in the URL
    (the server trusts loopback, so any password connects)."""
    with fresh_postgres_schema() as url:
        url = url.replace("://postgres@", f"://postgres:{DB_PASSWORD}@", 1)
        env = {**_clean_env(), "RICORDA_DATABASE_URL": url, "RICORDA_DATA_DIR": "/tmp"}
        done = subprocess.run([sys.executable, "-m", "bot", "ingest", str(ACME / "glossary.toml")],
                              env=env, cwd=REPO, capture_output=True, timeout=120)
        assert done.returncode == 0, done.stderr
        yield url


def _clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RICORDA_")}
    return {**env, "RICORDA_EMBEDDER": "hashing", "RICORDA_METRICS_PORT": "0",
            "RICORDA_REFERENCE_DATE": "2026-06-15"}


def _serve(tmp_path: Path, database: str, level: str, env: dict[str, str], *,
           stop_after: float | None = None, poke: Any = None) -> tuple[int, bytes]:
    """Run `ricorda serve` until it exits by itself (or `stop_after` seconds, then SIGTERM);
    its exit code and everything it wrote on stdout and stderr."""
    full = {**_clean_env(), "RICORDA_DATA_DIR": str(tmp_path / "data"),
            "RICORDA_DATABASE_URL": database, "RICORDA_LOG_LEVEL": level, **env}
    out, err = tmp_path / "out", tmp_path / "err"
    with out.open("wb") as o, err.open("wb") as e:
        proc = subprocess.Popen([sys.executable, "-m", "bot", "serve"], env=full, cwd=REPO,
                                stdout=o, stderr=e)
        try:
            if stop_after is None:
                proc.wait(timeout=90)
            else:
                if poke is not None:
                    poke()
                time.sleep(stop_after)
                assert proc.poll() is None, err.read_text()  # still serving, as it should
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=30)
        finally:
            stop_process(proc)
    return proc.returncode, out.read_bytes() + err.read_bytes()


def _assert_no_secret(output: bytes) -> None:
    every = [*SECRETS.values(), DB_PASSWORD, SIGNING_SECRET]
    for secret in every:
        for piece in (secret, secret[-16:]):
            assert piece.encode() not in output, f"{piece!r} printed:\n{output.decode()[-3000:]}"


LEVELS = ["INFO", "DEBUG"]


def _without(*names: str) -> dict[str, str]:
    """The secrets of the platforms this run does not start (the others are set all along)."""
    return {k: v for k, v in SECRETS.items() if k not in names}


@pytest.mark.postgres
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("answer", ["reject", "drop", "garbage"])
def test_telegram(tmp_path: Path, database: str, level: str, answer: str) -> None:
    api: Any = {"reject": FakeTelegram, "drop": DroppingServer, "garbage": GarbageServer}[answer]()
    api.start()
    try:
        code, output = _serve(tmp_path, database, level, {
            **_without("RICORDA_SLACK_BOT_TOKEN", "RICORDA_SLACK_APP_TOKEN"),
            "RICORDA_TELEGRAM_API_URL": api.url})
    finally:
        api.stop()
    _assert_no_secret(output)
    text = output.decode()
    expected = {"reject": "Telegram rejected RICORDA_TELEGRAM_TOKEN",
                "drop": "cannot reach the Telegram Bot API",
                "garbage": "answered something unexpected"}[answer]
    assert expected in text.splitlines()[-1], text[-2000:]
    assert code == (2 if answer == "reject" else 1)
    assert ("Traceback" in text) == (level == "DEBUG")


@pytest.mark.postgres
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("answer", ["reject", "drop", "garbage"])
def test_slack_socket_mode(tmp_path: Path, database: str, level: str, answer: str) -> None:
    api: Any = {"reject": FakeSlack, "drop": DroppingServer, "garbage": GarbageServer}[answer]()
    api.start()
    url = api.api_url if answer == "reject" else api.url + "/api/"
    try:
        code, output = _serve(tmp_path, database, level, {
            **_without("RICORDA_TELEGRAM_TOKEN"), "RICORDA_SLACK_API_URL": url},
            stop_after=None if answer == "reject" else 4.0)
    finally:
        api.stop()
    _assert_no_secret(output)
    if answer == "reject":
        assert "Slack refused RICORDA_SLACK_APP_TOKEN" in output.decode().splitlines()[-1]
        assert code == 2


@pytest.mark.postgres
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("answer", ["reject", "drop", "garbage"])
def test_slack_http_mode(tmp_path: Path, database: str, level: str, answer: str) -> None:
    api: Any = {"reject": FakeSlack, "drop": DroppingServer, "garbage": GarbageServer}[answer]()
    api.start()
    url = api.api_url if answer == "reject" else api.url + "/api/"
    port = free_port()

    def mention() -> None:  # the bot answers into the broken API: its errors are logged
        body = __import__("json").dumps(event_callback(mention_event("C1", "U1", "revenue?")))
        post_when_up(f"http://127.0.0.1:{port}/slack/events", body,
                     {**sign(body), "Content-Type": "application/json"}, within=30)

    env = {**_without("RICORDA_TELEGRAM_TOKEN", "RICORDA_SLACK_APP_TOKEN"),
           "RICORDA_SLACK_SIGNING_SECRET": SIGNING_SECRET, "RICORDA_SLACK_API_URL": url,
           "RICORDA_SLACK_HOST": "127.0.0.1", "RICORDA_SLACK_PORT": str(port)}
    try:
        code, output = _serve(tmp_path, database, level, env,
                              stop_after=None if answer == "reject" else 3.0,
                              poke=None if answer == "reject" else mention)
    finally:
        api.stop()
    _assert_no_secret(output)
    if answer == "reject":
        assert "Slack refused RICORDA_SLACK_BOT_TOKEN" in output.decode().splitlines()[-1]
        assert code == 2
