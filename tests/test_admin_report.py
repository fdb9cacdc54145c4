"""`ricorda report`, the `report` admin command and `ricorda glossary add-name` (issue 35
point 4): questions by outcome, ✗ with the reason given, the words the glossary lacks with the
command that adds one, slowest answers, per chat; every row only where its clearance allows."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import shutil
from pathlib import Path

import pytest

from bot.settings.model import load_settings
from bot.wiring.build import build_app
from bot.wiring.chat import chat_services
from core.chat.chat_ports import ChatServices
from core.chat.turn_report import ReportTurn, build_report, report_text
from core.contracts.ports import TurnRecord
from storage.feedback_reasons import SqlFeedbackReasons
from tests.test_cli import ricorda
from tests.test_mattermost_adapter import demo_data

ENV = {"RICORDA_EMBEDDER": "hashing"}
CLEARED = "telegram:9001"  # restricted_chats of the demo glossary
LABS = "Revenue of Orbis Labs in 2024"  # a restricted unit, asked from the cleared chat
NOTE = "the Labs board pack says otherwise"


def ask(data: Path, question: str, *extra: str) -> dict:
    return json.loads(ricorda(data, "ask", question, "--json", *extra, env=ENV).stdout)


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo, a restricted question from the cleared chat rejected with a reason and a
    note, and a question with a word the glossary lacks from an uncleared one."""
    data = demo_data(tmp_path_factory.mktemp("report"), CLEARED)
    labs = ask(data, LABS, "--chat", CLEARED)
    assert "12.4" in labs["text"]
    ask(data, "How many tills in Italy in 2024?")
    ask(data, "Revenue of Orbis Italy in FY2024")
    app = build_app(load_settings(data_dir=data, embedder="hashing"))
    try:
        app.core.feedback.record(labs["turn_id"], "telegram:77", "negative", via="reaction")
        reasons = SqlFeedbackReasons(app.storage.engine)
        window = dt.timedelta(minutes=10)
        assert reasons.claim(labs["turn_id"], CLEARED, "telegram:77", window=window)
        assert reasons.choose(labs["turn_id"], "telegram:77", "figure")
        assert reasons.add_note(labs["turn_id"], "telegram:77", NOTE)
    finally:
        app.close()
    return data


def test_the_cli_report_shows_every_outcome_and_the_restricted_rows(data: Path) -> None:
    text = ricorda(data, "report", env=ENV).stdout
    assert "3 question(s) since" in text
    assert f"[restricted] {LABS}" in text and NOTE in text
    assert "'tills' appeared 1 time(s)" in text
    assert 'ricorda glossary add-name METRIC "tills"' in text
    report = json.loads(ricorda(data, "report", "--json", "--since", "1d", env=ENV).stdout)
    assert report["questions"] == 3
    assert report["outcomes"]["rejected"] == 1 and report["outcomes"]["clarified"] == 1
    assert [r["reason"] for r in report["rejected"]] == ["figure"]
    assert set(report["per_chat"]) == {"console:local", CLEARED}
    rows = ricorda(data, "report", "--csv", env=ENV).stdout.splitlines()
    assert rows[0].startswith("section,key,count,turn,chat,question")
    assert any(r.startswith("rejected,") and NOTE in r for r in rows)
    bad = ricorda(data, "report", "--since", "yesterday", check=False, env=ENV)
    assert bad.returncode == 2 and "not a period" in bad.stderr


def test_the_admin_command_shows_restricted_rows_only_in_a_cleared_chat(data: Path) -> None:
    app = build_app(load_settings(data_dir=data, embedder="hashing"))
    services = chat_services(app, "123:token", ChatServices)
    try:
        def shown(chat: str) -> str:
            return asyncio.run(services.admin_reply("report", "7d", user="telegram:1",
                                                    is_admin=True, chat=chat))

        cleared, elsewhere = shown(CLEARED), shown("telegram:5")
        refused = asyncio.run(services.admin_reply("report", "", user="telegram:2",
                                                   is_admin=False, chat=CLEARED))
    finally:
        services.close()
        app.close()
    assert LABS in cleared and NOTE in cleared
    assert "Orbis Labs" not in elsewhere and NOTE not in elsewhere, elsewhere
    assert "(restricted question)" in elsewhere and "(restricted note)" in elsewhere
    assert "3 question(s)" in elsewhere and "tills" in elsewhere  # counts and open words stay
    assert LABS not in refused and "3 question(s)" not in refused


def _turn(turn_id: str, question: str, *, route: str = "clarify", restricted: bool = False,
          options: bool = True, parent: str | None = None,
          fixed: dict[str, str] | None = None) -> ReportTurn:
    record = TurnRecord(
        id=turn_id, chat="slack:C1", user="slack:U1", question=question, language="en",
        route=route, served_by="planner", plan={}, answer_text="",
        options=[{"label": "Revenue", "slot": "metric", "value": "REVENUE"}] if options else [],
        fixed_slots=fixed or {}, latency_ms=5.0, parent_turn=parent, restricted=restricted,
        answer={"facts": [{"status": "found"}]} if route == "structured" else {})
    return ReportTurn(record, dt.datetime(2026, 12, 1, tzinfo=dt.UTC))


