"""Run the real Slack adapter process against the fake Web API, and talk to it as Slack does:
signed HTTP requests (events, block actions, slash commands) to its `/slack/events` endpoint.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx

from tests.fake_slack import BOT_TOKEN, BOT_USER, TEAM, FakeSlack
from tests.loopback import free_port, stop_process

REPO = Path(__file__).resolve().parents[1]
SIGNING_SECRET = "fake-signing-secret-0123456789abcdef"
ADMIN = "UADMIN01"
ADMIN_IT = "UADMIN02"  # a second admin, for tests that set an Italian locale
_EVENT_IDS = itertools.count(1)


def text_of(message: dict[str, Any], *, buttons: bool = False) -> str:
    """Everything a person reads in a Block Kit message (with `buttons`, their labels too),
    as posted: escaped."""
    parts = []
    for block in message.get("blocks") or []:
        if block["type"] == "section":
            parts.append(block["text"]["text"])
        elif block["type"] == "context":
            parts += [e["text"] for e in block["elements"]]
        elif block["type"] == "actions" and buttons:
            parts += [e["text"]["text"] for e in block["elements"]]
    return "\n".join(parts)


def serve_command() -> list[str]:
    """`ricorda serve`, exactly what a user runs."""
    return [sys.executable, "-m", "bot", "serve"]


def sign(body: str, *, secret: str = SIGNING_SECRET, timestamp: int | None = None
         ) -> dict[str, str]:
    """The two headers Slack puts on every request."""
    ts = str(int(time.time()) if timestamp is None else timestamp)
    mac = hmac.new(secret.encode(), f"v0:{ts}:{body}".encode(), hashlib.sha256).hexdigest()
    return {"X-Slack-Request-Timestamp": ts, "X-Slack-Signature": f"v0={mac}"}


def event_callback(event: dict[str, Any], *, event_id: str | None = None) -> dict[str, Any]:
    """The body of an Events API delivery (HTTP) or the payload of an `events_api` envelope."""
    return {
        "token": "unused", "team_id": TEAM, "api_app_id": "A0000001",
        "type": "event_callback", "event_id": event_id or f"Ev{next(_EVENT_IDS):08d}",
        "event_time": int(time.time()), "event": event,
        "authorizations": [{"team_id": TEAM, "user_id": BOT_USER, "is_bot": True}],
    }


def mention_event(channel: str, user: str, text: str) -> dict[str, Any]:
    return {"type": "app_mention", "user": user, "channel": channel,
            "text": f"<@{BOT_USER}> {text}", "ts": _ts()}


def tap_payload(channel: str, user: str, message: dict[str, Any], value: str,
                action_id: str, response_url: str) -> dict[str, Any]:
    """A button tap (block_actions), as Slack sends it."""
    return {
        "type": "block_actions", "team": {"id": TEAM}, "user": {"id": user},
        "api_app_id": "A0000001", "trigger_id": "1.2.3",
        "container": {"type": "message", "message_ts": message["ts"],
                      "channel_id": channel, "is_ephemeral": False},
        "channel": {"id": channel}, "message": message, "response_url": response_url,
        "actions": [{"action_id": action_id, "block_id": "ricorda_options",
                     "value": value, "type": "button", "action_ts": _ts()}],
    }


def command_form(channel: str, user: str, text: str, response_url: str) -> dict[str, str]:
    """A `/ricorda` slash command, as Slack sends it."""
    return {"token": "unused", "team_id": TEAM, "channel_id": channel, "user_id": user,
            "command": "/ricorda", "text": text, "trigger_id": "1.2.3",
            "response_url": response_url, "api_app_id": "A0000001"}


class SlackSender:
    """Posts Slack's payloads, signed, to the bot's HTTP endpoint."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.http = httpx.Client(timeout=10)

    def post(self, body: str, content_type: str, *, signed: bool = True,
             headers: dict[str, str] | None = None, timestamp: int | None = None
             ) -> httpx.Response:
        head = {"Content-Type": content_type, **(headers or {})}
        if signed:
            head.update(sign(body, timestamp=timestamp))
        return self.http.post(self.url, content=body, headers=head)

    def event(self, event: dict[str, Any], *, event_id: str | None = None,
              **kw: Any) -> httpx.Response:
        body = json.dumps(event_callback(event, event_id=event_id))
        return self.post(body, "application/json", **kw)

    def mention(self, channel: str, user: str, text: str, **kw: Any) -> httpx.Response:
        return self.event(mention_event(channel, user, text), **kw)

    def direct(self, channel: str, user: str, text: str, **extra: Any) -> httpx.Response:
        return self.event({"type": "message", "channel_type": "im", "user": user,
                           "channel": channel, "text": text, "ts": _ts(), **extra})

    def reaction(self, channel: str, ts: str, user: str, name: str, *,
                 added: bool = True) -> httpx.Response:
        return self.event({"type": "reaction_added" if added else "reaction_removed",
                           "user": user, "reaction": name, "item_user": BOT_USER,
                           "item": {"type": "message", "channel": channel, "ts": ts},
                           "event_ts": _ts()})

    def tap(self, channel: str, user: str, message: dict[str, Any], value: str,
            action_id: str = "ricorda_option_0") -> httpx.Response:
        payload = tap_payload(channel, user, message, value, action_id,
                              f"{self.respond_base}/actions")
        return self.post(urlencode({"payload": json.dumps(payload)}),
                         "application/x-www-form-urlencoded")

    def command(self, channel: str, user: str, text: str) -> httpx.Response:
        form = command_form(channel, user, text, f"{self.respond_base}/commands")
        return self.post(urlencode(form), "application/x-www-form-urlencoded")

    respond_base = ""  # set by the harness: the fake's /respond URL


