"""A fake Slack Web API: a real HTTP server on 127.0.0.1 that the real bot talks to.

Implements what ricorda calls (auth.test, chat.postMessage, chat.update, chat.postEphemeral,
reactions.add/remove/get, users.info, the external file upload (files.getUploadURLExternal,
the upload POST to the URL it returns, on this server, and files.completeUploadExternal), and
apps.connections.open for Socket Mode with the app token) plus response URLs (`/respond/...`),
and records every call and every uploaded file's bytes. reactions.add/remove keep the bot's
own reactions with the users' (`already_reacted`, `no_reaction` as Slack answers); users.info
returns the locale a test set with `set_locale` (en-US otherwise) when asked with
`include_locale`; `refuse` makes every call of a method fail with an error code (an app
without the scope). The bot's WebClient points at it with
`base_url` (RICORDA_SLACK_API_URL = `fake.api_url`).
`fail_once` makes the next call of a method answer 429 with Retry-After, or a 5xx, as Slack does.

In-process: `FakeSlack().start()`. For a benchmark that must not share the GIL with the bot,
`python -m tests.fake_slack` runs it alone and prints its URL; `GET /_fake/calls?method=M`
returns the recorded calls of one method.
"""

from __future__ import annotations

import argparse
import itertools
import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from tests.loopback import wait_on

BOT_TOKEN = "xoxb-0000-fake-bot-token-for-tests"
APP_TOKEN = "xapp-1-A0000001-0000-fake-app-level-token"  # Socket Mode's apps.connections.open
BOT_USER, BOT_ID, TEAM = "UBOT0001", "BBOT0001", "T0000001"


@dataclass
class Call:
    method: str
    params: dict[str, Any]
    token: str
    received: float  # time.monotonic()


@dataclass
class _State:
    calls: list[Call] = field(default_factory=list)
    messages: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    reactions: dict[tuple[str, str], dict[str, list[str]]] = field(default_factory=dict)
    failures: dict[str, list[tuple[int, int]]] = field(default_factory=dict)  # status, retry
    held: set[str] = field(default_factory=set)  # methods whose calls wait for `release`
    outside: set[str] = field(default_factory=set)  # conversations the bot is no member of
    holding: dict[str, int] = field(default_factory=dict)  # method -> calls waiting now
    locales: dict[str, str] = field(default_factory=dict)  # user -> Slack locale ("it-IT")
    refused: dict[str, str] = field(default_factory=dict)  # method -> error code, every call
    files: dict[str, dict[str, Any]] = field(default_factory=dict)  # file id -> upload


