"""End to end in Socket Mode: `ricorda serve` with an app-level token, no public URL.

The real process (slack-bolt's Socket Mode handler, slack_sdk's aiohttp client) asks the fake
Web API for a socket URL with its app token, connects to a fake Socket Mode server on
127.0.0.1, and gets envelopes as Slack pushes them; answers go out through the Web API.
"""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.acme import load_acme
from tests.fake_slack import APP_TOKEN, BOT_TOKEN, FakeSlack
from tests.fake_slack_socket import FakeSocketMode
from tests.loopback import free_port
from tests.slack_harness import (
    REPO,
    BotProcess,
    command_form,
    event_callback,
    mention_event,
    serve_command,
    tap_payload,
)
from tests.test_slack_adapter import (
    CHINA_2024,
    assert_answered_once_each,
    buttons,
    served_by,
    text_of,
)


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return load_acme(tmp_path_factory.mktemp("slack-socket"))


@pytest.fixture(scope="module")
def socket() -> Iterator[FakeSocketMode]:
    server = FakeSocketMode().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def fake(socket: FakeSocketMode) -> Iterator[FakeSlack]:
    server = FakeSlack().start()
    server.socket_url = socket.url
    yield server
    server.stop()


@pytest.fixture(scope="module")
def bot(data_dir: Path, fake: FakeSlack, socket: FakeSocketMode) -> Iterator[BotProcess]:
    process = BotProcess(
        data_dir, fake, RICORDA_SLACK_APP_TOKEN=APP_TOKEN, RICORDA_SLACK_SIGNING_SECRET=""
    ).start(ready=lambda: socket.connected > 0)
    yield process
    process.stop()
    log = process.output()
    assert APP_TOKEN not in log and BOT_TOKEN not in log, "a secret appeared in the log"


def mention(socket: FakeSocketMode, channel: str, user: str, text: str) -> str:
    return socket.send("events_api", event_callback(mention_event(channel, user, text)))


def test_connects_with_the_app_token_and_answers_a_mention_in_its_thread(
    bot: BotProcess, fake: FakeSlack, socket: FakeSocketMode
) -> None:
    opened = fake.calls("apps.connections.open")
    assert opened and {c.token for c in opened} == {APP_TOKEN}
    envelope = mention(socket, "C0000201", "U0000201", CHINA_2024)
    assert socket.ack(envelope)["envelope_id"] == envelope
    reply = fake.wait_for(lambda: fake.posted("C0000201"))[0]
    assert reply["thread_ts"]
    shown = text_of(reply)
    assert "$1,320M" in shown and "ACME FY2024 Review, slide 2" in shown
    assert fake.calls("chat.postMessage", channel="C0000201")[0].token == BOT_TOKEN


def test_slash_help_answers_in_the_acknowledgement(
    bot: BotProcess, fake: FakeSlack, socket: FakeSocketMode
) -> None:
    envelope = socket.send(
        "slash_commands", command_form("C0000202", "U0000202", "help", f"{fake.url}/respond/c")
    )
    payload = socket.ack(envelope)["payload"]
    assert payload["response_type"] == "ephemeral" and "mention me" in payload["text"]
    assert "purge" not in payload["text"]


def test_a_button_tap_narrows_the_answer_in_the_thread(
    bot: BotProcess, fake: FakeSlack, socket: FakeSocketMode
) -> None:
    mention(socket, "C0000203", "U0000203", "What was revenue?")
    reply = fake.wait_for(lambda: fake.posted("C0000203"))[0]
    china = next(b for b in buttons(reply) if b["text"]["text"] == "ACME China")
    tap = tap_payload(
        "C0000203", "U0000203", reply, china["value"], china["action_id"], f"{fake.url}/respond/a"
    )
    assert socket.ack(socket.send("interactive", tap))
    narrowed = fake.wait_for(lambda: fake.posted("C0000203")[1:])[0]
    assert "$1,188M" in text_of(narrowed) and narrowed["thread_ts"] == reply["thread_ts"]


def test_a_redelivered_envelope_is_answered_once(
    bot: BotProcess, fake: FakeSlack, socket: FakeSocketMode
) -> None:
    body = event_callback(mention_event("C0000204", "U0000204", CHINA_2024), event_id="EvSOCK1")
    socket.send("events_api", body)
    socket.send("events_api", body, retry_attempt=1)
    mention(socket, "C0000204", "U0000204", "What was ACME HK revenue in FY2024?")
    assert_answered_once_each(fake, "C0000204", ["1,320", "410"])


def test_reconnects_when_slack_asks_and_keeps_answering(
    bot: BotProcess, fake: FakeSlack, socket: FakeSocketMode
) -> None:
    channel, question = "C0000205", "ACME Italia revenue in 2025?"
    mention(socket, channel, "U0000205", question)
    fake.wait_for(lambda: fake.posted(channel))
    opened, connections = len(fake.calls("apps.connections.open")), socket.connections
    socket.refresh()
    socket.wait_for(lambda: socket.connections > connections and socket.connected == 1)
    assert len(fake.calls("apps.connections.open")) > opened  # a fresh URL, as Slack wants
    mention(socket, channel, "U0000205", question)
    second = fake.wait_for(lambda: fake.posted(channel)[1:])[0]
    assert served_by(second) == "L0a" and "ACME Italia" in text_of(second)


def test_a_refused_app_token_stops_serve_with_one_clear_line(data_dir: Path) -> None:
    api = FakeSlack().start()
    revoked = "xapp-1-A0000001-9999-revoked-app-level-token"
    env = {**BotProcess(data_dir, api).env, "RICORDA_SLACK_APP_TOKEN": revoked}
    try:
        proc = subprocess.run(
            serve_command(), env=env, cwd=REPO, capture_output=True, text=True, timeout=60
        )
    finally:
        api.stop()
    assert proc.returncode == 2  # a configuration mistake: a restart would not fix it
    assert "Slack refused RICORDA_SLACK_APP_TOKEN (invalid_auth)" in proc.stderr
    assert "Traceback" not in proc.stderr and revoked not in proc.stdout + proc.stderr


def test_sigterm_ends_serve_while_slack_is_unreachable(data_dir: Path) -> None:
    """Socket URL issued, but nothing listens there: slack_sdk retries; SIGTERM still works."""
    api = FakeSlack().start()
    api.socket_url = f"ws://127.0.0.1:{free_port()}/link"
    process = BotProcess(data_dir, api, RICORDA_SLACK_APP_TOKEN=APP_TOKEN)
    try:
        process.start(ready=lambda: "Failed to connect" in process.output())
        assert process.proc is not None
        process.proc.send_signal(signal.SIGTERM)
        assert process.proc.wait(timeout=8) == 0
    finally:
        process.stop()
        api.stop()
