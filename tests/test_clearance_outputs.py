"""Clearance applies to every output: a question asked from a cleared chat is shown only where
the viewing chat is cleared — admin listings on Telegram and Slack (end to end, against the
fake platform servers), the CLI (a cleared viewer), the maintenance report and its log line,
proposals — and "sources of the previous answer" re-checks clearance when it is asked."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.kb.ingest import ingest_paths
from bot.serve.maintenance_schedule import NightlyMaintenance
from bot.settings.model import load_settings
from bot.wiring.build import App, build_app
from core.contracts.types import Request
from core.knowledge.clearance import RESTRICTED_PROPOSAL, RESTRICTED_QUESTION
from tests.acme import ACME, load_acme
from tests.fake_slack import FakeSlack
from tests.fake_telegram import FakeTelegram
from tests.slack_harness import ADMIN as SLACK_ADMIN
from tests.slack_harness import BotProcess as SlackBot
from tests.telegram_harness import ADMIN as TELEGRAM_ADMIN
from tests.telegram_harness import BotProcess as TelegramBot

SECRET_Q = "What was ACME Labs revenue in FY2025?"  # ACME Labs is a restricted entity
SECRET_WORDS = ("labs", "Labs")
CLEARED_TG, CLEARED_SLACK = 9001, "C0123"  # the ACME glossary's restricted_chats


def _shows_secret(text: str) -> bool:
    return any(word in text for word in SECRET_WORDS)


# -- in process: CLI, maintenance report and its log line, proposals, previous sources -------


@pytest.fixture(params=[{"aging_max_entries": 0}])  # tonight every cached plan goes
def app(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[App]:
    data = load_acme(tmp_path / "data")
    application = build_app(load_settings(
        data_dir=data, embedder="hashing", reference_date="2026-06-15",
        promotion_min_entries=1, promotion_min_uses=0, promotion_min_age_days=0,
        **request.param,
    ))
    yield application
    application.close()


def _ask(app: App, text: str, chat: str) -> str:
    request = Request(text, chat=chat, reference_date=dt.date(2026, 6, 15))
    return app.core.pipeline.answer(request).text


def test_admin_listing_hides_a_cleared_chats_question_from_uncleared_viewers(app: App) -> None:
    assert "$77M" in _ask(app, SECRET_Q, "telegram:9001")
    _ask(app, "What was ACME China revenue in FY2024?", "telegram:5")
    app.core.flush_learning()  # the store is read here, not through the admin (which flushes)
    entry = next(e for e in app.storage.fastpaths.list() if "labs" in e.canonical_text)
    assert entry.restricted
    hidden = app.core.admin.fastpaths_text(cleared=False)
    assert RESTRICTED_QUESTION in hidden and entry.id[:12] in hidden
    assert not _shows_secret(hidden) and "china" in hidden  # public questions still shown
    shown = app.core.admin.fastpaths_text(cleared=True)
    assert "[restricted] what acme labs revenue fy2025" in shown


def test_the_cli_is_a_cleared_viewer_and_marks_restricted_questions(app: App) -> None:
    _ask(app, SECRET_Q, "telegram:9001")
    env = {k: v for k, v in os.environ.items() if not k.startswith("RICORDA_")}
    env["RICORDA_DATA_DIR"] = str(app.settings.data_dir)
    out = subprocess.run(
        [sys.executable, "-m", "bot", "fastpaths", "list"],
        capture_output=True, text=True, env=env, timeout=120, check=True,
    ).stdout
    assert "[restricted] what acme labs revenue fy2025" in out


def test_maintenance_report_and_its_log_line(
    app: App, caplog: pytest.LogCaptureFixture
) -> None:
    _ask(app, SECRET_Q, "telegram:9001")
    _ask(app, "What was ACME Labs revenue in FY2024 and FY2025?", "telegram:9001")
    services = app.core.maintenance
    report = services.maintenance.run(dry_run=True)
    assert "[restricted] what acme labs revenue fy2025" in report.text(cleared=True)  # the CLI
    assert RESTRICTED_QUESTION in report.text() and not _shows_secret(report.text())

    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        if slept:
            raise asyncio.CancelledError
        slept.append(seconds)

    nightly = NightlyMaintenance(lambda: services.maintenance.run(), at=dt.time(3, 30),
                                 sleep=sleep)
    with caplog.at_level(logging.INFO, logger="ricorda"), pytest.raises(asyncio.CancelledError):
        asyncio.run(nightly.run_forever())
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "removed 2 entries" in logged and RESTRICTED_QUESTION in logged
    assert not _shows_secret(logged)
    assert app.storage.fastpaths.count() == 0


@pytest.mark.parametrize("app", [{}], indirect=True)  # the plan must survive the night
def test_a_proposal_from_cleared_chats_is_shown_only_to_cleared_viewers(app: App) -> None:
    _ask(app, "What was ACME Labs revenue in FY2024 and FY2025?", "telegram:9001")
    app.core.maintenance.maintenance.run()
    hidden = app.core.admin.proposals_text("all", cleared=False)
    assert "#1 pending " + RESTRICTED_PROPOSAL + " [query_metric > query_metric]" in hidden
    assert "structured:REVENUE" in app.core.admin.proposals_text("all", cleared=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("RICORDA_")}
    env["RICORDA_DATA_DIR"] = str(app.settings.data_dir)
    out = subprocess.run(
        [sys.executable, "-m", "bot", "proposals", "list"],
        capture_output=True, text=True, env=env, timeout=120, check=True,
    ).stdout
    assert "structured:REVENUE" in out  # the CLI is cleared


def test_previous_sources_are_withheld_once_clearance_is_revoked(
    app: App, tmp_path: Path
) -> None:
    assert "LABS Confidential, p. 1" in _ask(app, SECRET_Q, "telegram:9001")
    asked = "Show the sources of my previous answer"
    assert "[1] LABS Confidential, p. 1" in _ask(app, asked, "telegram:9001")  # still cleared
    revoked = tmp_path / "glossary.toml"
    revoked.write_text(
        (ACME / "glossary.toml").read_text(encoding="utf-8").replace('"telegram:9001", ', ""),
        encoding="utf-8",
    )
    assert not ingest_paths(app, [revoked]).problems
    assert not app.core.glossary.is_cleared("telegram:9001")
    answer = _ask(app, asked, "telegram:9001")
    assert "LABS_Confidential" not in answer and "no longer" in answer


# -- Telegram, end to end ----------------------------------------------------------------


@pytest.fixture(scope="module")
def telegram() -> Iterator[tuple[TelegramBot, FakeTelegram]]:
    fake = FakeTelegram().start()
    data = load_acme(Path(__import__("tempfile").mkdtemp(prefix="clearance-tg-")))
    bot = TelegramBot(data, fake).start()
    try:
        yield bot, fake
    finally:
        bot.stop()
        fake.stop()


def _tg_say(fake: FakeTelegram, chat: int, user: int, text: str) -> dict[str, Any]:
    before = len(fake.sent(chat))
    fake.inject(fake.text(chat, user, text))
    return fake.wait_for(lambda: fake.sent(chat)[before:])[-1]


def test_telegram_admin_listings_in_an_uncleared_group(
    telegram: tuple[TelegramBot, FakeTelegram]
) -> None:
    _, fake = telegram
    assert "$77M" in _tg_say(fake, CLEARED_TG, CLEARED_TG, SECRET_Q)["text"]
    group = -100_777
    listing = _tg_say(fake, group, TELEGRAM_ADMIN, "/fastpaths")["text"]
    assert RESTRICTED_QUESTION in listing and not _shows_secret(listing)
    private = _tg_say(fake, TELEGRAM_ADMIN, TELEGRAM_ADMIN, "/fastpaths")["text"]
    assert RESTRICTED_QUESTION in private  # the admin's own chat is not cleared either
    for command in ("/stats", "/autopaths", "/proposals all"):
        assert not _shows_secret(_tg_say(fake, group, TELEGRAM_ADMIN, command)["text"])
    cleared = _tg_say(fake, CLEARED_TG, TELEGRAM_ADMIN, "/fastpaths")["text"]
    assert "[restricted] what acme labs revenue fy2025" in cleared


# -- Slack, end to end ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def slack() -> Iterator[tuple[SlackBot, FakeSlack]]:
    fake = FakeSlack().start()
    data = load_acme(Path(__import__("tempfile").mkdtemp(prefix="clearance-slack-")))
    bot = SlackBot(data, fake).start()
    try:
        yield bot, fake
    finally:
        bot.stop()
        fake.stop()


def _slack_command(bot: SlackBot, fake: FakeSlack, channel: str, text: str) -> str:
    before = len(fake.ephemeral(SLACK_ADMIN))
    assert bot.sender.command(channel, SLACK_ADMIN, text).status_code == 200
    note = fake.wait_for(lambda: fake.ephemeral(SLACK_ADMIN)[before:])[0]
    blocks = note.get("blocks") or []
    return "\n".join([note.get("text") or ""] + [
        b["text"]["text"] for b in blocks if b.get("type") == "section"
    ])


def test_slack_admin_listings_in_an_uncleared_channel(slack: tuple[SlackBot, FakeSlack]) -> None:
    bot, fake = slack
    before = len(fake.posted(CLEARED_SLACK))
    bot.sender.mention(CLEARED_SLACK, "U0000042", SECRET_Q)
    fake.wait_for(lambda: fake.posted(CLEARED_SLACK)[before:])
    listing = _slack_command(bot, fake, "C0000777", "fastpaths")
    assert RESTRICTED_QUESTION in listing and not _shows_secret(listing)
    for command in ("stats", "autopaths", "proposals all"):
        assert not _shows_secret(_slack_command(bot, fake, "C0000777", command))
    cleared = _slack_command(bot, fake, CLEARED_SLACK, "fastpaths")
    assert "[restricted] what acme labs revenue fy2025" in cleared