class FakeSlack:
    def __init__(self, *, port: int = 0) -> None:
        self._state = _State()
        self._cond = threading.Condition()
        self._ts = itertools.count(1)
        self._server = _Server(("127.0.0.1", port), self._handler_class())
        self._thread: threading.Thread | None = None
        self.socket_url: str | None = None  # a FakeSocketMode's url: apps.connections.open

    # -- lifecycle ---------------------------------------------------------------------

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def api_url(self) -> str:
        return f"{self.url}/api/"

    def start(self) -> FakeSlack:
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True,
                                        kwargs={"poll_interval": 0.05})
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    # -- what tests use ----------------------------------------------------------------

    def fail_once(self, method: str, *, status: int = 429, retry_after: int = 1) -> None:
        with self._cond:
            self._state.failures.setdefault(method, []).append((status, retry_after))

    def set_locale(self, user: str, locale: str) -> None:
        """The user's Slack language setting, as users.info reports it ("it-IT", "zh-CN")."""
        with self._cond:
            self._state.locales[user] = locale

    def refuse(self, method: str, error: str | None = "missing_scope") -> None:
        """Every later call of `method` answers ok=false with `error` (HTTP 200, as Slack);
        `error=None` lets the method work again."""
        with self._cond:
            if error is None:
                self._state.refused.pop(method, None)
            else:
                self._state.refused[method] = error

    def reactions_on(self, channel: str, ts: str, user: str = BOT_USER) -> list[str]:
        """The reaction names `user` (the bot, by default) has on a message now."""
        with self._cond:
            found = self._state.reactions.get((channel, ts), {})
            return [name for name, users in found.items() if user in users]

    def files(self, channel: str | None = None) -> list[dict[str, Any]]:
        """Files shared by files.completeUploadExternal, oldest first: id, filename, title,
        alt_txt, channel, thread_ts, the share's ts, and "data" (the uploaded bytes)."""
        with self._cond:
            return [dict(f) for f in self._state.files.values() if f.get("shared")
                    and (channel is None or f["channel"] == channel)]

    def not_a_member(self, channel: str) -> None:
        """A conversation the bot is not in (a DM between two people): posting there fails
        with `channel_not_found`, as Slack answers; response URLs still work."""
        with self._cond:
            self._state.outside.add(channel)

    def responses(self) -> list[dict[str, Any]]:
        """What the bot posted to response URLs, oldest first."""
        return [c.params for c in self.calls() if c.method.startswith("respond")]

    def hold(self, method: str) -> None:
        """Calls of `method` wait (unanswered) until `release`; a call whose bot went away
        meanwhile is then dropped, as a request that never reached Slack would be."""
        with self._cond:
            self._state.held.add(method)

    def release(self, method: str) -> None:
        with self._cond:
            self._state.held.discard(method)
            self._cond.notify_all()

    def holding(self, method: str) -> int:
        with self._cond:
            return self._state.holding.get(method, 0)

    def _wait_if_held(self, method: str) -> bool:
        with self._cond:
            if method not in self._state.held:
                return False
            self._state.holding[method] = self._state.holding.get(method, 0) + 1
            self._cond.notify_all()
            while method in self._state.held:
                self._cond.wait(0.5)
            self._state.holding[method] -= 1
            return True

    def calls(self, method: str | None = None, **match: Any) -> list[Call]:
        with self._cond:
            return [c for c in self._state.calls if (method is None or c.method == method)
                    and all(c.params.get(k) == v for k, v in match.items())]

    def posted(self, channel: str) -> list[dict[str, Any]]:
        """Messages the bot posted in a channel (threads included), oldest first."""
        with self._cond:
            return [m for (c, _), m in self._state.messages.items() if c == channel]

    def ephemeral(self, user: str) -> list[dict[str, Any]]:
        return [c.params for c in self.calls("chat.postEphemeral", user=user)]

    def react(self, channel: str, ts: str, user: str, name: str, *, add: bool = True) -> None:
        """What Slack's state looks like after a user's reaction (before the event arrives)."""
        with self._cond:
            users = self._state.reactions.setdefault((channel, ts), {}).setdefault(name, [])
            if add and user not in users:
                users.append(user)
            elif not add and user in users:
                users.remove(user)

    def wait_for(self, predicate: Callable[[], Any], timeout: float = 15.0) -> Any:
        """Block until `predicate()` is truthy (re-checked on every bot call); its value."""
        return wait_on(self._cond, predicate, timeout)

    # -- the API -------------------------------------------------------------------------

    def _handle(self, method: str, params: dict[str, Any],
                token: str) -> tuple[int, dict[str, Any], dict[str, str]]:
        with self._cond:
            self._state.calls.append(Call(method, params, token, time.monotonic()))
            failures = self._state.failures.get(method)
            failure = failures.pop(0) if failures else None
            self._cond.notify_all()
        if failure is not None:
            status, retry_after = failure
            if status == 429:
                return 429, {"ok": False, "error": "ratelimited"}, {
                    "Retry-After": str(retry_after)}
            return status, {"ok": False, "error": "fatal_error"}, {}
        if method == "apps.connections.open":  # the one method that takes the app token
            if not token.startswith("xapp-"):
                return 200, {"ok": False, "error": "not_allowed_token_type"}, {}
            if token != APP_TOKEN or self.socket_url is None:
                return 200, {"ok": False, "error": "invalid_auth"}, {}
            return 200, {"ok": True, "url": self.socket_url}, {}
        if token != BOT_TOKEN and not method.startswith("respond"):
            return 200, {"ok": False, "error": "invalid_auth"}, {}
        with self._cond:
            body = self._method(method, params)
            self._cond.notify_all()
        return 200, body, {}

    def _method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method in self._state.refused:
            return {"ok": False, "error": self._state.refused[method]}
        if method.startswith("chat.") and params.get("channel") in self._state.outside:
            return {"ok": False, "error": "channel_not_found"}
        if method == "auth.test":
            return {"ok": True, "url": "https://fake.slack.test/", "team": "Fake",
                    "user": "ricorda", "team_id": TEAM, "user_id": BOT_USER, "bot_id": BOT_ID}
        if method == "chat.postMessage":
            ts = f"{1_700_000_000 + next(self._ts)}.000100"
            message = {**params, "ts": ts, "user": BOT_USER, "bot_id": BOT_ID}
            self._state.messages[(params["channel"], ts)] = message
            return {"ok": True, "channel": params["channel"], "ts": ts, "message": message}
        if method == "chat.update":
            key = (params.get("channel", ""), params.get("ts", ""))
            if key not in self._state.messages:
                return {"ok": False, "error": "message_not_found"}
            self._state.messages[key].update(params)
            return {"ok": True, "channel": key[0], "ts": key[1]}
        if method == "chat.postEphemeral":
            return {"ok": True, "message_ts": f"{1_700_000_000 + next(self._ts)}.000200"}
        if method in ("reactions.add", "reactions.remove"):
            key = (params.get("channel", ""), params.get("timestamp", ""))
            if key not in self._state.messages:
                return {"ok": False, "error": "message_not_found"}
            if not params.get("name"):
                return {"ok": False, "error": "invalid_name"}
            users = self._state.reactions.setdefault(key, {}).setdefault(params["name"], [])
            if method == "reactions.add":
                if BOT_USER in users:
                    return {"ok": False, "error": "already_reacted"}
                users.append(BOT_USER)
            elif BOT_USER not in users:
                return {"ok": False, "error": "no_reaction"}
            else:
                users.remove(BOT_USER)
            return {"ok": True}
        if method == "users.info":
            user = str(params.get("user") or "")
            if not user.startswith("U"):
                return {"ok": False, "error": "user_not_found"}
            profile: dict[str, Any] = {"id": user, "team_id": TEAM, "name": user.lower(),
                                       "is_bot": False}
            if str(params.get("include_locale", "")).lower() in ("true", "1"):
                profile["locale"] = self._state.locales.get(user, "en-US")
            return {"ok": True, "user": profile}
        if method == "reactions.get":
            key = (params.get("channel", ""), params.get("timestamp", ""))
            if key not in self._state.messages:
                return {"ok": False, "error": "message_not_found"}
            found = self._state.reactions.get(key, {})
            reactions = [{"name": n, "users": list(u), "count": len(u)}
                         for n, u in found.items() if u]
            return {"ok": True, "type": "message", "channel": key[0],
                    "message": {**self._state.messages[key], "reactions": reactions}}
        if method == "files.getUploadURLExternal":
            return self._upload_url(params)
        if method == "files.completeUploadExternal":
            return self._complete_upload(params)
        if method.startswith("respond"):
            return {"ok": True}
        return {"ok": False, "error": "unknown_method"}

    def _upload_url(self, params: dict[str, Any]) -> dict[str, Any]:
        try:
            length = int(params.get("length") or 0)
        except ValueError:
            length = 0
        if not params.get("filename") or length <= 0:
            return {"ok": False, "error": "invalid_arguments"}
        file_id = f"F{len(self._state.files) + 1:08d}"
        self._state.files[file_id] = {"id": file_id, "filename": params["filename"],
                                      "length": length, "alt_txt": params.get("alt_txt"),
                                      "data": None, "shared": False}
        return {"ok": True, "upload_url": f"{self.url}/upload/{file_id}", "file_id": file_id}

    def _receive_upload(self, file_id: str, data: bytes) -> bool:
        with self._cond:
            upload = self._state.files.get(file_id)
            if upload is None:
                return False
            upload["data"] = data
            self._cond.notify_all()
            return True

    def _complete_upload(self, params: dict[str, Any]) -> dict[str, Any]:
        try:
            wanted = json.loads(params.get("files") or "[]")
        except ValueError:
            return {"ok": False, "error": "invalid_arguments"}
        channel = params.get("channel_id") or ""
        if channel in self._state.outside:
            return {"ok": False, "error": "channel_not_found"}
        done = []
        for item in wanted:
            upload = self._state.files.get(str(item.get("id")))
            if upload is None or upload["data"] is None or len(upload["data"]) != upload[
                    "length"]:
                return {"ok": False, "error": "file_not_found"}
            ts = f"{1_700_000_000 + next(self._ts)}.000300"
            upload.update(shared=True, title=item.get("title"), channel=channel,
                          thread_ts=params.get("thread_ts"), ts=ts)
            share = {"ts": ts, **({"thread_ts": params["thread_ts"]}
                                  if params.get("thread_ts") else {})}
            done.append({"id": upload["id"], "name": upload["filename"],
                         "title": upload["title"], "size": upload["length"],
                         "shares": {"public": {channel: [share]}} if channel else {}})
        return {"ok": True, "files": done}

    def _control(self, query: dict[str, str]) -> list[dict[str, Any]]:
        return [{"method": c.method, "received": c.received, "params": c.params}
                for c in self.calls(query.get("method"))]

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                url = urlsplit(self.path)
                query = dict(parse_qsl(url.query))
                if url.path == "/_fake/calls":
                    self._reply(200, fake._control(query), {})
                    return
                self._api(url.path, query)

            def do_POST(self) -> None:
                url = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                if url.path.startswith("/upload/"):  # the upload URL: raw bytes, no token
                    found = fake._receive_upload(url.path.removeprefix("/upload/"), raw)
                    self._text(200 if found else 404, f"OK - {len(raw)}" if found else "")
                    return
                params = dict(parse_qsl(url.query))
                params.update(_params(self.headers.get("Content-Type", ""), raw))
                self._api(url.path, params)

            def _api(self, path: str, params: dict[str, Any]) -> None:
                if path.startswith("/respond/"):
                    method = "respond" + path.removeprefix("/respond")
                elif path.startswith("/api/"):
                    method = path.removeprefix("/api/")
                else:
                    self._reply(404, {"ok": False, "error": "not_found"}, {})
                    return
                if fake._wait_if_held(method) and _closed(self.connection):
                    return  # the bot died while its call was held: Slack never saw it
                auth = self.headers.get("Authorization", "")
                token = auth.removeprefix("Bearer ") or str(params.pop("token", ""))
                status, body, headers = fake._handle(method, params, token)
                self._reply(status, body, headers)

            def _reply(self, status: int, body: Any, headers: dict[str, str]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def _text(self, status: int, text: str) -> None:
                data = text.encode()
                self.send_response(status)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler


class _Server(ThreadingHTTPServer):
    request_queue_size = 256  # Slack does not drop connections: 50 concurrent senders connect
    daemon_threads = True


def _closed(connection: socket.socket) -> bool:
    """The peer closed (or reset) the connection: nothing will read our answer."""
    try:
        return connection.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def _params(content_type: str, raw: bytes) -> dict[str, Any]:
    if not raw:
        return {}
    if "json" in content_type:
        value = json.loads(raw)
        return value if isinstance(value, dict) else {}
    return dict(parse_qsl(raw.decode()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    fake = FakeSlack(port=args.port)
    print(fake.url, flush=True)
    fake._server.serve_forever()


if __name__ == "__main__":
    main()
