"""End to end: the real Slack adapter process (slack-bolt, aiohttp) against a fake Web API.

One bot serves the whole module (ACME knowledge base, hashing embedder). Inbound traffic is
what Slack sends: signed HTTP requests to `/slack/events`. Every test uses its own channel.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.settings.model import load_settings
from bot.wiring.build import build_app
from storage.fastpath_store import SqlFastpathStore
from tests.acme import load_acme
from tests.conftest import plans_stored
from tests.fake_slack import BOT_TOKEN, BOT_USER, FakeSlack
from tests.slack_harness import (
    ADMIN,
    ADMIN_IT,
    SIGNING_SECRET,
    BotProcess,
    mention_event,
    text_of,
)

CHINA_2024 = "What was ACME China revenue in FY2024?"
FOOTER = re.compile(r"_(L0a|L0b|L1|planner) · [\d.]+ ms_")


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return load_acme(tmp_path_factory.mktemp("slack"))


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeSlack]:
    server = FakeSlack().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def bot(data_dir: Path, fake: FakeSlack) -> Iterator[BotProcess]:
    process = BotProcess(data_dir, fake).start()
    yield process
    process.stop()
    log = process.output()
    assert BOT_TOKEN not in log and SIGNING_SECRET not in log, "a secret appeared in the log"


@pytest.fixture(scope="module")
def db(data_dir: Path) -> Iterator[Any]:
    app = build_app(load_settings(data_dir=data_dir, embedder="hashing"))
    yield app
    app.close()


def buttons(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for b in message.get("blocks") or [] if b["type"] == "actions"
            for e in b["elements"]]


def served_by(message: dict[str, Any]) -> str:
    match = FOOTER.search(text_of(message))
    assert match, text_of(message)
    return match.group(1)


def answer(bot: BotProcess, fake: FakeSlack, channel: str, text: str, *,
           user: str = "U0000001") -> dict[str, Any]:
    """Mention the bot with a question; the bot's reply in that channel."""
    before = len(fake.posted(channel))
    response = bot.sender.mention(channel, user, text)
    assert response.status_code == 200
    return fake.wait_for(lambda: fake.posted(channel)[before:])[0]


def turn_of(db: Any, channel: str, ts: str) -> str:
    """The turn a bot message shows (mapped right after chat.postMessage returns)."""
    found: list[str | None] = [None]

    def mapped() -> str | None:
        found[0] = db.storage.turns.turn_for_message("slack", f"slack:{channel}", ts)
        return found[0]

    wait_until(mapped)
    assert found[0] is not None
    return found[0]


