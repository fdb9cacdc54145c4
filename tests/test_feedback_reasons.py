"""Feedback with a reason (issue 35 point 2): after a ✗ the bot asks once what was wrong,
takes an optional note, thanks the user; stored with the turn and read by `ricorda report`.

End to end on the fake Telegram, Slack, Teams and Mattermost servers with `ricorda serve` (the
flow is the dispatcher's, written once), and the store's rules on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from collections import Counter
from typing import Any

import pytest
from sqlalchemy.engine import Engine

from core.chat.callback_token import CallbackSigner, derive_key
from core.chat.chat_ports import ChatServices
from core.chat.feedback_reasons import QUIET_S, ReasonFlow
from storage.db import open_database
from storage.feedback_reasons import SqlFeedbackReasons
from storage.turn_report_reader import turns_since
from storage.turn_store import SqlTurnStore
from tests import test_platform_parity as parity
from tests.test_cli import ricorda
from tests.test_platform_parity import Chat
from tests.test_storage_turns import turn

# `ricorda serve` against the four fake servers, one bot for this module (its fixtures)
fakes, chats = parity.fakes, parity.chats

WINDOW = dt.timedelta(minutes=10)
PLATFORMS = ("telegram", "slack", "teams", "mattermost")


class Clock:
    def __init__(self) -> None:
        self.now = dt.datetime(2026, 12, 3, 12, 0, tzinfo=dt.UTC)

    def __call__(self) -> dt.datetime:
        return self.now


def test_asked_once_per_turn_and_one_prompt_at_a_time(engine: Engine) -> None:
    clock = Clock()
    turns = SqlTurnStore(engine)
    for name in ("t1", "t2", "t3"):
        turns.record_turn(turn(name))
    reasons = SqlFeedbackReasons(engine, clock=clock)
    assert reasons.claim("t1", "telegram:1", "telegram:42", window=WINDOW)
    # another ✗ on the same answer (anyone's) is not asked about again
    assert not reasons.claim("t1", "telegram:1", "telegram:43", window=WINDOW)
    # a row of ✗ from one user: one question at a time
    assert not reasons.claim("t2", "telegram:1", "telegram:42", window=WINDOW)
    # only the asked user's first tap counts
    assert not reasons.choose("t1", "telegram:43", "period")
    assert not reasons.any_pending(window=WINDOW)  # asked, no reason yet: no note to wait for
    assert reasons.choose("t1", "telegram:42", "period")
    assert reasons.any_pending(window=WINDOW)
    assert not reasons.choose("t1", "telegram:42", "figure")
    assert reasons.pending_note("telegram:1", "telegram:42", window=WINDOW) == "t1"
    assert reasons.pending_note("telegram:2", "telegram:42", window=WINDOW) is None
    assert reasons.add_note("t1", "telegram:42", "it was 2023")
    assert reasons.pending_note("telegram:1", "telegram:42", window=WINDOW) is None
    assert not reasons.any_pending(window=WINDOW)
    # the exchange is over: the next ✗ of this user is asked about
    assert reasons.claim("t2", "telegram:1", "telegram:42", window=WINDOW)
    # an open prompt left alone expires: after the window the user may be asked again
    clock.now += WINDOW + dt.timedelta(seconds=1)
    assert reasons.claim("t3", "telegram:1", "telegram:42", window=WINDOW)
    given = {r.turn_id: (r.reason, r.note) for r in reasons.reasons()}
    assert given == {"t1": ("period", "it was 2023")}
    turns.set_feedback("t1", "telegram:42", "negative", "reaction")
    read = {t.id: (n, reason, note) for t, _, n, reason, note in turns_since(engine, None)}
    assert read["t1"] == (1, "period", "it was 2023")
    assert read["t2"] == (0, None, None)  # asked, nothing chosen yet: no reason


class Counted:
    """The real store, counting what the chat flow asks of it."""

    def __init__(self, store: SqlFeedbackReasons) -> None:
        self.store, self.asked = store, Counter[str]()

    def __getattr__(self, name: str) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            self.asked[name] += 1
            return getattr(self.store, name)(*args, **kwargs)
        return call


class Port:
    def __init__(self) -> None:
        self.said: list[str] = []

    async def prompt(self, text: str, buttons: Any) -> None:
        self.said.append(text)
        self.buttons = list(buttons)

    async def settle(self, text: str) -> None:
        self.said.append(text)

    async def note(self, text: str, *, alert: bool = False) -> None:
        self.said.append(text)

    async def reply(self, text: str, *, monospace: bool = False) -> None:
        self.said.append(text)

    async def language(self, question: str | None = None) -> str:
        return "en"


def test_questions_cost_no_lookup_each_while_nobody_may_send_a_note(engine: Engine) -> None:
    """Every message meant for the bot might be a note after a ✗; while nobody anywhere may
    send one, the store is asked once a second, not once a message (bench_telegram's CPU per
    reply), and a reason tapped here makes the next message a note at once."""
    SqlTurnStore(engine).record_turn(turn("t1"))
    store = Counted(SqlFeedbackReasons(engine))
    services = ChatServices(ask=None, feedback=None, admin=None, turns=None,  # type: ignore[arg-type]
                            signer=CallbackSigner(derive_key(None, "reasons-test")),
                            reasons=store)  # type: ignore[arg-type]
    now = [100.0]
    flow = ReasonFlow(services, "telegram", clock=lambda: now[0])
    port = Port()

    async def scenario() -> None:
        for _ in range(20):  # questions, all within the same second
            assert not await flow.note("telegram:1", "42", "What was revenue?", port)
        assert store.asked == {"any_pending": 1}
        await flow.after_rejection("t1", "42", "telegram:1", port)
        await flow.tap(port.buttons[0][1], "42", port)  # "Wrong figure": a note may follow
        assert await flow.note("telegram:1", "42", "It was FY2023's", port)
        assert "the admins will see it" in port.said[-1]
        now[0] += QUIET_S  # the exchange is over: once the store says so, no lookups again
        asked = store.asked["pending_note"]
        for _ in range(5):
            assert not await flow.note("telegram:1", "42", "And costs?", port)
        assert store.asked["pending_note"] == asked

    try:
        asyncio.run(scenario())
    finally:
        services.close()
    assert SqlFeedbackReasons(engine).for_turn("t1").note == "It was FY2023's"  # type: ignore[union-attr]


def test_an_unknown_turn_is_never_asked_about(engine: Engine) -> None:
    reasons = SqlFeedbackReasons(engine)
    assert not reasons.claim("nope", "telegram:1", "telegram:42", window=WINDOW)


def _seen(chat: Chat, messages: list[dict[str, Any]]) -> str:
    return "\n".join(chat.seen(m) for m in messages)


def _prompt(chat: Chat, before: int, expect: str) -> dict[str, Any]:
    """The bot's next message saying `expect` (Mattermost: the user's ephemeral note); a
    platform that notes the verdict in a message of its own (Teams) sends that first."""
    def arrived() -> dict[str, Any] | None:
        new = (chat.fake.notes(chat.user) if chat.platform == "mattermost"
               else chat.messages())[before:]
        return next((m for m in new if expect in _shown(chat, m)), None)

    chat.last = chat.fake.wait_for(arrived, timeout=120)
    if chat.platform == "mattermost":  # the fake gives an ephemeral post no id of its own
        chat.last = {"id": "", **chat.last}
    return chat.last


def _shown(chat: Chat, message: dict[str, Any]) -> str:
    """A prompt's text with its buttons' labels."""
    if chat.platform == "mattermost":
        return json.dumps(message, ensure_ascii=False)
    if chat.platform == "telegram":
        rows = (message.get("_params", {}).get("reply_markup") or {}).get("inline_keyboard", [])
        return chat.seen(message) + "\n" + "\n".join(b["text"] for row in rows for b in row)
    return chat.seen(message)


def _wait_mapped(chats: dict[str, Any], chat: Chat) -> None:
    engine = open_database(f"sqlite:///{chats['data'] / 'ricorda.db'}")
    try:
        store, key = SqlTurnStore(engine), f"{chat.platform}:{chat.chat}"
        chat.fake.wait_for(lambda: store.turn_for_message(chat.platform, key, chat.message_id()),
                           timeout=60)
    finally:
        engine.dispose()


def _count(chat: Chat) -> int:
    return len(chat.fake.notes(chat.user)) if chat.platform == "mattermost" else len(
        chat.messages())


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_cross_asks_why_takes_a_note_and_the_report_shows_it(
        chats: dict[str, Any], platform: str) -> None:
    chat: Chat = chats["chats"][platform]
    chat.say("What was Orbis China revenue in FY2024?")
    _wait_mapped(chats, chat)  # a reaction counts once the answer is linked to its turn
    before = _count(chat)
    chat.react_negative()
    asked = _prompt(chat, before, "What was wrong?")
    text = _shown(chat, asked)
    for label in ("What was wrong?", "Wrong figure", "Wrong period", "Wrong unit or entity",
                  "Didn't understand me", "Something else"):
        assert label in text, (platform, text)
    before = _count(chat)
    if platform == "mattermost":  # the prompt is ephemeral: nothing posted to wait for
        assert chat.fake.click(chat.last, "Wrong period", chat.user).status_code == 200
    else:
        chat.tap("Wrong period")
    more = _prompt(chat, before, "Anything to add?")
    text = _shown(chat, more)
    assert "Anything to add?" in text, (platform, text)
    note = f"I meant the fiscal year 2023 ({platform})"
    before = len(chat.messages())
    thanks = chat.say(note)
    assert "Thank you: the admins will see it." in _seen(chat, thanks), platform
    assert len(chat.messages()) - before == 1  # thanked, not answered as a question
    done = ricorda(chats["data"], "report", "--json", "--since", "1d")
    report = json.loads(done.stdout)
    rows = [r for r in report["rejected"] if r["chat"].startswith(f"{platform}:")]
    assert rows and rows[-1]["reason"] == "period" and rows[-1]["note"] == note, report
    assert "Orbis China revenue" in rows[-1]["question"]
    assert report["outcomes"]["rejected"] >= 1
