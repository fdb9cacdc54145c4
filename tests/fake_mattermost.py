"""A fake Mattermost server: a real HTTP and WebSocket server on 127.0.0.1 (aiohttp, on its own
thread) playing the REST API v4 calls the bot makes and the WebSocket it listens on, recording
every post, ephemeral post, upload, reaction and typing event. A test makes people post and
react (`say`, `react`: events pushed down the WebSocket, as the server does), tap buttons
(`click`: the server's POST to the button's callback URL) and run the slash command (`slash`).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
from collections.abc import Callable
from typing import Any

import httpx
from aiohttp import web

from tests.loopback import wait_on

TOKEN = "fake-mattermost-bot-token-91c2"  # the bot's access token: must never be logged
COMMAND_TOKEN = "fake-slash-command-token-5d8e"
BOT_ID, BOT_NAME = "botuserid0000000000000000a", "ricorda"
TEAM, TEAM_ID = "acme", "teamid000000000000000000aa"


class FakeMattermost:
    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.posts: list[dict[str, Any]] = []
        self.ephemeral: list[dict[str, Any]] = []
        self.files: dict[str, dict[str, Any]] = {}
        self.bot_reactions: set[tuple[str, str]] = set()  # (post, emoji)
        self.reactions: list[dict[str, Any]] = []  # people's, as GET …/reactions lists them
        self.typing: list[str] = []
        self.locales: dict[str, str] = {}
        self._ids = itertools.count(1)
        self._sockets: list[web.WebSocketResponse] = []
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self.url = ""

    def start(self) -> FakeMattermost:
        threading.Thread(target=self._run, daemon=True).start()
        self._ready.wait(30)
        return self

    def stop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)

    # -- what people do --------------------------------------------------------------------

    def say(self, channel: str, user: str, text: str, *, direct: bool = False,
            mention: bool = False, root: str = "") -> str:
        post_id = self._id("q")
        post = {"id": post_id, "channel_id": channel, "user_id": user, "root_id": root,
                "message": f"@{BOT_NAME} {text}" if mention else text, "type": "",
                "props": {}}
        self.emit({"event": "posted", "broadcast": {"channel_id": channel},
                   "data": {"post": json.dumps(post), "channel_type": "D" if direct else "O",
                            "team_id": "" if direct else TEAM_ID,
                            "mentions": json.dumps([BOT_ID] if mention else [])}})
        return post_id

    def react(self, channel: str, user: str, post: str, emoji: str, *,
              added: bool = True) -> None:
        reaction = {"user_id": user, "post_id": post, "emoji_name": emoji,
                    "create_at": next(self._ids)}
        with self.cond:
            if added:
                self.reactions.append(reaction)
            else:
                self.reactions = [r for r in self.reactions if (r["user_id"], r["post_id"],
                                  r["emoji_name"]) != (user, post, emoji)]
        self.emit({"event": "reaction_added" if added else "reaction_removed",
                   "broadcast": {"channel_id": channel},
                   "data": {"reaction": json.dumps(reaction)}})

    def click(self, post: dict[str, Any], label: str, user: str, *,
              channel: str | None = None) -> httpx.Response:
        """What the server posts to a button's URL when `user` clicks it (in `channel`: the
        post's own unless a test replays the button elsewhere)."""
        action = next(a for a in actions_of(post) if a["name"] == label)
        body = {"user_id": user, "channel_id": channel or post["channel_id"],
                "post_id": post["id"], "type": "button",
                "context": action["integration"]["context"]}
        return httpx.post(action["integration"]["url"], json=body, timeout=30)

    def slash(self, url: str, channel: str, user: str, text: str, *,
              token: str = COMMAND_TOKEN) -> httpx.Response:
        return httpx.post(url, data={"token": token, "channel_id": channel, "user_id": user,
                                     "command": "/ricorda", "text": text, "team_id": TEAM_ID},
                          timeout=30)

    def emit(self, event: dict[str, Any]) -> None:
        self.wait_for(lambda: self._sockets, timeout=60)
        for ws in list(self._sockets):
            asyncio.run_coroutine_threadsafe(ws.send_str(json.dumps(event)), self._loop
                                             ).result(10)

    # -- what the bot did --------------------------------------------------------------------

    def posted(self, channel: str) -> list[dict[str, Any]]:
        with self.cond:
            return [p for p in self.posts if p["channel_id"] == channel]

    def notes(self, user: str) -> list[dict[str, Any]]:
        with self.cond:
            return [e["post"] for e in self.ephemeral if e["user_id"] == user]

    def wait_for(self, predicate: Callable[[], Any], timeout: float = 60) -> Any:
        return wait_on(self.cond, predicate, timeout)

    # -- the server ---------------------------------------------------------------------------

    def _id(self, prefix: str) -> str:
        return f"{prefix}{next(self._ids):025d}"[:26]

    def _record(self, kind: str, item: Any) -> None:
        with self.cond:
            getattr(self, kind).append(item)
            self.cond.notify_all()

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        app = web.Application(middlewares=[self._auth])
        app.add_routes([
            web.get("/api/v4/users/me", self._me),
            web.get("/api/v4/users/{user}", self._user),
            web.get("/api/v4/teams/name/{name}", self._team),
            web.post("/api/v4/posts", self._post),
            web.post("/api/v4/posts/ephemeral", self._ephemeral),
            web.post("/api/v4/files", self._file),
            web.post("/api/v4/reactions", self._bot_react),
            web.delete("/api/v4/users/{user}/posts/{post}/reactions/{emoji}", self._bot_unreact),
            web.get("/api/v4/posts/{post}/reactions", self._reactions),
            web.post("/api/v4/users/{user}/typing", self._typing),
            web.get("/api/v4/websocket", self._socket),
        ])
        runner = web.AppRunner(app, access_log=None)
        self._loop.run_until_complete(runner.setup())
        site = web.TCPSite(runner, "127.0.0.1", 0)
        self._loop.run_until_complete(site.start())
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.url = f"http://127.0.0.1:{port}"
        self._ready.set()
        self._loop.run_forever()

    @web.middleware
    async def _auth(self, request: web.Request, handler: Any) -> web.StreamResponse:
        if request.headers.get("Authorization") != f"Bearer {TOKEN}":
            return web.json_response({"message": "Invalid or expired session"}, status=401)
        return await handler(request)

    async def _me(self, request: web.Request) -> web.Response:
        return _json({"id": BOT_ID, "username": BOT_NAME})

    async def _user(self, request: web.Request) -> web.Response:
        user = request.match_info["user"]
        return _json({"id": user, "locale": self.locales.get(user, "")})

    async def _team(self, request: web.Request) -> web.Response:
        if request.match_info["name"] != TEAM:
            return web.json_response({"message": "not found"}, status=404)
        return _json({"id": TEAM_ID, "name": TEAM})

    async def _post(self, request: web.Request) -> web.Response:
        post = {**await request.json(), "id": self._id("p"), "user_id": BOT_ID}
        self._record("posts", post)
        return _json(post)

    async def _ephemeral(self, request: web.Request) -> web.Response:
        self._record("ephemeral", await request.json())
        return _json({})

    async def _file(self, request: web.Request) -> web.Response:
        form = await request.post()
        upload = form["files"]
        file_id = self._id("f")
        with self.cond:
            self.files[file_id] = {"name": upload.filename, "data": upload.file.read(),  # type: ignore[union-attr]
                                   "channel_id": form["channel_id"]}
        return _json({"file_infos": [{"id": file_id}]})

    async def _bot_react(self, request: web.Request) -> web.Response:
        body = await request.json()
        with self.cond:
            self.bot_reactions.add((body["post_id"], body["emoji_name"]))
            self.cond.notify_all()
        return _json(body)

    async def _bot_unreact(self, request: web.Request) -> web.Response:
        with self.cond:
            self.bot_reactions.discard((request.match_info["post"], request.match_info["emoji"]))
            self.cond.notify_all()
        return _json({"status": "OK"})

    async def _reactions(self, request: web.Request) -> web.Response:
        with self.cond:
            return _json([r for r in self.reactions if r["post_id"] == request.match_info["post"]])

    async def _typing(self, request: web.Request) -> web.Response:
        self._record("typing", (await request.json())["channel_id"])
        return _json({})

    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        with self.cond:
            self._sockets.append(ws)
            self.cond.notify_all()
        async for _ in ws:
            pass
        with self.cond:
            self._sockets.remove(ws)
        return ws


def _json(body: Any) -> web.Response:
    return web.json_response(body)


def actions_of(post: dict[str, Any]) -> list[dict[str, Any]]:
    return [a for att in (post.get("props") or {}).get("attachments") or []
            for a in att.get("actions") or []]


def seen(post: dict[str, Any]) -> str:
    """What the reader sees: the markdown with its escapes read, zero-width spaces gone, and
    each button group's header and labels."""
    out, escaped = [], False
    for ch in str(post.get("message") or ""):
        if escaped or ch != "\\":
            out.append(ch)
            escaped = False
        else:
            escaped = True
    text = "".join(out).replace("\u200b", "")
    for att in (post.get("props") or {}).get("attachments") or []:
        text += "\n" + str(att.get("text") or "").replace("\\", "") + "\n" + "\n".join(
            a["name"] for a in att.get("actions") or [])
    return text
