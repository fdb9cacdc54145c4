"""Verified answers (issue 35 point 3), end to end on the fake Telegram server with `ricorda
serve`: an admin verifies an answer from the chat; it is replayed with a short "verified" mark;
a non-admin's ✗ is recorded and the answer stays verified; an admin's ✗ removes it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import select

from storage.db import open_database
from storage.tables import FeedbackRow
from tests import test_platform_parity as parity
from tests.test_cli import ricorda
from tests.test_mattermost_adapter import demo_data
from tests.test_platform_parity import ADMIN, Chat

fakes, chats = parity.fakes, parity.chats  # `ricorda serve` against the fake servers
QUESTION = "What was Orbis Italia revenue in FY2023?"
MARK = "✔ Verified by an admin."
ENV = {"RICORDA_EMBEDDER": "hashing"}


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


def test_a_golden_question_marked_verified_verifies_its_answer_when_it_passes(
        tmp_path: Path) -> None:
    data = demo_data(tmp_path, "telegram:9001")
    golden = tmp_path / "golden.yaml"
    golden.write_text(
        "questions:\n"
        "  - name: italy-2021\n"
        "    ask: Revenue of Orbis Italy in FY2021\n"
        "    verified: true\n"
        "    expect:\n"
        "      figure: {metric: REVENUE, entity: ORBIS_IT, period: 2021, value: 268.2,"
        " unit: EUR_M}\n"
        "  - name: italy-2022-wrong\n"
        "    ask: Revenue of Orbis Italy in FY2022\n"
        "    verified: true\n"
        "    expect:\n"
        "      outcome: refused\n")
    done = ricorda(data, "test", str(golden), check=False, env=ENV)
    assert done.returncode == 1
    assert "verified answers: italy-2021" in done.stdout
    assert "not verified (failed, or not a cached answer): italy-2022-wrong" in done.stderr
    assert MARK in ricorda(data, "ask", "Revenue of Orbis Italy in FY2021", env=ENV).stdout
    assert MARK not in ricorda(data, "ask", "Revenue of Orbis Italy in FY2022", env=ENV).stdout
    bad = tmp_path / "bad.yaml"
    bad.write_text("questions:\n  - ask: Revenue of Orbis Italy in FY2021\n    verified: yes"
                   "please\n    expect: {outcome: refused}\n")
    wrong = ricorda(data, "test", str(bad), check=False, env=ENV)
    assert wrong.returncode == 2 and "`verified:` must be true or false" in wrong.stderr