class BotProcess:
    def __init__(self, data_dir: Path, fake: FakeSlack, **env: str) -> None:
        self.fake = fake
        self.data_dir = data_dir
        self.port = free_port()
        self.log = data_dir / "slack-bot.log"
        self.env = {
            **os.environ,
            "RICORDA_DATA_DIR": str(data_dir),
            "RICORDA_SLACK_BOT_TOKEN": BOT_TOKEN,
            "RICORDA_SLACK_SIGNING_SECRET": SIGNING_SECRET,
            "RICORDA_SLACK_API_URL": fake.api_url,
            "RICORDA_SLACK_HOST": "127.0.0.1",
            "RICORDA_SLACK_PORT": str(self.port),
            "RICORDA_EMBEDDER": "hashing",
            "RICORDA_ADMINS": f"slack:{ADMIN},slack:{ADMIN_IT}",
            "RICORDA_LOG_LEVEL": "INFO",
            "RICORDA_METRICS_PORT": "0",  # a free port: several bots may run at once
            "RICORDA_REFERENCE_DATE": "2026-06-15",
            "RICORDA_SHOW_FOOTER": "true",  # the tests read the serving level from the footer
            "HF_HUB_OFFLINE": "1",
            **env,
        }
        self.proc: subprocess.Popen[bytes] | None = None
        self.sender = SlackSender(f"http://127.0.0.1:{self.port}/slack/events")
        self.sender.respond_base = f"{fake.url}/respond"

    def start(self, timeout: float = 300, ready: Callable[[], bool] | None = None) -> BotProcess:
        """Start and wait until `ready()` (default: the HTTP endpoint's health check answers)."""
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(serve_command(), env=self.env, cwd=REPO, stdout=out,
                                         stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while True:
            if (ready or self._healthy)():
                return self
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the Slack bot did not start:\n{self.output()[-3000:]}")
            time.sleep(0.1)

    def _healthy(self) -> bool:
        try:
            return httpx.get(f"http://127.0.0.1:{self.port}/healthz").status_code == 200
        except httpx.TransportError:
            return False

    def stop(self) -> None:
        stop_process(self.proc)
        self.proc = None

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


def _ts() -> str:
    return f"{time.time():.6f}"