def test_an_unknown_word_suggests_the_metric_people_chose_after_it() -> None:
    turns = [
        _turn("a", "tills in Italy"), _turn("b", "tills in China"),
        _turn("c", "Revenue in Italy", route="structured", parent="a",
              fixed={"metric": "REVENUE"}),
        _turn("d", "widgets of Labs", restricted=True),
    ]

    def subject(question: str, day: dt.date, language: str) -> str:
        return question.split()[0]

    cleared = report_text(build_report(turns, cleared=True, since=None, subject=subject))
    assert ("'tills' appeared 2 time(s) in questions about REVENUE: add it to "
            "metrics.REVENUE.names? ricorda glossary add-name REVENUE tills") in cleared
    assert "'widgets' appeared 1 time(s)" in cleared
    elsewhere = report_text(build_report(turns, cleared=False, since=None, subject=subject))
    assert "widgets" not in elsewhere and "'tills' appeared 2" in elsewhere


def test_add_name_keeps_the_file_and_the_next_ingest_reads_the_name(tmp_path: Path) -> None:
    data = demo_data(tmp_path, CLEARED)
    glossary = tmp_path / "demo" / "glossary.toml"
    before = glossary.read_text()
    question = "How many tills in Italy in 2024?"
    assert "318.9" not in ask(data, question)["text"]
    done = ricorda(data, "glossary", "add-name", "REVENUE", "tills", env=ENV)
    assert "added 'tills' to metrics.REVENUE.names" in done.stdout
    after = glossary.read_text()
    old, new = before.splitlines(), after.splitlines()
    assert len(old) == len(new)  # comments, order and layout kept: one line changed
    changed = [(a, b) for a, b in zip(old, new, strict=True) if a != b]
    assert len(changed) == 1 and changed[0][1] == changed[0][0] + ' "tills",', changed
    again = ricorda(data, "glossary", "add-name", "REVENUE", "Tills", env=ENV)
    assert "already a name of REVENUE" in again.stdout and glossary.read_text() == after
    clash = ricorda(data, "glossary", "add-name", "EBITDA", "sales", check=False, env=ENV)
    assert clash.returncode == 2 and "already names the metric REVENUE" in clash.stderr
    unknown = ricorda(data, "glossary", "add-name", "NOPE", "x", check=False, env=ENV)
    assert unknown.returncode == 2 and "no metric 'NOPE'" in unknown.stderr
    assert glossary.read_text() == after
    assert "318.9" not in ask(data, question)["text"]  # not read until the next ingest
    ricorda(data, "ingest", str(glossary), env=ENV)
    assert "318.9" in ask(data, question)["text"]


def test_add_name_on_a_copy_given_with_file(tmp_path: Path) -> None:
    from tests.test_mattermost_adapter import DEMO

    glossary = tmp_path / "g.toml"
    shutil.copy(DEMO / "glossary.toml", glossary)
    done = ricorda(tmp_path / "data", "glossary", "add-name", "HEADCOUNT", "heads",
                   "--file", str(glossary), env=ENV)
    assert "metrics.HEADCOUNT.names" in done.stdout
    assert '"heads"' in glossary.read_text()


def test_turns_export_hides_restricted_text_unless_asked(data: Path, tmp_path: Path) -> None:
    rows = json.loads(ricorda(data, "turns", "export", "--json", env=ENV).stdout)
    assert len(rows) == 3
    labs = next(r for r in rows if r["chat"] == CLEARED)
    assert labs["question"] == "(restricted question)" and labs["answer"] == ""
    assert labs["note"] == "(restricted note)" and labs["reason"] == "figure"
    assert labs["rejections"] == 1 and labs["restricted"] is True
    assert not any("Orbis Labs" in json.dumps(r) or "12.4" in json.dumps(r) for r in rows)
    full = json.loads(ricorda(data, "turns", "export", "--json", "--include-restricted",
                              env=ENV).stdout)
    labs = next(r for r in full if r["chat"] == CLEARED)
    assert labs["question"] == LABS and "12.4" in labs["answer"] and labs["note"] == NOTE
    out = tmp_path / "turns.csv"
    ricorda(data, "turns", "export", "--out", str(out), env=ENV)
    assert out.stat().st_mode & 0o777 == 0o600
    lines = out.read_text().splitlines()
    assert lines[0].startswith("turn,created_at,chat,user") and len(lines) >= 4
    again = ricorda(data, "turns", "export", "--out", str(out), check=False, env=ENV)
    assert again.returncode == 2 and "exists" in again.stderr
