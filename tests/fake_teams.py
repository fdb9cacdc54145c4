"""A fake Microsoft side of a Teams bot: a real HTTP server on 127.0.0.1 that plays the token
endpoint, the Bot Framework's OpenID metadata and JWKS (a local test issuer whose RSA key is
generated here), and the Bot Connector REST API (create and update activities), recording
every message the bot sends. `activity_token()` signs what Teams would put in the
Authorization header of a request to the bot; `post_activity` sends one to the bot's endpoint.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
import uuid
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, unquote

import httpx
import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from tests.loopback import wait_on

APP_ID = "00000000-0000-4000-8000-00000000b07a"
PASSWORD = "fake-teams-client-secret-7f3a"  # the bot's app password: must never be logged
ISSUER = "https://api.botframework.com"
ACCESS = "fake-connector-access-token"
BOT = f"28:{APP_ID}"
MAX_MESSAGE_BYTES = 28 * 1024
OPENID_PATH, KEYS_PATH = "/v1/.well-known/openidconfiguration", "/v1/.well-known/keys"


def new_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


class FakeTeams:
    def __init__(self) -> None:
        self.key, self.kid = new_key(), "test-key-1"
        self.cond = threading.Condition()
        self.sent: list[dict[str, Any]] = []  # every activity created, with "_conversation"
        self.updated: list[dict[str, Any]] = []  # every update, with "_conversation", "_id"
        self.typing: list[str] = []  # the conversations "typing…" was shown in
        self.tokens_issued = 0
        self.gets: list[str] = []  # the path of every GET (OpenID metadata, keys, any tenant's)
        self.keys_gate: threading.Event | None = None  # set: the keys answer waits for it
        self._ids = itertools.count(1)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self._server.server_port}"
        self.openid_url = self.url + OPENID_PATH
        self.token_url = self.url + "/botframework.com/oauth2/v2.0/token"

    def start(self) -> FakeTeams:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    # -- what a test sends ----------------------------------------------------------------

    def activity_token(self, *, key: rsa.RSAPrivateKey | None = None, audience: str = APP_ID,
                       service_url: str | None = None, issuer: str = ISSUER,
                       kid: str | None = None, **claims: Any) -> str:
        now = int(time.time())
        claims = {"iss": issuer, "aud": audience, "iat": now, "nbf": now, "exp": now + 3600,
                  "serviceurl": service_url or self.url, **claims}
        return jwt.encode(claims, key or self.key, algorithm="RS256",
                          headers={"kid": kid or self.kid})

    def message(self, conversation: str, user: str, text: str, *, channel: bool = False,
                mention: bool = False, locale: str = "en-US", **extra: Any) -> dict[str, Any]:
        """A message activity as Teams posts it (a channel mention carries <at>…</at>)."""
        activity = self._activity("message", conversation, user, locale=locale, **extra)
        activity["text"] = f"<at>ricorda</at> {text}" if mention else text
        activity["conversation"]["conversationType"] = "channel" if channel else "personal"
        if mention:
            activity["entities"] = [{"type": "mention", "text": "<at>ricorda</at>",
                                     "mentioned": {"id": BOT, "name": "ricorda"}}]
        return activity

    def tap(self, conversation: str, user: str, card_id: str, value: dict[str, Any],
            **extra: Any) -> dict[str, Any]:
        """An Action.Submit on a card the bot sent: a message with `value`, no text."""
        activity = self._activity("message", conversation, user, replyToId=card_id, **extra)
        activity["value"] = value
        return activity

    def reaction(self, conversation: str, user: str, message_id: str, *,
                 added: tuple[str, ...] = (), removed: tuple[str, ...] = ()) -> dict[str, Any]:
        activity = self._activity("messageReaction", conversation, user, replyToId=message_id)
        activity["reactionsAdded"] = [{"type": r} for r in added]
        activity["reactionsRemoved"] = [{"type": r} for r in removed]
        return activity

    def _activity(self, kind: str, conversation: str, user: str, **extra: Any
                  ) -> dict[str, Any]:
        return {"type": kind, "id": uuid.uuid4().hex, "channelId": "msteams",
                "serviceUrl": self.url, "timestamp": "2026-06-15T09:00:00Z",
                "from": {"id": f"29:{user}", "aadObjectId": user, "name": user},
                "recipient": {"id": BOT, "name": "ricorda"},
                "conversation": {"id": conversation, "tenantId": "tenant-1"}, **extra}

    def post_activity(self, bot_url: str, activity: dict[str, Any], *,
                      token: str | None = None) -> httpx.Response:
        headers = {"Content-Type": "application/json",
                   "Authorization": f"Bearer {token or self.activity_token()}"}
        return httpx.post(bot_url, content=json.dumps(activity), headers=headers, timeout=30)

    # -- what the bot did -------------------------------------------------------------------

    def messages(self, conversation: str) -> list[dict[str, Any]]:
        with self.cond:
            return [a for a in self.sent if a["_conversation"] == conversation]

    def wait_for(self, predicate: Callable[[], Any], timeout: float = 60) -> Any:
        return wait_on(self.cond, predicate, timeout)

    # -- the server ---------------------------------------------------------------------------

    def _jwks(self) -> dict[str, Any]:
        jwk = json.loads(RSAAlgorithm.to_jwk(self.key.public_key()))
        return {"keys": [{**jwk, "kid": self.kid, "use": "sig", "alg": "RS256"}]}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _reply(self, status: int, body: Any) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _body(self) -> bytes:
                return self.rfile.read(int(self.headers.get("Content-Length") or 0))

            def do_GET(self) -> None:
                with fake.cond:
                    fake.gets.append(self.path)
                    fake.cond.notify_all()
                if self.path == KEYS_PATH and fake.keys_gate is not None:
                    fake.keys_gate.wait(60)
                if self.path == OPENID_PATH:
                    self._reply(200, {"issuer": ISSUER, "jwks_uri": fake.url + KEYS_PATH,
                                      "id_token_signing_alg_values_supported": ["RS256"]})
                elif self.path == KEYS_PATH:
                    self._reply(200, fake._jwks())
                else:
                    self._reply(404, {"error": "not found"})

            def do_POST(self) -> None:
                body = self._body()
                if self.path.endswith("/oauth2/v2.0/token"):
                    form = dict(parse_qsl(body.decode()))
                    if (form.get("client_id"), form.get("client_secret")) != (APP_ID, PASSWORD):
                        self._reply(401, {"error": "invalid_client"})
                        return
                    fake.tokens_issued += 1
                    self._reply(200, {"access_token": ACCESS, "expires_in": 3600,
                                      "token_type": "Bearer"})
                    return
                self._connector(body, update=False)

            def do_PUT(self) -> None:
                self._connector(self._body(), update=True)

            def _connector(self, body: bytes, *, update: bool) -> None:
                if self.headers.get("Authorization") != f"Bearer {ACCESS}":
                    self._reply(401, {"error": "Unauthorized"})
                    return
                if len(body) > MAX_MESSAGE_BYTES:  # as Teams answers an oversized message
                    self._reply(413, {"error": {"code": "MessageSizeTooBig"}})
                    return
                path = unquote(self.path)
                head, _, tail = path.partition("/activities")
                if not head.startswith("/v3/conversations/"):
                    self._reply(404, {"error": "not found"})
                    return
                activity = {**json.loads(body or b"{}"),
                            "_conversation": head.removeprefix("/v3/conversations/")}
                with fake.cond:
                    if activity.get("type") == "typing":
                        fake.typing.append(activity["_conversation"])
                        fake.cond.notify_all()
                        self._reply(200, {"id": ""})
                        return
                    if update:
                        activity["_id"] = tail.strip("/")
                        fake.updated.append(activity)
                    else:
                        activity["_id"] = f"m{next(fake._ids)}"
                        fake.sent.append(activity)
                    fake.cond.notify_all()
                self._reply(200, {"id": activity["_id"]})

        return Handler


def card_of(activity: dict[str, Any]) -> dict[str, Any] | None:
    for attachment in activity.get("attachments") or []:
        if attachment.get("contentType") == "application/vnd.microsoft.card.adaptive":
            return attachment["content"]
    return None


def text_of(activity: dict[str, Any]) -> str:
    """What the reader sees: the message text, or the card's text blocks (markdown escapes
    read), one per line."""
    card = card_of(activity)
    if card is None:
        return str(activity.get("text") or "")
    lines: list[str] = []
    for block in card.get("body", []):
        if block.get("type") == "TextBlock":
            lines.append(_unescape(block["text"]))
    return "\n".join(lines)


def buttons_of(activity: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(title, data) of every Action.Submit in the card, in order."""
    card = card_of(activity) or {}
    actions = list(card.get("actions") or [])
    for block in card.get("body", []):
        if block.get("type") == "ActionSet":
            actions += block["actions"]
    return [(a["title"], a["data"]) for a in actions if a.get("type") == "Action.Submit"]


def _unescape(text: str) -> str:
    out, escaped = [], False
    for ch in text:
        if escaped or ch != "\\":
            out.append(ch)
            escaped = False
        else:
            escaped = True
    return "".join(out)
