"""Mattermost's REST API v4 through httpx: posts, files, reactions, typing. The bot account's
token goes in the Authorization header and nowhere else (never in a log line or an error)."""

from __future__ import annotations

from typing import Any

import httpx


class MattermostClient:
    def __init__(self, url: str, token: str, *, timeout: float = 20) -> None:
        self.url = url.rstrip("/")
        self._http = httpx.AsyncClient(base_url=self.url + "/api/v4", timeout=timeout,
                                       headers={"Authorization": f"Bearer {token}"})
        self.bot_id = self.bot_name = ""

    def __repr__(self) -> str:
        return f"MattermostClient({self.url!r}, <secret>)"

    async def call(self, method: str, path: str, **kw: Any) -> Any:
        response = await self._http.request(method, path, **kw)
        response.raise_for_status()
        return response.json() if response.content else None

    async def login(self, team: str) -> str:
        """Who the bot is (its own posts and reactions are ignored, its mentions removed from
        questions); the id of the team it answers in."""
        me = await self.call("GET", "/users/me")
        self.bot_id, self.bot_name = str(me["id"]), str(me.get("username") or "")
        return str((await self.call("GET", f"/teams/name/{team}"))["id"])

    async def post(self, channel: str, message: str, *, root: str = "",
                   props: dict[str, Any] | None = None, files: list[str] | None = None) -> str:
        body = {"channel_id": channel, "message": message, "root_id": root,
                "props": props or {}, "file_ids": files or []}
        return str((await self.call("POST", "/posts", json=body))["id"])

    async def ephemeral(self, channel: str, user: str, message: str, *, root: str = "",
                        props: dict[str, Any] | None = None) -> None:
        """A post only `user` sees (slash-command replies, an expired button)."""
        await self.call("POST", "/posts/ephemeral", json={"user_id": user, "post": {
            "channel_id": channel, "message": message, "root_id": root, "props": props or {}}})

    async def upload(self, channel: str, name: str, data: bytes) -> str:
        found = await self.call("POST", "/files", data={"channel_id": channel},
                                files={"files": (name, data)})
        return str(found["file_infos"][0]["id"])

    async def react(self, post: str, emoji: str, *, on: bool) -> None:
        body = {"user_id": self.bot_id, "post_id": post, "emoji_name": emoji}
        await (self.call("POST", "/reactions", json=body) if on else self.call(
            "DELETE", f"/users/{self.bot_id}/posts/{post}/reactions/{emoji}"))

    async def typing(self, channel: str, root: str = "") -> None:
        await self.call("POST", f"/users/{self.bot_id}/typing",
                        json={"channel_id": channel, "parent_id": root})

    async def close(self) -> None:
        await self._http.aclose()
