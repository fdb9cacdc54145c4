"""A fake Telegram Bot API: a real HTTP server on 127.0.0.1 that the real bot talks to.

Implements the methods ricorda uses (getMe, getUpdates, sendMessage, sendPhoto (multipart, the
image's bytes kept), sendDocument (a table as CSV, its bytes kept), editMessageText,
answerCallbackQuery, sendChatAction, setMessageReaction,
setMyCommands, setWebhook, deleteWebhook, ...). A test injects updates and reads back every
call the bot made; `fail_once` makes the next call of a method answer 429 with retry_after, as
Telegram does under flood control, or another error (`status=400`); `refuse` makes every call
of a method fail with 400. setMessageReaction checks what Telegram checks: the message exists
and the emoji is in Telegram's fixed reaction set; `bot_reactions` reads back the bot's
reaction on a message.

In-process use: `FakeTelegram().start()`. For a benchmark that must not share the GIL with the
bot, `python -m tests.fake_telegram --port N` runs it alone, controlled over HTTP (`/_fake/...`).
"""

from __future__ import annotations

import argparse
import email.policy
import itertools
import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.parser import BytesParser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from telegram.constants import ReactionEmoji

from tests.loopback import wait_on

TOKEN = "123456:FAKE-token-for-tests-0123456789abcdefgh"
BOT = {"id": 4242, "is_bot": True, "first_name": "Ricorda", "username": "ricorda_test_bot",
       "can_join_groups": True, "can_read_all_group_messages": False,
       "supports_inline_queries": False}
_JSON_FIELDS = {"reply_markup", "allowed_updates", "commands", "scope", "reply_parameters",
                "link_preview_options", "entities", "reaction"}
_TRUE_METHODS = {"sendChatAction", "setMyCommands", "deleteWebhook", "setWebhook",
                 "deleteMessage", "close", "logOut", "deleteMyCommands"}
ALLOWED_REACTIONS = frozenset(e.value for e in ReactionEmoji)  # Telegram's fixed set


@dataclass
class Call:
    method: str
    params: dict[str, Any]
    received: float  # time.monotonic() when the request arrived
    done: float = 0.0  # when the response was ready


@dataclass
class _State:
    updates: list[dict[str, Any]] = field(default_factory=list)
    injected: dict[int, float] = field(default_factory=dict)
    delivered: dict[int, float] = field(default_factory=dict)
    calls: list[Call] = field(default_factory=list)
    messages: dict[tuple[int, int], dict[str, Any]] = field(default_factory=dict)
    # method -> [(status, retry_after, description)...]
    failures: dict[str, list[tuple[int, int, str]]] = field(default_factory=dict)
    bot_reactions: dict[tuple[int, int], list[str]] = field(default_factory=dict)
    webhook: dict[str, Any] = field(default_factory=dict)
    held: set[str] = field(default_factory=set)  # methods whose calls wait for `release`
    holding: dict[str, int] = field(default_factory=dict)  # method -> calls waiting now
    refusals: dict[str, list[str]] = field(default_factory=dict)  # method -> [description]


