"""The model planner end to end through the real Telegram and Slack adapters (separate bot
processes against the fake platform APIs) and a scripted model server on 127.0.0.1: what the
user sees while the model plans, the answer, its replay without the model, and feedback."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from bot.settings.model import load_settings
from bot.wiring.build import build_app
from core.fastpath.canonical import cache_key
from core.fastpath.rejections import is_rejection
from tests.acme import load_acme
from tests.fake_planner_llm import FakePlannerLLM, reading
from tests.fake_slack import FakeSlack
from tests.fake_telegram import FakeTelegram
from tests.slack_harness import BotProcess as SlackBot
from tests.slack_harness import text_of
from tests.telegram_harness import BotProcess as TelegramBot
from tests.test_slack_adapter import turn_of, wait_until
from tests.test_telegram_adapter import turn_of as tg_turn_of

TILLS = "how much did the tills ring up in Hong Kong in FY2024?"
PARAPHRASE = "how much did tills ring up in Hong Kong during FY2024?"
LEVEL = re.compile(r"(L0a|L0b|L1|planner|model) · [\d.]+ ms")


def level(text: str) -> str:
    match = LEVEL.search(text)
    assert match, text
    return match.group(1)


@pytest.fixture(scope="module")
def model() -> Iterator[FakePlannerLLM]:
    with FakePlannerLLM(reading(["REVENUE"], ["ACME_HK"], ["FY2024"])) as fake:
        yield fake


def planner_env(model: FakePlannerLLM) -> dict[str, str]:
    return {"RICORDA_LLM": "openai", "RICORDA_LLM_BASE_URL": model.url,
            "RICORDA_MODEL_PLANNER": "true", "RICORDA_EMBEDDER": "use"}


def verdicts(db: Any, turn: str) -> list[str]:
    return [f.verdict for f in db.storage.turns.feedback_for(turn)]


def question_key(db: Any, turn: str) -> str:
    """The L0 cache key of the question a turn answered."""
    record = db.storage.turns.get_turn(turn)
    return cache_key(record.question, record.language, record.fixed_slots)[1]


def stored_plan(db: Any, key: str) -> Any:
    """The stored L0 entry of a question, once it has the embedding L0b needs."""
    entry = db.storage.fastpaths.by_hash(key)
    return entry if entry is not None and entry.embedding is not None else None


# -- Telegram ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def telegram(tmp_path_factory: pytest.TempPathFactory,
             model: FakePlannerLLM) -> Iterator[tuple[FakeTelegram, TelegramBot, Any]]:
    data = load_acme(tmp_path_factory.mktemp("tg-model"))
    fake = FakeTelegram().start()
    process = TelegramBot(data, fake, **planner_env(model)).start()
    app = build_app(load_settings(data_dir=data, embedder="hashing"))
    yield fake, process, app
    app.close()
    process.stop()
    fake.stop()


def tg_reply(fake: FakeTelegram, chat: int, text: str) -> dict[str, Any]:
    before = len(fake.sent(chat))
    fake.inject(fake.text(chat, chat, text))
    return fake.wait_for(lambda: fake.sent(chat)[before:])[0]


def test_telegram_types_while_the_model_plans_then_replays_without_it(
    telegram: tuple[FakeTelegram, TelegramBot, Any], model: FakePlannerLLM
) -> None:
    fake, _, db = telegram
    chat, asked = 301, model.requests
    model.hold()
    fake.inject(fake.text(chat, chat, TILLS))
    assert model.received.wait(30)
    typing = fake.wait_for(lambda: [c for c in fake.calls("sendChatAction")
                                    if str(c.params.get("chat_id")) == str(chat)])
    assert typing[0].params["action"] == "typing"
    assert fake.sent(chat) == []  # still planning: nothing answered yet
    model.release()
    answer = fake.wait_for(lambda: fake.sent(chat))[0]
    assert "410" in answer["text"] and "Understood as: revenue · ACME HK · FY2024." in answer[
        "text"]
    assert level(answer["text"]) == "model"
    turn = tg_turn_of(db.storage.turns, chat, answer["message_id"])
    key = question_key(db, turn)

    # the state the paraphrase relies on: the model's plan stored, with the embedding L0b finds
    # it by. The pipeline guarantees it before this chat's next question is answered (tested
    # with the race forced in tests/test_plan_before_next_message.py); here it is waited for
    wait_until(lambda: stored_plan(db, key) is not None, timeout=60)
    paraphrase = tg_reply(fake, chat, PARAPHRASE)
    assert level(paraphrase["text"]) == "L0b" and "410" in paraphrase["text"]
    assert model.requests == asked + 1  # the paraphrase cost no model call

    # 👎 on the model's answer: the question is worked out afresh, by the model (once the
    # verdict has replaced the stored plan by its rejection marker)
    fake.inject(fake.reaction(chat, chat, answer["message_id"], ["👎"]))
    wait_until(lambda: verdicts(db, turn) == ["negative"], timeout=60)
    wait_until(lambda: is_rejection(db.storage.fastpaths.by_hash(key)), timeout=60)
    # the ✗ is handled once the bot has asked what was wrong (core.chat.feedback_reasons): the
    # question after it is then the next message, not that prompt
    fake.wait_for(lambda: [m for m in fake.sent(chat) if "What was wrong?" in m["text"]],
                  timeout=60)
    again = tg_reply(fake, chat, TILLS)
    assert level(again["text"]) == "model" and model.requests == asked + 2


# -- Slack ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def slack(tmp_path_factory: pytest.TempPathFactory,
          model: FakePlannerLLM) -> Iterator[tuple[FakeSlack, SlackBot, Any]]:
    data = load_acme(tmp_path_factory.mktemp("slack-model"))
    fake = FakeSlack().start()
    process = SlackBot(data, fake, **planner_env(model)).start()
    app = build_app(load_settings(data_dir=data, embedder="hashing"))
    yield fake, process, app
    app.close()
    process.stop()
    fake.stop()


def test_slack_shows_a_placeholder_the_answer_replaces(
    slack: tuple[FakeSlack, SlackBot, Any], model: FakePlannerLLM
) -> None:
    fake, process, db = slack
    channel, asked = "C0MODEL1", model.requests
    model.hold()
    assert process.sender.mention(channel, "U0000001", TILLS).status_code == 200
    assert model.received.wait(30)
    placeholder = fake.wait_for(lambda: fake.posted(channel))[0]
    assert "Working out how to read your question" in text_of(placeholder)
    assert model.requests == asked + 1
    model.release()
    fake.wait_for(lambda: fake.calls("chat.update", channel=channel, ts=placeholder["ts"]))
    shown = fake.posted(channel)
    assert len(shown) == 1  # the answer took the placeholder's place
    answer = text_of(shown[0])
    assert "410" in answer and "Understood as: revenue · ACME HK · FY2024." in answer
    assert level(answer) == "model"

    # the placeholder's message is the answer's: a ✓ on it counts for the model's turn
    turn = turn_of(db, channel, placeholder["ts"])  # mapped just after the update returns
    fake.react(channel, placeholder["ts"], "U0000001", "white_check_mark")
    process.sender.reaction(channel, placeholder["ts"], "U0000001", "white_check_mark")
    wait_until(lambda: verdicts(db, turn) == ["positive"])

    before = len(fake.posted(channel))
    process.sender.mention(channel, "U0000001", PARAPHRASE)
    replay = fake.wait_for(lambda: fake.posted(channel)[before:])
    assert len(replay) == 1 and level(text_of(replay[0])) == "L0b"  # no placeholder
    assert model.requests == asked + 1
