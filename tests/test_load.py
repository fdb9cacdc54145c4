"""Load, scaled down for CI: 50 concurrent Telegram chats x 20 questions on SQLite.

The full run (200 chats, 20,000 questions, Telegram and Slack) is bench/bench_load.py; this
one checks the same promises in well under a minute: no question lost, none answered twice,
no reaction lost, and SQLite (WAL, busy timeout) never reports "database is locked".
"""

from __future__ import annotations

from pathlib import Path

from tests.load_driver import run_load
from tests.slack_load_driver import run_slack_load


def test_fifty_chats_twenty_questions_each_nothing_lost(tmp_path: Path) -> None:
    report = run_load(tmp_path, chats=50, rounds=20, timeout=50)
    print(report.text())
    assert report.questions == 1000
    assert report.lost == [] and report.duplicated == []
    assert report.answered == 1000
    assert report.reactions == 50 and report.feedback_recorded == 50
    assert report.locked_lines == [] and report.errors == []
    assert report.elapsed_s < 45


def test_slack_twenty_channels_ten_questions_each_nothing_lost(tmp_path: Path) -> None:
    report = run_slack_load(tmp_path, chats=20, rounds=10, timeout=40)
    print(report.text())
    assert report.questions == 200 and report.answered == 200
    assert report.lost == [] and report.duplicated == []
    assert report.reactions == 20 and report.feedback_recorded == 20
    assert report.locked_lines == [] and report.errors == []
