"""End to end: the real bot process, python-telegram-bot included, against a fake Bot API.

One bot serves the whole module (ACME knowledge base, hashing embedder); every test uses its
own chat ids so they do not see each other's messages.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bot.settings.model import load_settings
from bot.wiring.build import build_app
from storage.fastpath_store import SqlFastpathStore
from storage.turn_store import SqlTurnStore
from tests.acme import load_acme
from tests.conftest import plans_stored
from tests.fake_telegram import BOT, FakeTelegram
from tests.loopback import free_port, post_when_up
from tests.telegram_harness import ADMIN, BotProcess

CHINA_2024 = "What was ACME China revenue in FY2024?"
FOOTER = re.compile(r"<i>(L0a|L0b|L1|planner) · [\d.]+ ms</i>")


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return load_acme(tmp_path_factory.mktemp("telegram"))


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeTelegram]:
    server = FakeTelegram().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def bot(data_dir: Path, fake: FakeTelegram) -> Iterator[BotProcess]:
    process = BotProcess(data_dir, fake).start()
    yield process
    process.stop()
    assert fake.token not in process.output(), "the bot token appeared in the log"


@pytest.fixture(scope="module")
def db(data_dir: Path) -> Iterator[Any]:
    app = build_app(load_settings(data_dir=data_dir, embedder="hashing"))
    yield app
    app.close()


def ask(fake: FakeTelegram, chat: int, text: str, *, user: int | None = None,
        **kw: Any) -> dict[str, Any]:
    """Send one message and return the bot's (first) reply to that chat."""
    before = len(fake.sent(chat))
    if text.startswith("@"):
        fake.inject(fake.mention(chat, user or chat, text.split(" ", 1)[1]))
    else:
        fake.inject(fake.text(chat, user or chat, text, **kw))
    return fake.wait_for(lambda: fake.sent(chat)[before:])[0]


def turn_of(turns: SqlTurnStore, chat: int, message_id: int) -> str:
    """The turn a bot message shows. It is mapped just after the send returns, so a test
    that reacts within a millisecond of the reply (no human does) waits for the mapping."""
    found: list[str] = []
    wait_until(lambda: found.append(turns.turn_for_message(  # type: ignore[func-returns-value]
        "telegram", f"telegram:{chat}", message_id) or "") or found[-1])
    return found[-1]


def served_by(message: dict[str, Any]) -> str:
    match = FOOTER.search(message["text"])
    assert match, message["text"]
    return match.group(1)


def _expired(fake: FakeTelegram) -> list[Any]:
    return [c for c in fake.calls("answerCallbackQuery") if "expired" in c.params.get("text", "")]