class FakeTelegram:
    def __init__(self, *, token: str = TOKEN, port: int = 0) -> None:
        self.token = token
        self._state = _State()
        self._cond = threading.Condition()
        self._update_ids = itertools.count(1000)
        self._message_ids = itertools.count(500)
        self._server = ThreadingHTTPServer(("127.0.0.1", port), self._handler_class())
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> FakeTelegram:
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True,
                                        kwargs={"poll_interval": 0.05})
        self._thread.start()
        return self

    def stop(self) -> None:
        with self._cond:
            self._cond.notify_all()
        self._server.shutdown()
        self._server.server_close()

    # -- what a test does ------------------------------------------------------------------

    def inject(self, update: dict[str, Any], *, copies: int = 1) -> int:
        """Queue an update for getUpdates; returns its update_id (given one is kept).

        `copies=2` delivers it twice in one batch, as a redelivery would."""
        with self._cond:
            update = {"update_id": next(self._update_ids), **update}
            self._state.updates.extend([update] * copies)
            self._state.injected.setdefault(int(update["update_id"]), time.monotonic())
            self._cond.notify_all()
        return int(update["update_id"])

    def fail_once(self, method: str, *, retry_after: int = 1, status: int = 429,
                  description: str = "Bad Request: REACTION_INVALID") -> None:
        """The next call of `method` gets 429 Too Many Requests with this retry_after, or
        (another `status`) that error with `description`."""
        with self._cond:
            self._state.failures.setdefault(method, []).append(
                (status, retry_after, description))

    def bot_reactions(self, chat_id: int, message_id: int) -> list[str]:
        """The emoji the bot has set on a message (empty: none, or cleared)."""
        with self._cond:
            return list(self._state.bot_reactions.get((chat_id, message_id), []))

    def hold(self, method: str) -> None:
        """Calls of `method` wait (unanswered) until `release`; a call whose bot went away
        meanwhile is then dropped, as a request that never reached Telegram would be."""
        with self._cond:
            self._state.held.add(method)

    def release(self, method: str) -> None:
        with self._cond:
            self._state.held.discard(method)
            self._cond.notify_all()

    def holding(self, method: str) -> int:
        """How many calls of `method` are waiting for `release` now."""
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
                    and all(str(c.params.get(k)) == str(v) for k, v in match.items())]

    def sent(self, chat_id: int | None = None) -> list[dict[str, Any]]:
        """Messages the bot sent (sendMessage), oldest first, optionally to one chat."""
        with self._cond:
            out = [m for m in self._state.messages.values() if m.get("_sent")]
        out = [m for m in out if chat_id is None or m["chat"]["id"] == chat_id]
        return sorted(out, key=lambda m: m["message_id"])

    def photos(self, chat_id: int | None = None) -> list[dict[str, Any]]:
        """Photos the bot sent (sendPhoto), oldest first: the message as Telegram returns it,
        plus "_image" (the uploaded bytes) and "_filename"."""
        with self._cond:
            out = [m for m in self._state.messages.values() if m.get("_photo")]
        out = [m for m in out if chat_id is None or m["chat"]["id"] == chat_id]
        return sorted(out, key=lambda m: m["message_id"])

    def documents(self, chat_id: int | None = None) -> list[dict[str, Any]]:
        """Documents the bot sent (sendDocument), oldest first, with "_data" (the file's bytes)
        and "_filename"."""
        with self._cond:
            out = [m for m in self._state.messages.values() if m.get("_document")]
        out = [m for m in out if chat_id is None or m["chat"]["id"] == chat_id]
        return sorted(out, key=lambda m: m["message_id"])

    def everything_sent(self, chat_id: int) -> list[dict[str, Any]]:
        """Every message the bot put in a chat: text, photos and documents, oldest first."""
        with self._cond:
            out = [m for m in self._state.messages.values()
                   if (m.get("_sent") or m.get("_photo") or m.get("_document"))
                   and m["chat"]["id"] == chat_id]
        return sorted(out, key=lambda m: m["message_id"])

    def refuse(self, method: str, description: str = "Bad Request: wrong file") -> None:
        """The next call of `method` gets 400 with this description, as Telegram refuses a
        file it cannot take."""
        with self._cond:
            self._state.refusals.setdefault(method, []).append(description)

    def message(self, chat_id: int, message_id: int) -> dict[str, Any] | None:
        with self._cond:
            return self._state.messages.get((chat_id, message_id))

    def wait_for(self, predicate: Callable[[], Any], timeout: float = 15.0) -> Any:
        """Block until `predicate()` is truthy (re-checked on every bot call); its value."""
        return wait_on(self._cond, predicate, timeout)

    def pending(self) -> int:
        with self._cond:
            return len(self._state.updates)

    @property
    def webhook(self) -> dict[str, Any]:
        with self._cond:
            return dict(self._state.webhook)

    @property
    def delivered(self) -> dict[int, float]:
        with self._cond:
            return dict(self._state.delivered)

    # -- update builders -------------------------------------------------------------------

    @staticmethod
    def user(user_id: int, language: str = "en") -> dict[str, Any]:
        return {"id": user_id, "is_bot": False, "first_name": f"user{user_id}",
                "language_code": language}

    @staticmethod
    def chat(chat_id: int) -> dict[str, Any]:
        if chat_id > 0:
            return {"id": chat_id, "type": "private", "first_name": f"user{chat_id}"}
        return {"id": chat_id, "type": "supergroup", "title": f"group{chat_id}"}

    def text(self, chat_id: int, user_id: int, text: str, *, reply_to: int | None = None,
             language: str = "en", entities: list[dict[str, Any]] | None = None,
             message_id: int | None = None) -> dict[str, Any]:
        message: dict[str, Any] = {
            "message_id": message_id or next(self._message_ids), "date": int(time.time()),
            "chat": self.chat(chat_id), "from": self.user(user_id, language), "text": text,
        }
        if text.startswith("/"):
            command = text.split()[0]
            entities = [{"type": "bot_command", "offset": 0, "length": len(command)},
                        *(entities or [])]
        if entities:
            message["entities"] = entities
        if reply_to is not None:
            replied = self.message(chat_id, reply_to)
            message["reply_to_message"] = _plain(replied) if replied else {
                "message_id": reply_to, "date": int(time.time()), "chat": self.chat(chat_id)}
        return {"message": message}

    def mention(self, chat_id: int, user_id: int, text: str) -> dict[str, Any]:
        """`@ricorda_test_bot <text>` with its mention entity."""
        handle = f"@{BOT['username']}"
        return self.text(chat_id, user_id, f"{handle} {text}",
                         entities=[{"type": "mention", "offset": 0, "length": len(handle)}])

    def photo(self, chat_id: int, user_id: int) -> dict[str, Any]:
        return {"message": {
            "message_id": next(self._message_ids), "date": int(time.time()),
            "chat": self.chat(chat_id), "from": self.user(user_id),
            "photo": [{"file_id": "p1", "file_unique_id": "u1", "width": 90, "height": 90}]}}

    def tap(self, chat_id: int, user_id: int, message_id: int, data: str) -> dict[str, Any]:
        shown = self.message(chat_id, message_id) or {
            "message_id": message_id, "date": int(time.time()), "chat": self.chat(chat_id)}
        return {"callback_query": {
            "id": str(next(self._update_ids)), "from": self.user(user_id),
            "chat_instance": f"ci{chat_id}", "data": data, "message": _plain(shown)}}

    def reaction(self, chat_id: int, user_id: int, message_id: int, new: list[str],
                 old: list[str] | None = None) -> dict[str, Any]:
        def emojis(items: list[str]) -> list[dict[str, str]]:
            return [{"type": "emoji", "emoji": e} for e in items]

        return {"message_reaction": {
            "chat": self.chat(chat_id), "message_id": message_id, "user": self.user(user_id),
            "date": int(time.time()), "old_reaction": emojis(old or []),
            "new_reaction": emojis(new)}}

    # -- the Bot API -----------------------------------------------------------------------

    def _handle(self, method: str, params: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with self._cond:
            failures = self._state.failures.get(method)
            if failures:
                status, retry_after, description = failures.pop(0)
                if status != 429:
                    return status, {"ok": False, "error_code": status,
                                    "description": description}
                return 429, {"ok": False, "error_code": 429,
                             "description": f"Too Many Requests: retry after {retry_after}",
                             "parameters": {"retry_after": retry_after}}
        with self._cond:
            refusals = self._state.refusals.get(method)
            if refusals:
                return 400, {"ok": False, "error_code": 400, "description": refusals.pop(0)}
        if method == "getUpdates":
            return 200, {"ok": True, "result": self._get_updates(params)}
        if method == "setMessageReaction":
            with self._cond:
                refused = self._set_reaction(params)
                self._cond.notify_all()
            if refused:
                return 400, {"ok": False, "error_code": 400, "description": refused}
            return 200, {"ok": True, "result": True}
        with self._cond:
            result = self._method(method, params)
            self._cond.notify_all()
        if result is None:
            return 404, {"ok": False, "error_code": 404, "description": "Not Found"}
        return 200, {"ok": True, "result": result}

    def _method(self, method: str, params: dict[str, Any]) -> Any:
        if method == "getMe":
            return BOT
        if method == "sendMessage":
            chat_id = int(params["chat_id"])
            message = {"message_id": next(self._message_ids), "date": int(time.time()),
                       "chat": self.chat(chat_id), "from": BOT, "text": params.get("text", ""),
                       "_sent": True, "_params": params}
            if "reply_markup" in params:
                message["reply_markup"] = params["reply_markup"]
            self._state.messages[(chat_id, message["message_id"])] = message
            return _plain(message)
        if method == "sendPhoto":
            chat_id = int(params["chat_id"])
            upload = params.get("photo")
            if not isinstance(upload, _Upload) or not upload.data:
                return None
            message = {"message_id": next(self._message_ids), "date": int(time.time()),
                       "chat": self.chat(chat_id), "from": BOT,
                       "photo": [{"file_id": f"photo{len(upload.data)}", "file_unique_id": "u",
                                  "width": 960, "height": 540, "file_size": len(upload.data)}],
                       "_photo": True, "_image": upload.data, "_filename": upload.filename,
                       "_params": {k: v for k, v in params.items() if k != "photo"}}
            if params.get("caption"):
                message["caption"] = params["caption"]
            self._state.messages[(chat_id, message["message_id"])] = message
            return _plain(message)
        if method == "sendDocument":  # a table as CSV (multipart, the file's bytes kept)
            chat_id = int(params["chat_id"])
            upload = params.get("document")
            if not isinstance(upload, _Upload) or not upload.data:
                return None
            message = {"message_id": next(self._message_ids), "date": int(time.time()),
                       "chat": self.chat(chat_id), "from": BOT,
                       "document": {"file_id": f"doc{len(upload.data)}", "file_unique_id": "d",
                                    "file_name": upload.filename, "file_size": len(upload.data)},
                       "_document": True, "_data": upload.data, "_filename": upload.filename,
                       "_params": {k: v for k, v in params.items() if k != "document"}}
            self._state.messages[(chat_id, message["message_id"])] = message
            return _plain(message)
        if method == "editMessageText":
            key = (int(params["chat_id"]), int(params["message_id"]))
            message = self._state.messages.get(key)
            if message is None:
                return None
            message["text"] = params.get("text", "")
            message.pop("reply_markup", None)
            if "reply_markup" in params:
                message["reply_markup"] = params["reply_markup"]
            return _plain(message)
        if method == "editMessageReplyMarkup":
            key = (int(params["chat_id"]), int(params["message_id"]))
            message = self._state.messages.get(key)
            if message is None:
                return None
            message.pop("reply_markup", None)
            if params.get("reply_markup"):
                message["reply_markup"] = params["reply_markup"]
            return _plain(message)
        if method == "answerCallbackQuery":
            return True
        if method == "setWebhook":
            self._state.webhook = dict(params)
            return True
        if method == "deleteWebhook":
            self._state.webhook = {}
            return True
        if method == "getWebhookInfo":
            return {"url": self._state.webhook.get("url", ""), "has_custom_certificate": False,
                    "pending_update_count": 0}
        if method in _TRUE_METHODS:
            return True
        return None

    def _set_reaction(self, params: dict[str, Any]) -> str | None:
        """The bot's reaction replaces its earlier one ([] clears it); the error, if refused."""
        key = (int(params["chat_id"]), int(params["message_id"]))
        if key not in self._state.messages:
            return "Bad Request: message to react not found"
        reaction = params.get("reaction") or []
        emojis = [r.get("emoji", "") for r in reaction]
        if any(r.get("type") != "emoji" for r in reaction) or not set(emojis) <= (
                ALLOWED_REACTIONS):
            return "Bad Request: REACTION_INVALID"
        if len(emojis) > 1:
            return "Bad Request: REACTIONS_TOO_MANY"
        self._state.bot_reactions[key] = emojis
        return None

    def _get_updates(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        offset = int(params.get("offset") or 0)
        limit = int(params.get("limit") or 100)
        timeout = float(params.get("timeout") or 0)
        deadline = time.monotonic() + min(timeout, 2.0)  # short polls keep shutdown quick
        with self._cond:
            while True:
                self._state.updates = [u for u in self._state.updates if u["update_id"] >= offset]
                batch = self._state.updates[:limit]
                if batch or time.monotonic() >= deadline:
                    now = time.monotonic()
                    for u in batch:
                        self._state.delivered.setdefault(u["update_id"], now)
                    return batch
                self._cond.wait(max(0.0, min(deadline - time.monotonic(), 0.5)))

    def _control(self, path: str, body: Any) -> tuple[int, Any]:
        """/_fake/... endpoints for a fake running in another process."""
        if path == "/_fake/inject":
            return 200, [self.inject(u) for u in body]
        if path == "/_fake/calls":
            return 200, [{"method": c.method, "params": c.params, "received": c.received,
                          "done": c.done} for c in self.calls()]
        if path == "/_fake/count":
            return 200, len(self.calls(body))
        if path == "/_fake/delivered":
            with self._cond:
                return 200, {str(k): [self._state.injected.get(k), v]
                             for k, v in self._state.delivered.items()}
        if path == "/_fake/reset":
            with self._cond:
                self._state.calls.clear()
                self._state.delivered.clear()
                self._state.injected.clear()
            return 200, True
        return 404, None

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self) -> None:
                super().setup()
                # headers and body go out in two writes: without this, Nagle's algorithm and
                # the client's delayed ACK add ~40 ms to every call on a kept-alive connection
                self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def do_GET(self) -> None:
                self.do_POST()

            def do_POST(self) -> None:
                received = time.monotonic()
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                path = urlsplit(self.path).path
                if path.startswith("/_fake/"):
                    status, result = fake._control(path, json.loads(raw or b"null"))
                    return self._reply(status, result)
                prefix = f"/bot{fake.token}/"
                if not path.startswith(prefix):
                    return self._reply(401, {"ok": False, "error_code": 401,
                                             "description": "Unauthorized"})
                method = path[len(prefix):]
                params = _params(self.headers.get("Content-Type") or "", raw)
                if fake._wait_if_held(method) and _closed(self.connection):
                    return  # the bot died while its call was held: Telegram never saw it
                call = Call(method, params, received)
                status, body = fake._handle(method, params)
                call.done = time.monotonic()
                with fake._cond:
                    fake._state.calls.append(call)
                    fake._cond.notify_all()
                self._reply(status, body)

            def _reply(self, status: int, body: Any) -> None:
                data = json.dumps(body, default=_jsonable).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                try:
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # a long poll whose bot was stopped meanwhile

            def log_message(self, format: str, *args: Any) -> None:
                pass  # the request line contains the token; tests need no access log

        return Handler


@dataclass(frozen=True)
class _Upload:
    """A file part of a multipart request (sendPhoto's photo)."""

    filename: str
    data: bytes


def _params(content_type: str, raw: bytes) -> dict[str, Any]:
    """PTB posts form fields whose structured values are JSON text; decode them back. A file
    (sendPhoto) comes as multipart/form-data: its parts are fields, the file an _Upload."""
    if not raw:
        return {}
    if content_type.startswith("application/json"):
        return dict(json.loads(raw))
    if content_type.startswith("multipart/form-data"):
        return _multipart(content_type, raw)
    return _fields(parse_qsl(raw.decode(), keep_blank_values=True))


def _multipart(content_type: str, raw: bytes) -> dict[str, Any]:
    head = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode()
    message = BytesParser(policy=email.policy.HTTP).parsebytes(head + raw)
    fields: list[tuple[str, str]] = []
    files: dict[str, _Upload] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if not isinstance(name, str):
            continue
        data = part.get_payload(decode=True) or b""
        if part.get_filename() is not None:
            files[name] = _Upload(str(part.get_filename()), data)
        else:
            fields.append((name, data.decode()))
    return {**_fields(fields), **files}


def _fields(pairs: list[tuple[str, str]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in _JSON_FIELDS:
            try:
                out[key] = json.loads(value)
                continue
            except ValueError:
                pass
        out[key] = value
    return out


def _jsonable(value: Any) -> Any:
    """A recorded upload, as /_fake/calls shows it: its name and size, not its bytes."""
    if isinstance(value, _Upload):
        return {"filename": value.filename, "size": len(value.data)}
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def _closed(connection: socket.socket) -> bool:
    """The peer closed (or reset) the connection: nothing will read our answer."""
    try:
        return connection.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def _plain(message: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in message.items() if not k.startswith("_")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=0)
    port = parser.parse_args().port
    fake = FakeTelegram(port=port).start()
    print(fake.url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        fake.stop()


if __name__ == "__main__":
    main()
