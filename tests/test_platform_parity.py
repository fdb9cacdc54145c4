"""One conversation, four platforms, one bot: `ricorda serve` with Telegram, Slack, Teams and
Mattermost all configured, each against its fake server, and the same conversation in each (a
question with assumptions, a narrowing tap, a ✗ reaction, an admin command, a chart question).
What each user sees is compared, markup aside: the same figures, the same sources, the same
options, a verdict recorded on the same kind of turn, the chart before the answer. A long
answer's split is compared on every platform's own markup at the end."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from adapters.slack.blocks import unescape
from bot.settings.model import load_settings
from bot.wiring.build import build_app
from tests import fake_mattermost as mm
from tests import fake_teams as ft
from tests.fake_mattermost import FakeMattermost
from tests.fake_slack import BOT_TOKEN, FakeSlack
from tests.fake_teams import FakeTeams
from tests.fake_telegram import FakeTelegram
from tests.fake_tenant import TENANT, FakeTenant
from tests.loopback import free_port
from tests.slack_harness import SIGNING_SECRET, SlackSender, text_of
from tests.test_mattermost_adapter import demo_data
from tests.test_transcripts import _seen

FIGURE = re.compile(r"-?€[\d.,]+[MK]?|-?\d+(?:\.\d+)?%")
SOURCE = re.compile(r"^\[\d+\] .+$", re.M)
ADMIN = {"telegram": "7001", "slack": "UADMIN0001", "teams": "aad-admin-9",
         "mattermost": "adminuser00000000000000000"}
VERDICT = {"telegram": "👎", "slack": "x", "teams": "👎", "mattermost": "x"}


@pytest.fixture(scope="module")
def fakes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    from tests.telegram_harness import BotProcess

    data = demo_data(tmp_path_factory.mktemp("parity"), "console:parity")
    tg, sl, te, ma = (FakeTelegram().start(), FakeSlack().start(), FakeTeams().start(),
                      FakeMattermost().start())
    tenant = FakeTenant(tmp_path_factory.mktemp("tenant")).start()  # the bot's Azure tenant
    slack_port, teams_port, mm_port = free_port(), free_port(), free_port()
    bot = BotProcess(data, tg, **{
        "RICORDA_ADMINS": ",".join(f"{p}:{u}" for p, u in ADMIN.items()),
        "RICORDA_SHOW_FOOTER": "false",
        "RICORDA_SLACK_BOT_TOKEN": BOT_TOKEN, "RICORDA_SLACK_SIGNING_SECRET": SIGNING_SECRET,
        "RICORDA_SLACK_API_URL": sl.api_url,
        "RICORDA_SLACK_HOST": "127.0.0.1", "RICORDA_SLACK_PORT": str(slack_port),
        "RICORDA_TEAMS_APP_ID": ft.APP_ID, "RICORDA_TEAMS_APP_PASSWORD": ft.PASSWORD,
        "RICORDA_TEAMS_HOST": "127.0.0.1", "RICORDA_TEAMS_PORT": str(teams_port),
        "RICORDA_TEAMS_TENANT_ID": TENANT, **tenant.env(),
        "RICORDA_TEAMS_OPENID_URL": te.openid_url,
        "RICORDA_MATTERMOST_URL": ma.url, "RICORDA_MATTERMOST_TOKEN": mm.TOKEN,
        "RICORDA_MATTERMOST_TEAM": mm.TEAM, "RICORDA_MATTERMOST_HOST": "127.0.0.1",
        "RICORDA_MATTERMOST_PORT": str(mm_port), "RICORDA_MATTERMOST_COMMAND_TOKEN":
        mm.COMMAND_TOKEN, "RICORDA_MATTERMOST_CALLBACK_URL": f"http://127.0.0.1:{mm_port}"})
    bot.start(ready=lambda: tg.calls("getUpdates") and ma._sockets)
    sender = SlackSender(f"http://127.0.0.1:{slack_port}/slack/events")
    sender.respond_base = f"{sl.url}/respond"
    yield {"data": data, "telegram": tg, "slack": sl, "slack_sender": sender, "teams": te,
           "teams_url": f"http://127.0.0.1:{teams_port}/api/messages", "mattermost": ma,
           "mattermost_command": f"http://127.0.0.1:{mm_port}/mattermost/command"}
    bot.stop()
    for fake in (tg, sl, te, ma, tenant):
        fake.stop()


class Chat:
    """One user in one chat of one platform: says, taps, reacts; reads what the bot sent."""

    def __init__(self, platform: str, f: dict[str, Any], n: int = 0) -> None:
        self.platform, self.f = platform, f
        self.fake = f[platform]
        # a chat and a user of its own per test: no test reads another's conversation
        self.chat = {"telegram": 8100 + n, "slack": f"C81000{n:02d}", "teams": f"a:parity{n}",
                     "mattermost": f"parity{n:020d}"}[platform]
        self.user = {"telegram": 8100 + n, "slack": f"U81000{n:02d}", "teams": f"aad-parity{n}",
                     "mattermost": f"parityuser{n:016d}"}[platform]
        self.last: dict[str, Any] = {}  # the last answer message (with its options)

    def messages(self) -> list[dict[str, Any]]:
        if self.platform == "telegram":
            items = self.fake.sent(self.chat) + self.fake.photos(self.chat)
            return sorted(items, key=lambda m: m["message_id"])
        if self.platform == "slack":
            return self.fake.posted(self.chat)
        if self.platform == "teams":
            return self.fake.messages(self.chat)
        return self.fake.posted(self.chat)

    def seen(self, message: dict[str, Any]) -> str:
        if self.platform == "telegram":
            return _seen(message.get("text") or message.get("caption") or "")
        if self.platform == "slack":
            return unescape(text_of(message, buttons=True))
        if self.platform == "teams":
            return ft.text_of(message) + "\n" + "\n".join(t for t, _ in ft.buttons_of(message))
        return mm.seen(message)

    def image(self, message: dict[str, Any]) -> bool:
        if self.platform == "telegram":
            return bool(message.get("_photo"))
        if self.platform == "teams":
            card = ft.card_of(message) or {}
            return any(b.get("type") == "Image" for b in card.get("body", []))
        if self.platform == "mattermost":
            return bool(message.get("file_ids"))
        return False  # Slack's chart is an upload, not a message: see `charts`

    def say(self, text: str) -> list[dict[str, Any]]:
        before = len(self.messages())
        if self.platform == "telegram":
            self.fake.inject(self.fake.text(self.chat, self.user, text))
        elif self.platform == "slack":
            assert self.f["slack_sender"].direct(self.chat, self.user, text).status_code == 200
        elif self.platform == "teams":
            activity = self.fake.message(self.chat, self.user, text)
            assert self.fake.post_activity(self.f["teams_url"], activity).status_code == 200
        else:
            self.fake.say(self.chat, self.user, text, direct=True)
        return self._answer(before)

    def tap(self, label: str) -> list[dict[str, Any]]:
        before, last = len(self.messages()), self.last
        if self.platform == "telegram":
            rows = last["_params"]["reply_markup"]["inline_keyboard"]
            data = next(b["callback_data"] for row in rows for b in row if b["text"] == label)
            self.fake.inject(self.fake.tap(self.chat, self.user, last["message_id"], data))
        elif self.platform == "slack":
            button = next(e for b in last["blocks"] if b["type"] == "actions"
                          for e in b["elements"] if unescape(e["text"]["text"]) == label)
            self.f["slack_sender"].tap(self.chat, self.user, last, button["value"],
                                       action_id=button["action_id"])
        elif self.platform == "teams":
            data = dict(ft.buttons_of(last))[label]
            activity = self.fake.tap(self.chat, self.user, last["_id"], data)
            assert self.fake.post_activity(self.f["teams_url"], activity).status_code == 200
        else:
            assert self.fake.click(last, label, self.user).status_code == 200
        return self._answer(before)

    def react_negative(self) -> None:
        last, emoji = self.last, VERDICT[self.platform]
        if self.platform == "telegram":
            self.fake.inject(self.fake.reaction(self.chat, self.user, last["message_id"],
                                                [emoji]))
        elif self.platform == "slack":
            self.f["slack_sender"].reaction(self.chat, last["ts"], self.user, emoji)
        elif self.platform == "teams":
            activity = self.fake.reaction(self.chat, self.user, last["_id"], added=(emoji,))
            assert self.fake.post_activity(self.f["teams_url"], activity).status_code == 200
        else:
            self.fake.react(self.chat, self.user, last["id"], emoji)

    def message_id(self) -> str:
        key = {"telegram": "message_id", "slack": "ts", "teams": "_id", "mattermost": "id"}
        return str(self.last[key[self.platform]])

    def _answer(self, before: int) -> list[dict[str, Any]]:
        # the question of what was wrong after an earlier ✗ (core.chat.feedback_reasons) may
        # arrive at any time: it is not the answer
        def answer(m: dict[str, Any]) -> bool:
            return not self.image(m) and REASON_ASK not in self.seen(m)

        def arrived() -> list[dict[str, Any]] | None:
            new = [m for m in self.messages()[before:] if REASON_ASK not in self.seen(m)]
            return new if any(answer(m) for m in new) else None

        new = self.fake.wait_for(arrived, timeout=120)
        self.last = [m for m in new if answer(m)][-1]
        return new


REASON_ASK = "What was wrong?"  # core/catalog/feedback.py, reason_ask (en)


def _everyone(f: dict[str, Any], act: Callable[[Chat], Any]) -> dict[str, Any]:
    return {p: act(c) for p, c in f["chats"].items()}


_TESTS = itertools.count(1)


@pytest.fixture
def chats(fakes: dict[str, Any]) -> dict[str, Any]:
    """The bot and its fakes (one per module and worker), with new chats for this test: the
    tests run in any order, on any worker, and each sees only its own conversation."""
    n = next(_TESTS)
    chats = {p: Chat(p, fakes, n) for p in ("telegram", "slack", "teams", "mattermost")}
    return {**fakes, "chats": chats}


def _figures(text: str) -> list[str]:
    return sorted(set(FIGURE.findall(text)))


def test_the_same_conversation_reads_the_same_on_every_platform(chats: dict[str, Any]) -> None:
    seen: dict[str, dict[str, str]] = {p: {} for p in chats["chats"]}
    for step, act in (
        ("assumed", lambda c: c.say("What was revenue?")),
        ("tapped", lambda c: c.tap("Orbis Italia")),
    ):
        for platform, new in _everyone(chats, act).items():
            chat = chats["chats"][platform]
            seen[platform][step] = "\n".join(chat.seen(m) for m in new)
    first = seen["telegram"]
    assert "Assumed: Orbis Group (default entity)" in first["assumed"]
    assert "Orbis Italia" in first["tapped"] and _figures(first["tapped"])
    for platform, steps in seen.items():
        for step, text in steps.items():
            assert _figures(text) == _figures(first[step]), (platform, step, text)
            assert SOURCE.findall(text) == SOURCE.findall(first[step]), (platform, step, text)
        assert "Orbis Italia" in steps["assumed"] and "Orbis Labs" not in steps["assumed"]


def test_a_cross_reaction_is_a_negative_verdict_everywhere(chats: dict[str, Any]) -> None:
    _everyone(chats, lambda c: c.say("What was Orbis Italia revenue in FY2024?"))
    ids = _everyone(chats, lambda c: c.message_id())
    app = build_app(load_settings(data_dir=chats["data"], embedder="hashing"))
    try:
        # the bot notes which turn a message shows once the platform has accepted it: a
        # reaction sooner than that (milliseconds) is on "not one of my answers"; wait for it
        for platform, chat in chats["chats"].items():
            chat.fake.wait_for(lambda p=platform, c=chat: app.storage.turns.turn_for_message(
                p, f"{p}:{c.chat}", ids[p]), timeout=60)
        _everyone(chats, lambda c: c.react_negative())
        for platform, chat in chats["chats"].items():
            def verdicts(platform: str = platform, chat: Chat = chat) -> list[str] | None:
                turn = app.storage.turns.turn_for_message(platform, f"{platform}:{chat.chat}",
                                                          ids[platform])
                found = [f.verdict for f in app.storage.turns.feedback_for(turn)] if turn else []
                return found or None

            assert chat.fake.wait_for(verdicts, timeout=60) == ["negative"], platform
    finally:
        app.close()


def test_a_chart_question_sends_the_chart_first_and_the_same_table(chats: dict[str, Any]
                                                                  ) -> None:
    answers = _everyone(chats, lambda c: c.say("China revenue from FY2021 to FY2025"))
    texts = {}
    for platform, new in answers.items():
        chat = chats["chats"][platform]
        if platform == "slack":
            assert any(u["data"].startswith(b"\x89PNG") for u in chat.fake.files(chat.chat))
        else:
            assert chat.image(new[0]), platform  # the chart first
        texts[platform] = "\n".join(chat.seen(m) for m in new)
    for platform, text in texts.items():
        for figure in ("€455.0M", "€478.2M", "-€82.2M", "-14.7%"):
            assert figure in text, (platform, text)


def test_an_admin_command_lists_the_same_fast_paths(chats: dict[str, Any]) -> None:
    f = chats
    tg, sl, te, ma = f["telegram"], f["slack"], f["teams"], f["mattermost"]
    f["chats"]["telegram"].say("What was Orbis Italia revenue in FY2024?")
    app = build_app(load_settings(data_dir=f["data"], embedder="hashing"))
    try:  # the answer's plan is remembered after it is sent: wait for the listing to hold it
        tg.wait_for(lambda: app.storage.fastpaths.count() > 0, timeout=60)
    finally:
        app.close()
    listings = {}
    tg.inject(tg.text(int(ADMIN["telegram"]), int(ADMIN["telegram"]), "/fastpaths"))
    listings["telegram"] = _seen(tg.wait_for(lambda: tg.sent(int(ADMIN["telegram"])))[0]["text"])
    f["slack_sender"].command("C8100009", ADMIN["slack"], "fastpaths")
    listings["slack"] = unescape(text_of(sl.wait_for(lambda: sl.ephemeral(ADMIN["slack"]))[0]))
    activity = te.message("a:parity-admin", ADMIN["teams"], "/fastpaths")
    te.post_activity(f["teams_url"], activity)
    listings["teams"] = ft.text_of(te.wait_for(lambda: te.messages("a:parity-admin"))[0])
    ma.slash(f["mattermost_command"], "parityadmin000000000000000", ADMIN["mattermost"],
             "fastpaths")
    listings["mattermost"] = ma.wait_for(lambda: ma.notes(ADMIN["mattermost"]))[0]["message"]
    for platform, text in listings.items():
        assert "fast paths (most used first)" in text, (platform, text)


def test_a_long_answer_is_split_to_each_platforms_limit_and_loses_nothing() -> None:
    """The same long answer through core.chat.delivery on every platform's markup: more than
    one message where the platform's limit needs it, each message within that limit, and every
    sentence and figure shown on every platform."""
    import asyncio
    import json

    from adapters.mattermost.render import MESSAGE_CHARS, answer_posts
    from adapters.slack.blocks import MAX_BLOCKS, answer_messages
    from adapters.teams.cards import MAX_CARD_BYTES, answer_cards
    from adapters.telegram.render import MESSAGE_LIMIT, answer_parts, pack, utf16_len
    from core.catalog.presentation import present
    from core.chat.callback_token import CallbackSigner
    from core.chat.delivery import deliver_answer
    from core.contracts.types import Answer, Line, Route

    lines = tuple(Line("fact", f"Unit {i:03d} revenue, FY2024: €{i}.5M, up {i % 9}.1%.")
                  for i in range(240))
    answer = Answer(turn_id="t1", route=Route.STRUCTURED, served_by="planner",
                    text="\n".join(x.text for x in lines), segments=list(lines))
    signer = CallbackSigner(b"k")
    render: dict[str, tuple[Callable[[Any], list[Any]], Callable[[Any], bool],
                            Callable[[Any], str]]] = {
        "telegram": (lambda p: pack(answer_parts(p)), lambda m: utf16_len(m) <= MESSAGE_LIMIT,
                     _seen),
        "slack": (lambda p: answer_messages(p, signer=signer, turn_id="t1"),
                  lambda m: len(m.blocks) <= MAX_BLOCKS,
                  lambda m: unescape(json.dumps([b for b in m.blocks], ensure_ascii=False))),
        "teams": (lambda p: answer_cards(p, signer=signer, turn_id="t1"),
                  lambda m: len(json.dumps(m)) <= MAX_CARD_BYTES,
                  lambda m: "\n".join(ft._unescape(b["text"]) for b in m["body"])),
        "mattermost": (answer_posts, lambda m: len(m) <= MESSAGE_CHARS,
                       lambda m: mm.seen({"message": m})),
    }
    counts = {}
    for platform, (messages, within, reader) in render.items():
        sender = _Recorder(messages)
        asyncio.run(deliver_answer(sender, answer, present(answer), limit=4))
        assert all(within(m) for m in sender.sent), platform
        shown = "\n".join(reader(m) for m in sender.sent)
        for line in lines:
            assert line.text.split(":")[0] in shown and f"€{line.text.split('€')[1][:4]}" in (
                shown), (platform, line.text)
        counts[platform] = len(sender.sent)
    assert counts["telegram"] > 1 and all(1 <= n <= 4 for n in counts.values()), counts


class _Recorder:
    """An AnswerSender that renders with a platform's markup and keeps what it would send."""

    def __init__(self, messages: Callable[[Any], list[Any]]) -> None:
        self.render, self.sent = messages, []  # type: list[Any]

    def count(self, answer: Any, shown: Any) -> int:
        return len(self.render(shown))

    def too_big(self, table: Any) -> bool:
        return False

    async def send_chart(self, table: Any, png: bytes) -> tuple[None, bool]:
        return None, False

    async def send_messages(self, answer: Any, shown: Any) -> list[int]:
        self.sent = self.render(shown)
        return list(range(len(self.sent)))

    async def send_file(self, attachment: Any) -> None:
        return None