def wait_until(condition: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("condition not reached")
        time.sleep(0.05)


def test_private_question_gets_a_cited_html_answer(bot: BotProcess, fake: FakeTelegram) -> None:
    reply = ask(fake, 101, CHINA_2024)
    assert "$1,320M" in reply["text"]
    assert "(source: ACME FY2024 Review, slide 2, table 1)" in reply["text"]  # the citation
    assert reply["_params"]["parse_mode"] == "HTML"
    assert served_by(reply) == "planner"
    setup = {c.method for c in fake.calls()}
    assert {"getMe", "setMyCommands", "getUpdates"} <= setup
    allowed = fake.calls("getUpdates")[-1].params["allowed_updates"]
    assert {"message", "callback_query", "message_reaction"} <= set(allowed)
    menus = {c.params.get("language_code"): c.params["commands"]
             for c in fake.calls("setMyCommands") if "scope" not in c.params}
    assert set(menus) == {None, "it", "zh"}  # English is the default menu, for every language
    assert "cosa puoi chiedermi" in str(menus["it"])


def test_group_answers_mentions_replies_and_ask_only(bot: BotProcess, fake: FakeTelegram) -> None:
    group = -2001
    fake.inject(fake.text(group, 21, CHINA_2024))  # people talking: not for the bot
    reply = ask(fake, group, f"@{BOT['username']} {CHINA_2024}", user=22)
    assert "1,320" in reply["text"]
    assert len(fake.sent(group)) == 1  # the unaddressed message got nothing
    follow = ask(fake, group, "/ask What was ACME HK revenue in FY2024?", user=23)
    assert "410" in follow["text"]
    again = ask(fake, group, "and in FY2025 for ACME HK revenue?", user=24,
                reply_to=follow["message_id"])
    assert "455" in again["text"]
    fake.inject(fake.photo(group, 25))  # silence in groups
    fake.inject(fake.text(group, 26, "@somebody " + CHINA_2024,
                          entities=[{"type": "mention", "offset": 0, "length": 9}]))
    ask(fake, group, "/ask What was ACME Italia revenue in FY2025?", user=27)
    assert len(fake.sent(group)) == 4  # mention, /ask, reply-to-bot, last /ask: nothing else


def test_non_text_gets_a_short_note_in_private(bot: BotProcess, fake: FakeTelegram) -> None:
    fake.inject(fake.photo(102, 102))
    note = fake.wait_for(lambda: fake.sent(102))[0]
    assert "text questions" in note["text"]


def test_help_is_in_the_users_language(bot: BotProcess, fake: FakeTelegram) -> None:
    reply = ask(fake, 103, "/help", language="it")
    assert "Fammi una domanda" in reply["text"]
    assert "ACME" in reply["text"] and "Orbis" not in reply["text"]  # the loaded company's


def test_narrowing_tap_reanswers_with_that_slot(bot: BotProcess, fake: FakeTelegram,
                                                db: Any) -> None:
    reply = ask(fake, 104, "What was revenue?")
    buttons = [b for row in reply["reply_markup"]["inline_keyboard"] for b in row]
    china = next(b for b in buttons if b["text"] == "ACME China")
    assert len(china["callback_data"].encode()) <= 64
    fake.inject(fake.tap(104, 104, reply["message_id"], china["callback_data"]))
    narrowed = fake.wait_for(lambda: fake.sent(104)[1:])[0]
    assert "$1,188M" in narrowed["text"]  # ACME China, FY2025
    assert narrowed["_params"]["reply_parameters"]["message_id"] == reply["message_id"]
    assert fake.message(104, reply["message_id"])["text"] == reply["text"]  # original stays
    turn = db.storage.turns.get_turn(turn_of(db.storage.turns, 104, narrowed["message_id"]))
    assert turn.fixed_slots == {"entity": "ACME_CN"}
    assert turn.parent_turn == turn_of(db.storage.turns, 104, reply["message_id"])


def test_an_option_is_answered_once_and_shows_it_was_chosen(bot: BotProcess,
                                                            fake: FakeTelegram) -> None:
    reply = ask(fake, 150, "What was revenue?")
    buttons = [b for row in reply["reply_markup"]["inline_keyboard"] for b in row]
    china = next(b for b in buttons if b["text"] == "ACME China")
    fake.inject(fake.tap(150, 150, reply["message_id"], china["callback_data"]))
    fake.wait_for(lambda: fake.sent(150)[1:])
    fake.inject(fake.tap(150, 151, reply["message_id"], china["callback_data"]))  # again
    fake.wait_for(lambda: [c for c in fake.calls("answerCallbackQuery")
                           if "Already answered" in c.params.get("text", "")])
    assert len(fake.sent(150)) == 2  # the question's answer and one narrowed answer
    shown = fake.message(150, reply["message_id"])["reply_markup"]["inline_keyboard"]
    labels = [b["text"] for row in shown for b in row]
    assert "✓ ACME China" in labels and len(labels) == len(buttons)  # the others stay


def test_forged_callback_says_expired_and_changes_nothing(bot: BotProcess, fake: FakeTelegram,
                                                          db: Any) -> None:
    reply = ask(fake, 105, "What was revenue?")
    genuine = reply["reply_markup"]["inline_keyboard"][1][0]["callback_data"]  # under a header
    kind, turn, index, mac = genuine.split(":")
    turns_before = len(db.storage.turns.recent_turns(1000))
    for forged in (f"{kind}:{turn}:{int(index) + 1}:{mac}", f"{kind}:{turn}:{index}:AAAA",
                   "o:0000000000000000:0:xxxxxxxxxxxx", "garbage"):
        fake.inject(fake.tap(105, 105, reply["message_id"], forged))
    expired = fake.wait_for(lambda: len(_expired(fake)) >= 4 and _expired(fake))
    assert all(c.params["show_alert"] == "true" for c in expired)
    time.sleep(0.3)
    assert len(fake.sent(105)) == 1  # no re-answer
    # nothing asked, nothing recorded
    assert len(db.storage.turns.recent_turns(1000)) == turns_before


def test_thumbs_down_forgets_the_cached_plan(bot: BotProcess, fake: FakeTelegram, db: Any) -> None:
    question = "ACME Italia revenue in 2025?"
    first = ask(fake, 106, question)
    second = ask(fake, 106, question)
    assert (served_by(first), served_by(second)) == ("planner", "L0a")
    turn = turn_of(db.storage.turns, 106, second["message_id"])
    before = len(fake.sent(106))
    fake.inject(fake.reaction(106, 106, second["message_id"], ["👎"]))
    wait_until(lambda: [f.verdict for f in db.storage.turns.feedback_for(turn)] == ["negative"])
    # the user sees what was wrong asked first (core.chat.feedback_reasons), then asks again
    fake.wait_for(lambda: [m for m in fake.sent(106)[before:] if "What was wrong?" in m["text"]])
    third = ask(fake, 106, question)
    assert served_by(third) == "planner"


def test_thumbs_up_confirms_for_l1(bot: BotProcess, fake: FakeTelegram, db: Any) -> None:
    reply = ask(fake, 107, "What was ACME HK revenue in FY2025?")
    turn = turn_of(db.storage.turns, 107, reply["message_id"])
    fake.inject(fake.reaction(107, 107, reply["message_id"], ["❤"]))
    wait_until(lambda: [f.verdict for f in db.storage.turns.feedback_for(turn)] == ["positive"])
    listing = ask(fake, ADMIN, "/autopaths")
    assert re.search(r"ok=1\b", listing["text"]), listing["text"]
    # a changed reaction replaces the user's verdict
    fake.inject(fake.reaction(107, 107, reply["message_id"], ["👎"], old=["❤"]))
    wait_until(lambda: [f.verdict for f in db.storage.turns.feedback_for(turn)] == ["negative"])


def test_check_mark_reply_counts_as_positive(bot: BotProcess, fake: FakeTelegram, db: Any) -> None:
    reply = ask(fake, 108, CHINA_2024)
    turn = turn_of(db.storage.turns, 108, reply["message_id"])
    ack = ask(fake, 108, "✅", reply_to=reply["message_id"])
    assert "noted as correct" in ack["text"]
    verdicts = [(f.verdict, f.via) for f in db.storage.turns.feedback_for(turn)]
    assert verdicts == [("positive", "reply")]


def test_purge_is_for_admins_and_asks_before_purging_all(bot: BotProcess, fake: FakeTelegram,
                                                         db: Any) -> None:
    ask(fake, 109, "What was ACME Group revenue in FY2024?")
    fastpaths = SqlFastpathStore(db.storage.engine)
    assert plans_stored(fastpaths, "What was ACME Group revenue in FY2024?") > 0
    refused = ask(fake, 109, "/purge all")
    assert "only ricorda admins" in refused["text"]
    prompt = ask(fake, ADMIN, "/purge all")
    assert fastpaths.count() > 0
    confirm = prompt["reply_markup"]["inline_keyboard"][0][0]
    assert confirm["text"] == "Confirm"
    expired_before = len(_expired(fake))
    fake.inject(fake.tap(ADMIN, 109, prompt["message_id"], confirm["callback_data"]))  # not admin
    fake.wait_for(lambda: len(_expired(fake)) > expired_before)
    assert fastpaths.count() > 0
    fake.inject(fake.tap(ADMIN, ADMIN, prompt["message_id"], confirm["callback_data"]))
    fake.wait_for(lambda: fake.calls("editMessageText", message_id=prompt["message_id"]))
    assert "purged" in fake.message(ADMIN, prompt["message_id"])["text"]
    assert fastpaths.count() == 0


def test_duplicate_update_is_processed_once(bot: BotProcess, fake: FakeTelegram) -> None:
    fake.inject(fake.text(110, 110, CHINA_2024), copies=2)  # delivered twice
    fake.wait_for(lambda: fake.sent(110))
    ask(fake, 110, "What was ACME HK revenue in FY2024?")
    assert len(fake.sent(110)) == 2


def test_flood_control_429_is_retried(bot: BotProcess, fake: FakeTelegram) -> None:
    fake.fail_once("sendMessage", retry_after=1)
    started = time.monotonic()
    reply = ask(fake, 111, CHINA_2024)
    assert "1,320" in reply["text"]
    attempts = fake.calls("sendMessage", chat_id=111)
    assert len(attempts) == 2 and time.monotonic() - started >= 1.0


def test_feedback_after_restart(bot: BotProcess, fake: FakeTelegram, db: Any) -> None:
    reply = ask(fake, 112, "What was ACME China EBITDA in FY2025?")
    turn = turn_of(db.storage.turns, 112, reply["message_id"])
    bot.stop()
    bot.start()
    fake.inject(fake.reaction(112, 112, reply["message_id"], ["👎"]))
    wait_until(lambda: [f.verdict for f in db.storage.turns.feedback_for(turn)] == ["negative"])


def test_webhook_checks_the_secret(data_dir: Path, fake: FakeTelegram) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/telegram"
    hook = BotProcess(data_dir, fake, RICORDA_TELEGRAM_WEBHOOK_URL=url,
                      RICORDA_TELEGRAM_WEBHOOK_SECRET="s3cret-hook")
    hook.start(ready=lambda: fake.webhook.get("url") == url)
    try:
        assert fake.webhook["secret_token"] == "s3cret-hook"
        update = json.dumps({"update_id": 990001, **fake.text(113, 113, CHINA_2024)})
        headers = {"Content-Type": "application/json"}
        wrong = post_when_up(url, update, {**headers,
                                            "X-Telegram-Bot-Api-Secret-Token": "nope"})
        assert wrong.status_code == 403
        missing = httpx.post(url, content=update, headers=headers)
        assert missing.status_code == 403
        right = httpx.post(url, content=update, headers={
            **headers, "X-Telegram-Bot-Api-Secret-Token": "s3cret-hook"})
        assert right.status_code == 200
        reply = fake.wait_for(lambda: fake.sent(113))[0]
        assert "1,320" in reply["text"]
    finally:
        hook.stop()



def test_an_edited_message_never_runs_a_command(bot: BotProcess, fake: FakeTelegram,
                                                db: Any) -> None:
    ask(fake, 114, "What was ACME Group revenue in FY2024?")
    ask(fake, 114, "What was ACME HK revenue in FY2024?")
    fastpaths = SqlFastpathStore(db.storage.engine)
    count = plans_stored(fastpaths, "What was ACME Group revenue in FY2024?",
                         "What was ACME HK revenue in FY2024?")
    sent_before = {c: len(fake.sent(c)) for c in (114, ADMIN, -114)}
    for chat, user, text in ((114, 114, f"/ask {CHINA_2024}"), (ADMIN, ADMIN, "/purge all"),
                             (ADMIN, ADMIN, "/stats"), (-114, 114, f"/ask {CHINA_2024}")):
        edited = fake.text(chat, user, text)
        fake.inject({"edited_message": {**edited["message"], "edit_date": int(time.time())}})
    ask(fake, 114, "What was ACME HK revenue in FY2024?")  # handled after the edits
    time.sleep(0.5)
    assert len(fake.sent(114)) == sent_before[114] + 1
    assert len(fake.sent(ADMIN)) == sent_before[ADMIN] and fake.sent(-114) == []
    assert fastpaths.count() == count


def test_a_used_purge_confirmation_cannot_be_replayed(bot: BotProcess, fake: FakeTelegram,
                                                      db: Any) -> None:
    fastpaths = SqlFastpathStore(db.storage.engine)
    prompt = ask(fake, ADMIN, "/purge all")
    confirm = prompt["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
    fake.inject(fake.tap(ADMIN, ADMIN, prompt["message_id"], confirm))
    fake.wait_for(lambda: "purged" in fake.message(ADMIN, prompt["message_id"])["text"])
    ask(fake, 115, "What was ACME Group revenue in FY2024?")
    count = plans_stored(fastpaths, "What was ACME Group revenue in FY2024?")
    assert count > 0
    expired_before = len(_expired(fake))
    fake.inject(fake.tap(ADMIN, ADMIN, prompt["message_id"], confirm))  # the same tap, again
    fake.wait_for(lambda: len(_expired(fake)) > expired_before)
    assert fastpaths.count() == count


def test_a_reaction_is_recorded_and_acknowledged_with_the_bots_reaction(
        bot: BotProcess, fake: FakeTelegram, db: Any) -> None:
    reply = ask(fake, 116, "What was ACME HK revenue in FY2024?")
    turn = turn_of(db.storage.turns, 116, reply["message_id"])
    fake.inject(fake.reaction(116, 116, reply["message_id"], ["👍"]))
    wait_until(lambda: [f.verdict for f in db.storage.turns.feedback_for(turn)] == ["positive"])
    assert fake.wait_for(lambda: fake.bot_reactions(116, reply["message_id"])) == ["✍"]
    assert len(fake.sent(116)) == 1  # acknowledged without a chat message
    fake.inject(fake.reaction(116, 116, reply["message_id"], [], old=["👍"]))  # withdrawn
    wait_until(lambda: db.storage.turns.feedback_for(turn) == [])
    fake.wait_for(lambda: fake.bot_reactions(116, reply["message_id"]) == [])
    assert len(fake.sent(116)) == 1


def test_in_a_group_the_ack_stays_while_a_verdict_stands(bot: BotProcess, fake: FakeTelegram,
                                                         db: Any) -> None:
    group = -2117
    reply = ask(fake, group, "/ask What was ACME HK revenue in FY2024?", user=31)
    turn = turn_of(db.storage.turns, group, reply["message_id"])
    fake.inject(fake.reaction(group, 31, reply["message_id"], ["👍"]))
    fake.inject(fake.reaction(group, 32, reply["message_id"], ["👎"]))
    wait_until(lambda: len(db.storage.turns.feedback_for(turn)) == 2)
    before = len(fake.calls("setMessageReaction", message_id=reply["message_id"]))
    fake.inject(fake.reaction(group, 32, reply["message_id"], [], old=["👎"]))
    fake.wait_for(lambda: len(fake.calls("setMessageReaction",
                                         message_id=reply["message_id"])) > before)
    # the acknowledgement is not the stored state: wait for the removal itself to be stored
    wait_until(lambda: [f.verdict for f in db.storage.turns.feedback_for(turn)] == ["positive"])
    assert fake.bot_reactions(group, reply["message_id"]) == ["✍"]  # user 31's verdict stands


def test_a_refused_ack_still_records_the_feedback(bot: BotProcess, fake: FakeTelegram,
                                                 db: Any) -> None:
    """A chat whose admins limited the reactions refuses the bot's: the verdict counts, the
    user sees nothing (no apology), the log says why without the token."""
    reply = ask(fake, 118, "What was ACME Italia revenue in FY2025?")
    turn = turn_of(db.storage.turns, 118, reply["message_id"])
    fake.fail_once("setMessageReaction", status=400, description="Bad Request: REACTION_INVALID")
    fake.inject(fake.reaction(118, 118, reply["message_id"], ["👎"]))
    wait_until(lambda: [f.verdict for f in db.storage.turns.feedback_for(turn)] == ["negative"])
    fake.wait_for(lambda: fake.calls("setMessageReaction", message_id=reply["message_id"]))
    # the call is recorded when the fake refuses it, the log line after: wait for the line
    wait_until(lambda: "cannot set the reaction" in bot.output())
    # after the ✗ the bot asks what was wrong (core.chat.feedback_reasons), and nothing else
    fake.wait_for(lambda: len(fake.sent(118)) > 1)
    time.sleep(0.3)  # what must not follow (an apology) would have been sent by now
    assert fake.bot_reactions(118, reply["message_id"]) == []
    # no "something went wrong" for a courtesy that failed
    assert [m["text"] for m in fake.sent(118)[1:]] == ["Sorry about that. What was wrong?"]
    assert fake.token not in bot.output()


def test_admin_sentences_are_in_the_users_language(bot: BotProcess, fake: FakeTelegram) -> None:
    refused = ask(fake, 119, "/stats", language="zh")
    assert "抱歉，只有 ricorda 管理员可以使用 /stats。" in refused["text"]
    prompt = ask(fake, ADMIN, "/purge all", language="it")
    assert "Tocca Conferma" in prompt["text"]
    labels = [b["text"] for row in prompt["reply_markup"]["inline_keyboard"] for b in row]
    assert labels == ["Conferma", "Annulla"]
    stats = ask(fake, ADMIN, "/stats", language="it")
    assert "livelli di risposta negli ultimi 500 turni:" in stats["text"]


def test_follow_ups_continue_each_conversation(bot: BotProcess, fake: FakeTelegram) -> None:
    """A private chat is one conversation; in a group each member continues their own."""
    assert "1,320" in ask(fake, 131, CHINA_2024)["text"]
    follow = ask(fake, 131, "and Hong Kong?")["text"]
    assert "410" in follow and "Carried over from your previous question: revenue, FY2024." in (
        follow)
    italian = ask(fake, 131, "e nel 2025?", language="it")["text"]
    assert "455" in italian and "Ripreso dalla domanda precedente" in italian
    chinese = ask(fake, 132, "2025年中国区营收是多少？", language="zh")["text"]
    assert "11.88亿美元" in chinese  # the currency in Chinese: 亿
    assert "4.55亿美元" in ask(fake, 132, "那香港呢？", language="zh")["text"]
    assert "Which figure" in ask(fake, 133, "and Hong Kong?")["text"]  # another chat: nothing

    group = -2301
    ask(fake, group, f"/ask {CHINA_2024}", user=41)
    ask(fake, group, "/ask What was ACME China EBITDA in FY2025?", user=42)
    mine = ask(fake, group, "/ask and Hong Kong?", user=41)["text"]  # 41's revenue, FY2024
    assert "410" in mine and "EBITDA" not in mine
    theirs = ask(fake, group, "/ask and Hong Kong?", user=42)["text"]  # 42's EBITDA, FY2025
    assert "EBITDA" in theirs and "410" not in theirs
    assert "Which figure" in ask(fake, group, "/ask and Hong Kong?", user=43)["text"]
