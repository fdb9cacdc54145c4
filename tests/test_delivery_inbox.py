"""At least once, exactly one answer: a bot killed (SIGKILL) after the platform was told a
question arrived and before the answer went out answers it after a restart, once.

Each test runs the real `ricorda serve` process against a fake platform that holds the bot's
reply call (the fake drops a held call whose bot died, as a request that never reached the
platform), kills the bot while the reply is held, restarts it, and counts the answers.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.acme import load_acme
from tests.fake_slack import FakeSlack
from tests.fake_telegram import FakeTelegram
from tests.loopback import free_port, post_when_up
from tests.slack_harness import BotProcess as SlackBot
from tests.slack_harness import text_of
from tests.telegram_harness import BotProcess as TelegramBot

CHINA_2024 = "What was ACME China revenue in FY2024?"
LEASE = "1"  # seconds: a dead process's entries are taken over this soon after


@pytest.fixture(scope="module")
def acme_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return load_acme(tmp_path_factory.mktemp("inbox"))


@pytest.fixture
def telegram() -> Iterator[FakeTelegram]:
    fake = FakeTelegram().start()
    yield fake
    fake.release("sendMessage")
    fake.stop()


def kill(bot: TelegramBot) -> None:
    assert bot.proc is not None
    os.kill(bot.proc.pid, signal.SIGKILL)
    bot.proc.wait(10)
    bot.proc = None


def answered_once(fake: FakeTelegram, chat: int) -> None:
    """One answer arrives, and no second one follows within a few lease periods."""
    fake.wait_for(lambda: fake.sent(chat), timeout=30)
    time.sleep(4 * float(LEASE))
    sent = fake.sent(chat)
    assert len(sent) == 1, [m["text"][:60] for m in sent]
    assert "1,320" in sent[0]["text"]


def test_polling_kill_after_confirming_the_update_answers_once(
        acme_dir: Path, telegram: FakeTelegram) -> None:
    bot = TelegramBot(acme_dir, telegram, RICORDA_INBOX_LEASE_S=LEASE)
    try:
        bot.start()
        telegram.hold("sendMessage")
        update_id = telegram.inject(telegram.text(41, 41, CHINA_2024))
        telegram.wait_for(lambda: telegram.holding("sendMessage"), timeout=30)
        # Telegram now considers the update delivered: the next poll confirmed it
        telegram.wait_for(lambda: [c for c in telegram.calls("getUpdates")
                                   if int(c.params.get("offset") or 0) > update_id])
        kill(bot)
        telegram.release("sendMessage")
        bot.start()
        answered_once(telegram, 41)
    finally:
        bot.stop()


def test_webhook_kill_after_the_200_answers_once(acme_dir: Path,
                                                 telegram: FakeTelegram) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/telegram"
    bot = TelegramBot(acme_dir, telegram, RICORDA_INBOX_LEASE_S=LEASE,
                      RICORDA_TELEGRAM_WEBHOOK_URL=url,
                      RICORDA_TELEGRAM_WEBHOOK_SECRET="hook-secret")
    headers = {"Content-Type": "application/json",
               "X-Telegram-Bot-Api-Secret-Token": "hook-secret"}
    try:
        bot.start(ready=lambda: telegram.webhook.get("url") == url)
        telegram.hold("sendMessage")
        update = json.dumps({"update_id": 770001, **telegram.text(42, 42, CHINA_2024)})
        assert post_when_up(url, update, headers).status_code == 200
        telegram.wait_for(lambda: telegram.holding("sendMessage"), timeout=30)
        kill(bot)
        telegram.release("sendMessage")
        before = len(telegram.calls("setWebhook"))
        bot.start(ready=lambda: len(telegram.calls("setWebhook")) > before)
        answered_once(telegram, 42)
        # Telegram retrying the same update after the restart changes nothing
        assert post_when_up(url, update, headers).status_code == 200
        time.sleep(1)
        assert len(telegram.sent(42)) == 1
    finally:
        bot.stop()


def test_slack_http_kill_after_the_ack_answers_once(acme_dir: Path) -> None:
    slack = FakeSlack().start()
    bot = SlackBot(acme_dir, slack, RICORDA_INBOX_LEASE_S=LEASE)
    try:
        bot.start()
        slack.hold("chat.postMessage")
        acked = bot.sender.mention("C0INBOX1", "U0ASKER1", CHINA_2024)
        assert acked.status_code == 200  # Slack will not deliver this event again
        slack.wait_for(lambda: slack.holding("chat.postMessage"), timeout=30)
        assert bot.proc is not None
        os.kill(bot.proc.pid, signal.SIGKILL)
        bot.proc.wait(10)
        bot.proc = None
        slack.release("chat.postMessage")
        bot.start()
        slack.wait_for(lambda: slack.posted("C0INBOX1"), timeout=30)
        time.sleep(4 * float(LEASE))
        posted = slack.posted("C0INBOX1")
        assert len(posted) == 1, [text_of(m)[:60] for m in posted]
        assert "1,320" in text_of(posted[0])
    finally:
        slack.release("chat.postMessage")
        bot.stop()
        slack.stop()


def test_a_slow_answer_is_not_taken_over_while_its_process_lives(
        tmp_path: Path, telegram: FakeTelegram) -> None:
    """The lease is renewed while the answer is on its way: a reply slower than several leases
    is still sent once. (Held under PTB's 5 s read timeout, which ends in an apology.)"""
    bot = TelegramBot(load_acme(tmp_path), telegram, RICORDA_INBOX_LEASE_S=LEASE)
    try:
        bot.start()
        telegram.hold("sendMessage")
        telegram.inject(telegram.text(43, 43, CHINA_2024))
        telegram.wait_for(lambda: telegram.holding("sendMessage"), timeout=30)
        time.sleep(3 * float(LEASE))
        assert telegram.holding("sendMessage") == 1  # no second attempt meanwhile
        telegram.release("sendMessage")
        answered_once(telegram, 43)
        assert "taking over" not in bot.output()
    finally:
        bot.stop()