def wait_until(condition: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("condition not reached")
        time.sleep(0.05)


def test_mention_gets_a_threaded_cited_answer(bot: BotProcess, fake: FakeSlack) -> None:
    started = time.monotonic()
    response = bot.sender.mention("C0000101", "U0000101", CHINA_2024)
    assert response.status_code == 200 and time.monotonic() - started < 3
    reply = fake.wait_for(lambda: fake.posted("C0000101"))[0]
    question = fake.calls("chat.postMessage", channel="C0000101")[0]
    assert reply["thread_ts"]  # in the thread of the question
    shown = text_of(reply)
    assert "$1,320M" in shown and "ACME FY2024 Review, slide 2" in shown  # the citation
    assert served_by(reply) == "planner"
    assert reply["text"].startswith("ACME China revenue")  # the notification fallback
    assert question.token == BOT_TOKEN and fake.calls("auth.test")


def test_dm_is_answered_and_noise_is_not(bot: BotProcess, fake: FakeSlack) -> None:
    dm = "D0000102"
    for noise in ({"bot_id": "B0THER01"}, {"subtype": "message_changed"},
                  {"subtype": "bot_message"}):
        assert bot.sender.direct(dm, "U0000102", CHINA_2024, **noise).status_code == 200
    bot.sender.event({"type": "message", "channel_type": "channel", "user": "U0000102",
                      "channel": "C0000102", "text": CHINA_2024, "ts": "1.0"})
    bot.sender.direct(dm, "U0000102", "What was ACME HK revenue in FY2024?")
    reply = fake.wait_for(lambda: fake.posted(dm))[0]
    assert "410" in text_of(reply) and reply.get("thread_ts") is None  # a DM needs no thread
    time.sleep(0.3)
    assert len(fake.posted(dm)) == 1 and fake.posted("C0000102") == []


def test_button_reanswers_with_that_slot_in_the_thread(bot: BotProcess, fake: FakeSlack,
                                                       db: Any) -> None:
    reply = answer(bot, fake, "C0000103", "What was revenue?")
    china = next(b for b in buttons(reply) if b["text"]["text"] == "ACME China")
    assert bot.sender.tap("C0000103", "U0000103", reply, china["value"],
                          china["action_id"]).status_code == 200
    narrowed = fake.wait_for(lambda: fake.posted("C0000103")[1:])[0]
    assert "$1,188M" in text_of(narrowed)  # ACME China, FY2025
    assert narrowed["thread_ts"] == reply["thread_ts"]
    turn = db.storage.turns.get_turn(turn_of(db, "C0000103", narrowed["ts"]))
    assert turn.fixed_slots == {"entity": "ACME_CN"}
    assert turn.parent_turn == turn_of(db, "C0000103", reply["ts"])


def test_an_option_is_answered_once_and_shows_it_was_chosen(bot: BotProcess,
                                                            fake: FakeSlack) -> None:
    reply = answer(bot, fake, "C0000150", "What was revenue?")
    china = next(b for b in buttons(reply) if b["text"]["text"] == "ACME China")
    assert bot.sender.tap("C0000150", "U0000150", dict(reply), china["value"],
                          china["action_id"]).status_code == 200
    fake.wait_for(lambda: fake.posted("C0000150")[1:])
    # the same option again, by anyone: told the answer is there, nothing posted
    assert bot.sender.tap("C0000150", "U0000151", dict(reply), china["value"],
                          china["action_id"]).status_code == 200
    fake.wait_for(lambda: fake.ephemeral("U0000151"))
    assert "Already answered" in fake.ephemeral("U0000151")[0]["text"]
    assert len(fake.posted("C0000150")) == 2  # the answer and one narrowed answer
    original = next(m for m in fake.posted("C0000150") if m["ts"] == reply["ts"])
    labels = [b["text"]["text"] for b in buttons(original)]
    assert "✓ ACME China" in labels and len(labels) == len(buttons(reply))


def test_forged_button_value_changes_nothing(bot: BotProcess, fake: FakeSlack, db: Any) -> None:
    reply = answer(bot, fake, "C0000104", "What was revenue?")
    kind, turn, index, mac = buttons(reply)[0]["value"].split(":")
    turns_before = len(db.storage.turns.recent_turns(1000))
    forged = (f"{kind}:{turn}:{int(index) + 1}:{mac}", f"{kind}:{turn}:{index}:AAAAAAAAAAAA",
              "o:0000000000000000:0:xxxxxxxxxxxx", "garbage")
    for value in forged:
        assert bot.sender.tap("C0000104", "U0000104", reply, value).status_code == 200
    notes = fake.wait_for(lambda: len(fake.ephemeral("U0000104")) >= 4 and
                          fake.ephemeral("U0000104"))
    assert all("expired" in n["text"] for n in notes)
    time.sleep(0.3)
    assert len(fake.posted("C0000104")) == 1  # no re-answer
    # nothing asked, nothing recorded
    assert len(db.storage.turns.recent_turns(1000)) == turns_before


def test_x_reaction_forgets_the_cached_plan(bot: BotProcess, fake: FakeSlack, db: Any) -> None:
    channel, question = "C0000105", "ACME Italia revenue in 2025?"
    first = answer(bot, fake, channel, question)
    second = answer(bot, fake, channel, question)
    assert (served_by(first), served_by(second)) == ("planner", "L0a")
    turn = turn_of(db, channel, second["ts"])
    fake.react(channel, second["ts"], "U0000105", "x")
    bot.sender.reaction(channel, second["ts"], "U0000105", "x")
    wait_until(lambda: [f.verdict for f in db.storage.turns.feedback_for(turn)] == ["negative"])
    assert served_by(answer(bot, fake, channel, question)) == "planner"


def test_removed_reaction_withdraws_unless_another_remains(bot: BotProcess, fake: FakeSlack,
                                                           db: Any) -> None:
    channel, user = "C0000106", "U0000106"
    reply = answer(bot, fake, channel, "What was ACME HK revenue in FY2025?")
    turn = turn_of(db, channel, reply["ts"])
    for name in ("+1::skin-tone-3", "white_check_mark"):
        fake.react(channel, reply["ts"], user, name)
        bot.sender.reaction(channel, reply["ts"], user, name)
    wait_until(lambda: [f.verdict for f in db.storage.turns.feedback_for(turn)] == ["positive"])
    fake.react(channel, reply["ts"], user, "white_check_mark", add=False)
    bot.sender.reaction(channel, reply["ts"], user, "white_check_mark", added=False)
    fake.wait_for(lambda: fake.calls("reactions.get", channel=channel))
    time.sleep(0.3)
    # +1 still there
    assert [f.verdict for f in db.storage.turns.feedback_for(turn)] == ["positive"]
    fake.react(channel, reply["ts"], user, "+1::skin-tone-3", add=False)
    bot.sender.reaction(channel, reply["ts"], user, "+1::skin-tone-3", added=False)
    wait_until(lambda: db.storage.turns.feedback_for(turn) == [])


def test_unsigned_or_stale_requests_are_refused(bot: BotProcess, fake: FakeSlack) -> None:
    sender = bot.sender
    assert sender.mention("C0000107", "U0000107", CHINA_2024, signed=False).status_code == 401
    stale = int(time.time()) - 6 * 60
    assert sender.mention("C0000107", "U0000107", CHINA_2024, timestamp=stale).status_code == 401
    forged = sender.post('{"type":"event_callback"}', "application/json", signed=False,
                         headers={"X-Slack-Request-Timestamp": str(int(time.time())),
                                  "X-Slack-Signature": "v0=" + "0" * 64})
    assert forged.status_code == 401
    time.sleep(0.3)
    assert fake.posted("C0000107") == []


def test_retried_event_is_processed_once(bot: BotProcess, fake: FakeSlack) -> None:
    event = {"type": "app_mention", "user": "U0000108", "channel": "C0000108",
             "text": f"<@{BOT_USER}> {CHINA_2024}", "ts": "1700000108.000100"}
    assert bot.sender.event(event, event_id="EvRETRY0001").status_code == 200
    retry = bot.sender.event(event, event_id="EvRETRY0001",
                             headers={"X-Slack-Retry-Num": "1",
                                      "X-Slack-Retry-Reason": "http_timeout"})
    assert retry.status_code == 200
    bot.sender.mention("C0000108", "U0000108", "What was ACME HK revenue in FY2024?")
    assert_answered_once_each(fake, "C0000108", ["1,320", "410"])


def assert_answered_once_each(fake: FakeSlack, channel: str, numbers: list[str]) -> None:
    """Each question answered exactly once, in whatever order the answers were posted."""
    def answers() -> list[str]:
        return sorted(n for m in fake.posted(channel) for n in numbers if n in text_of(m))

    fake.wait_for(lambda: set(answers()) == set(numbers))
    time.sleep(0.3)  # a second answer to the redelivery would have arrived by now
    assert answers() == sorted(numbers)


def test_slash_purge_is_for_admins(bot: BotProcess, fake: FakeSlack, db: Any) -> None:
    channel, question = "C0000109", "What was ACME Group revenue in FY2024?"
    answer(bot, fake, channel, question)
    fastpaths = SqlFastpathStore(db.storage.engine)
    count = plans_stored(fastpaths, question)
    assert count > 0
    assert bot.sender.command(channel, "U0000109", "purge all").status_code == 200
    refused = fake.wait_for(lambda: fake.ephemeral("U0000109"))[0]
    assert "only ricorda admins" in refused["text"] and fastpaths.count() == count
    bot.sender.command(channel, ADMIN, f"purge {question}")
    purged = fake.wait_for(lambda: fake.ephemeral(ADMIN))[0]
    assert "purged the fast path" in purged["text"] and fastpaths.count() == count - 1
    bot.sender.command(channel, ADMIN, "purge all")
    prompt = fake.wait_for(lambda: fake.ephemeral(ADMIN)[1:])[0]
    confirm = next(b for b in buttons(prompt) if b["text"]["text"] == "Confirm")
    bot.sender.tap(channel, "U0000109", {"ts": "1.0"}, confirm["value"], confirm["action_id"])
    fake.wait_for(lambda: fake.ephemeral("U0000109")[1:])  # "expired" for the non-admin
    assert fastpaths.count() == count - 1  # nothing purged (the store may hold no other plan)
    bot.sender.tap(channel, ADMIN, {"ts": "1.0"}, confirm["value"], confirm["action_id"])
    done = fake.wait_for(lambda: fake.ephemeral(ADMIN)[2:])[0]
    assert re.search(r"purged \d+ fast paths", done["text"]) and fastpaths.count() == 0
    again = answer(bot, fake, channel, question)
    count = plans_stored(fastpaths, question)
    assert count > 0, (text_of(again), [e["text"] for e in fake.ephemeral(ADMIN)])
    bot.sender.tap(channel, ADMIN, {"ts": "1.0"}, confirm["value"], confirm["action_id"])
    replayed = fake.wait_for(lambda: fake.ephemeral(ADMIN)[3:])[0]  # the same tap, again
    assert "expired" in replayed["text"] and fastpaths.count() == count


def test_slash_help_and_ask_are_ephemeral(bot: BotProcess, fake: FakeSlack) -> None:
    helped = bot.sender.command("C0000110", "U0000110", "help")
    assert helped.status_code == 200 and "mention me" in helped.json()["text"]
    assert helped.json()["response_type"] == "ephemeral"
    assert "purge" not in helped.json()["text"]  # admin subcommands only for admins
    bot.sender.command("C0000110", "U0000110", f"ask {CHINA_2024}")
    note = fake.wait_for(lambda: fake.ephemeral("U0000110"))[0]
    assert "$1,320M" in text_of(note) and fake.posted("C0000110") == []


def test_ratelimited_post_is_retried_after_retry_after(bot: BotProcess, fake: FakeSlack) -> None:
    fake.fail_once("chat.postMessage", status=429, retry_after=1)
    fake.fail_once("chat.postMessage", status=503)
    started = time.monotonic()
    reply = answer(bot, fake, "C0000111", CHINA_2024)
    assert "1,320" in text_of(reply) and time.monotonic() - started >= 1.0
    assert len(fake.calls("chat.postMessage", channel="C0000111")) == 3


def test_slash_ask_where_the_bot_is_no_member_answers_through_the_response_url(
        bot: BotProcess, fake: FakeSlack, db: Any) -> None:
    """A DM between two colleagues: chat.postEphemeral fails there, the response URL works."""
    fake.not_a_member("D0000112")
    before = len(fake.responses())
    bot.sender.command("D0000112", "U0000112", f"ask {CHINA_2024}")
    reply = fake.wait_for(lambda: fake.responses()[before:])[0]
    assert "$1,320M" in text_of(reply) and reply["response_type"] == "ephemeral"
    assert fake.ephemeral("U0000112")  # it was tried first, and failed


def test_slash_command_text_is_decoded_like_event_text(bot: BotProcess, fake: FakeSlack,
                                                       db: Any) -> None:
    bot.sender.command("C0000113", "U0000113",
                       "ask What was ACME China revenue &amp; EBITDA in FY2024?")
    fake.wait_for(lambda: fake.ephemeral("U0000113"))
    asked = [t.question for t in db.storage.turns.recent_turns(20, chat="slack:C0000113")]
    assert asked == ["What was ACME China revenue & EBITDA in FY2024?"]


def test_a_refused_request_body_is_not_logged(bot: BotProcess, fake: FakeSlack) -> None:
    secret = "How much did Project Nightingale cost us?"
    refused = bot.sender.mention("C0000114", "U0000114", secret, signed=False,
                                 headers={"X-Slack-Request-Timestamp": str(int(time.time())),
                                          "X-Slack-Signature": "v0=" + "0" * 64})
    assert refused.status_code == 401
    wait_until(lambda: "Invalid request signature" in bot.output())  # the refusal is logged...
    assert "Nightingale" not in bot.output()  # ...without what the user wrote


def test_a_reaction_is_recorded_and_acknowledged_with_the_bots_reaction(
        bot: BotProcess, fake: FakeSlack, db: Any) -> None:
    channel = "C0000115"
    reply = answer(bot, fake, channel, "What was ACME HK revenue in FY2024?")
    turn = turn_of(db, channel, reply["ts"])
    for user, name in (("U0000115", "+1"), ("U0000196", "x")):
        fake.react(channel, reply["ts"], user, name)
        bot.sender.reaction(channel, reply["ts"], user, name)
    wait_until(lambda: sorted(f.verdict for f in db.storage.turns.feedback_for(turn)) == [
        "negative", "positive"])
    fake.wait_for(lambda: len(fake.calls("reactions.add", channel=channel)) == 2)
    assert fake.reactions_on(channel, reply["ts"]) == ["memo"]  # one ack for everyone
    # no message but, for the ✗, the one question of what was wrong (core.chat.feedback_reasons;
    # a user of this test alone, so no prompt of another test is still open for them)
    posted = fake.wait_for(lambda: fake.posted(channel) if len(fake.posted(channel)) >= 2
                           else None)
    assert len(posted) == 2 and "ricorda_choice" in str(posted[1].get("blocks"))
    fake.react(channel, reply["ts"], "U0000196", "x", add=False)
    bot.sender.reaction(channel, reply["ts"], "U0000196", "x", added=False)
    wait_until(lambda: [f.verdict for f in db.storage.turns.feedback_for(turn)] == ["positive"])
    time.sleep(0.3)
    assert fake.reactions_on(channel, reply["ts"]) == ["memo"]  # U0000115's verdict stands
    fake.react(channel, reply["ts"], "U0000115", "+1", add=False)
    bot.sender.reaction(channel, reply["ts"], "U0000115", "+1", added=False)
    fake.wait_for(lambda: fake.reactions_on(channel, reply["ts"]) == [])
    assert db.storage.turns.feedback_for(turn) == []


def test_a_refused_ack_still_records_the_feedback(bot: BotProcess, fake: FakeSlack,
                                                 db: Any) -> None:
    """An app installed without reactions:write: the verdict counts, nobody is told."""
    channel = "C0000117"
    reply = answer(bot, fake, channel, "What was ACME Italia revenue in FY2025?")
    turn = turn_of(db, channel, reply["ts"])
    fake.refuse("reactions.add", "missing_scope")
    try:
        fake.react(channel, reply["ts"], "U0000117", "-1")
        bot.sender.reaction(channel, reply["ts"], "U0000117", "-1")
        wait_until(lambda: [f.verdict for f in db.storage.turns.feedback_for(turn)] == ["negative"])
        fake.wait_for(lambda: fake.calls("reactions.add", channel=channel))
    finally:
        fake.refuse("reactions.add", None)
    # the refusal reaches the log after the fake answered the call: wait for the line itself
    wait_until(lambda: "reactions.add on" in bot.output() and "missing_scope" in bot.output())
    # after the ✗ the bot asks what was wrong (core.chat.feedback_reasons), and nothing else
    fake.wait_for(lambda: len(fake.posted(channel)) > 1)
    time.sleep(0.3)  # what must not follow (a message, an apology) would have been sent by now
    assert fake.reactions_on(channel, reply["ts"]) == []
    assert [m["text"] for m in fake.posted(channel)[1:]] == ["Sorry about that. What was wrong?"]
    assert fake.ephemeral("U0000117") == []


@pytest.mark.parametrize(("user", "locale", "expected"), [
    ("U0000160", "it-IT", "Fammi una domanda"),
    ("U0000161", "zh-CN", "请提问"),
    ("U0000162", "fr-FR", "Ask me a question"),  # a locale the bot does not speak
])
def test_slash_help_is_in_the_users_slack_locale(bot: BotProcess, fake: FakeSlack, user: str,
                                                 locale: str, expected: str) -> None:
    fake.set_locale(user, locale)
    for _ in range(2):
        helped = bot.sender.command("C0000160", user, "help")
        assert helped.status_code == 200 and expected in helped.json()["text"]
    assert len(fake.calls("users.info", user=user)) == 1  # cached: one call per user


def test_notes_fall_back_to_english_without_users_read(bot: BotProcess, fake: FakeSlack) -> None:
    fake.set_locale("U0000163", "it-IT")
    fake.refuse("users.info", "missing_scope")
    try:
        helped = bot.sender.command("C0000163", "U0000163", "help")
    finally:
        fake.refuse("users.info", None)
    assert "Ask me a question" in helped.json()["text"]
    assert "users.info failed (missing_scope)" in bot.output()


def test_help_and_expired_notes_follow_the_locale(bot: BotProcess, fake: FakeSlack) -> None:
    channel, user = "C0000164", "U0000164"
    fake.set_locale(user, "it-IT")
    bot.sender.mention(channel, user, "")  # a bare mention: help, in the thread
    helped = fake.wait_for(lambda: fake.posted(channel))[0]
    assert "Fammi una domanda" in helped["text"] and "menzionami" in helped["text"]
    assert "ACME" in helped["text"] and "Orbis" not in helped["text"]  # the loaded company's
    reply = answer(bot, fake, channel, "What was revenue?", user="U0000165")
    kind, turn, index, _ = buttons(reply)[0]["value"].split(":")
    bot.sender.tap(channel, user, reply, f"{kind}:{turn}:{index}:AAAAAAAAAAAA")
    note = fake.wait_for(lambda: fake.ephemeral(user))[0]
    assert note["text"] == "Questo pulsante è scaduto. Fai di nuovo la domanda."


def test_admin_replies_follow_the_locale(bot: BotProcess, fake: FakeSlack) -> None:
    channel = "C0000166"
    fake.set_locale("U0000166", "zh-CN")
    bot.sender.command(channel, "U0000166", "stats")
    refused = fake.wait_for(lambda: fake.ephemeral("U0000166"))[0]
    assert refused["text"] == "抱歉，只有 ricorda 管理员可以使用 /stats。"
    fake.set_locale(ADMIN_IT, "it-IT")
    helped = bot.sender.command(channel, ADMIN_IT, "help").json()["text"]
    assert "admin: elenca i piani memorizzati" in helped
    bot.sender.command(channel, ADMIN_IT, "purge all")
    prompt = fake.wait_for(lambda: fake.ephemeral(ADMIN_IT))[0]
    assert "Tocca Conferma" in text_of(prompt)
    cancel = next(b for b in buttons(prompt) if b["text"]["text"] == "Annulla")
    bot.sender.tap(channel, ADMIN_IT, {"ts": "1.0"}, cancel["value"], cancel["action_id"])
    done = fake.wait_for(lambda: fake.ephemeral(ADMIN_IT)[1:])[0]
    assert done["text"] == "Non ho eliminato nulla."
    answer(bot, fake, channel, "What was ACME Group revenue in FY2025?")
    bot.sender.command(channel, ADMIN_IT, "fastpaths")
    listing = text_of(fake.wait_for(lambda: fake.ephemeral(ADMIN_IT)[2:])[0])
    assert re.search(r"\d+ percorsi rapidi \(i più usati prima\) su \d+:", listing), listing


def test_a_follow_up_continues_its_thread_and_no_other(bot: BotProcess, fake: FakeSlack) -> None:
    """The conversation is the thread: a follow-up in it inherits; a new thread does not."""
    channel, user = "C0000131", "U0000131"

    def say(text: str, thread: str | None = None) -> tuple[str, dict[str, Any]]:
        event = mention_event(channel, user, text)
        if thread:
            event["thread_ts"] = thread
        before = len(fake.posted(channel))
        assert bot.sender.event(event).status_code == 200
        return event["ts"], fake.wait_for(lambda: fake.posted(channel)[before:])[0]

    first_ts, first = say(CHINA_2024)
    assert "1,320" in text_of(first) and first["thread_ts"] == first_ts
    _, follow = say("and Hong Kong?", thread=first_ts)
    shown = text_of(follow)
    assert follow["thread_ts"] == first_ts
    assert "410" in shown and "Carried over from your previous question" in shown
    _, italian = say("e nel 2025?", thread=first_ts)
    assert "455" in text_of(italian) and "Ripreso" in text_of(italian)
    second_ts, alone = say("and Hong Kong?")  # a new top-level question: a new thread
    assert alone["thread_ts"] == second_ts and "Which figure" in text_of(alone)
    _, other = say("What was ACME China revenue in FY2025?", thread=second_ts)
    _, online = say("and the online channel?", thread=second_ts)
    assert "402.25" in text_of(online) and "1,188" in text_of(other)
    _, back = say("and FY2024?", thread=first_ts)  # the first thread kept its own: HK revenue
    assert "410" in text_of(back) and "online" not in text_of(back)
