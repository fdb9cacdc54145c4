"""`ricorda ask --chat ID` run again continues the conversation: two processes, one database
(SQLite in the data dir, or PostgreSQL as replicas share it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.acme import ACME
from tests.test_cli import REF, ricorda


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def kb(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, dict[str, str]]:
    env = {}
    if request.param == "postgres":
        env["RICORDA_DATABASE_URL"] = request.getfixturevalue("postgres_schema_url")
    data = tmp_path / "data"
    ricorda(data, "ingest", str(ACME / "glossary.toml"), str(ACME / "facts.csv"), env=env)
    return data, env


def ask(kb: tuple[Path, dict[str, str]], question: str, *extra: str) -> dict[str, Any]:
    data, env = kb
    out = ricorda(data, "ask", question, "--json", "--reference-date", REF, *extra, env=env)
    return json.loads(out.stdout)


def carried(answer: dict[str, Any]) -> list[str]:
    return [line["text"] for line in answer["lines"] if line["kind"] == "carried"]


def test_a_second_ask_with_the_same_chat_continues_the_conversation(
    kb: tuple[Path, dict[str, str]],
) -> None:
    first = ask(kb, "What was ACME China revenue in FY2024?", "--chat", "telegram:42")
    assert first["facts"][0]["value"] == 1320
    follow = ask(kb, "and Hong Kong?", "--chat", "telegram:42")
    assert [f["entity"] for f in follow["facts"]] == ["ACME_HK"]
    assert follow["facts"][0]["value"] == 410 and follow["facts"][0]["period"] == "2024"
    assert carried(follow) == ["Carried over from your previous question: revenue, FY2024."]
    # another chat, or no --chat at all (a standalone ask), has nothing to continue
    other = ask(kb, "and Hong Kong?", "--chat", "telegram:43")
    assert not carried(other) and other["route"] == "clarify"
    ask(kb, "What was ACME China revenue in FY2024?")
    alone = ask(kb, "and Hong Kong?")
    assert not carried(alone) and alone["route"] == "clarify"


def test_a_follow_up_of_a_table_in_another_process_is_that_table_again(
    kb: tuple[Path, dict[str, str]],
) -> None:
    """The table a conversation was answered with is stored with its context: "and FY2024?"
    after a breakdown by entity, asked by another process, is that breakdown for FY2024."""
    first = ask(kb, "Revenue by entity in FY2025", "--chat", "telegram:44")
    # the group total is withheld in this uncleared chat (a not_found fact, issue 33)
    shown = {f["entity"] for f in first["facts"] if f["status"] == "found"}
    assert first["tables"] and shown >= {"ACME_CN", "ACME_HK"}
    follow = ask(kb, "and FY2024?", "--chat", "telegram:44")
    assert follow["tables"], follow["text"]
    found = [f for f in follow["facts"] if f["status"] == "found"]
    assert {(f["entity"], f["value"]) for f in found} >= {("ACME_CN", 1320), ("ACME_HK", 410)}
    assert {f["period"] for f in found} == {"2024"}
