"""Verified answers (issue 35 point 3), end to end on the fake Telegram server with `ricorda
serve`: an admin verifies an answer from the chat; it is replayed with a short "verified" mark;
a non-admin's ✗ is recorded and the answer stays verified; an admin's ✗ removes it."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from storage.db import open_database
from storage.tables import FeedbackRow
from tests import test_platform_parity as parity
from tests.test_platform_parity import ADMIN, Chat

fakes, chats = parity.fakes, parity.chats  # `ricorda serve` against the fake servers
QUESTION = "What was Orbis Italia revenue in FY2023?"
MARK = "✔ Verified by an admin."


def _negatives(data: Any) -> int:
    engine = open_database(f"sqlite:///{data / 'ricorda.db'}")
    try:
        with engine.connect() as conn:
            table = FeedbackRow.__table__  # type: ignore[attr-defined]
            return len(list(conn.execute(select(table.c.id).where(
                table.c.verdict == "negative"))))
    finally:
        engine.dispose()


def _reject(chats: dict[str, Any], chat: Chat) -> None:
    """A ✗ on the last answer; back once it is recorded and the bot has asked why."""
    before, seen = _negatives(chats["data"]), len(chat.messages())
    chat.react_negative()
    chats["telegram"].wait_for(lambda: _negatives(chats["data"]) > before and any(
        "What was wrong?" in chat.seen(m) for m in chat.messages()[seen:]), timeout=60)


def _text(chat: Chat, messages: list[dict[str, Any]]) -> str:
    return "\n".join(chat.seen(m) for m in messages)


def test_a_verified_answer_survives_a_users_cross_and_goes_with_an_admins(
        chats: dict[str, Any]) -> None:
    user: Chat = chats["chats"]["telegram"]
    admin = Chat("telegram", chats)
    admin.chat = admin.user = int(ADMIN["telegram"])
    first = _text(user, user.say(QUESTION))
    assert "€" in first and MARK not in first
    # a non-admin cannot verify
    assert "verify" in _text(user, user.say(f"/verify {QUESTION}")).lower()
    assert MARK not in _text(user, user.say(QUESTION))
    assert "verified: " in _text(admin, admin.say(f"/verify {QUESTION}"))
    again = _text(user, user.say(QUESTION))
    assert MARK in again and "€" in again
    # a user's ✗: recorded, the answer stays verified
    _reject(chats, user)
    assert MARK in _text(user, user.say(QUESTION))
    # an admin's ✗ removes it: the question is worked out afresh
    assert MARK in _text(admin, admin.say(QUESTION))
    _reject(chats, admin)
    after = _text(user, user.say(QUESTION))
    assert MARK not in after and "€" in after
