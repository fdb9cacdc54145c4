"""The `ricorda` command end to end, through a subprocess on a temporary data dir."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.acme import ACME

REF = "2026-06-15"


def ricorda(
    data_dir: Path,
    *args: str,
    stdin: str | None = None,
    check: bool = True,
    env: dict[str, str] | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """`ricorda ARGS` in a subprocess on `data_dir`, with no RICORDA_* setting but `env`'s."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RICORDA_")} | (env or {})
    env["RICORDA_DATA_DIR"] = str(data_dir)
    proc = subprocess.run(
        [sys.executable, "-m", "bot", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        cwd=_existing_parent(data_dir),
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}\nstdout:{proc.stdout}\nstderr:{proc.stderr}")
    return proc


def _existing_parent(path: Path) -> Path:
    while not path.exists():
        path = path.parent
    return path


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    ricorda(data, "ingest", str(ACME / "glossary.toml"), str(ACME / "facts.csv"))
    return data


def ask_json(data: Path, question: str, *extra: str) -> dict:  # type: ignore[type-arg]
    out = ricorda(data, "ask", question, "--json", "--reference-date", REF, *extra).stdout
    return json.loads(out)


def test_ask_json_contract(kb: Path) -> None:
    answer = ask_json(kb, "What was ACME China revenue in FY2024?")
    # every field of the first release is still there; the answer's parts were added beside
    assert set(answer) == {
        "turn_id",
        "route",
        "served_by",
        "text",
        "facts",
        "sources",
        "assumptions",
        "options",
        "latency_ms",
        "language",
        "notices",
        "lines",
        "passages",
        "citations",
        "tables",
    }
    assert answer["lines"] == [{"kind": "fact", "text": answer["text"]}]
    assert answer["language"] == "en"
    assert answer["passages"] == answer["citations"] == answer["tables"] == []
    assert answer["route"] == "structured" and answer["served_by"] == "planner"
    assert answer["facts"] == [
        {
            "status": "found",
            "value": 1320,
            "value_exact": "1320",
            "unit": "USD_M",
            "metric_code": "REVENUE",
            "entity": "ACME_CN",
            "period_type": "FY",
            "period": "2024",
            "channel": "TOTAL",
            "source": {"doc": "ACME_FY2024_Review.pptx", "locator": "slide=2,table=1"},
        }
    ]
    assert answer["sources"] == [{"doc": "ACME_FY2024_Review.pptx", "locator": "slide=2,table=1"}]
    assert isinstance(answer["latency_ms"], float)


def test_assumptions_and_options_in_json(kb: Path) -> None:
    answer = ask_json(kb, "What was revenue?")
    assert answer["assumptions"][1] == {
        "slot": "period",
        "value": "FY2025",
        "reason": "last complete fiscal year",
    }
    assert {"label": "ACME China", "slot": "entity", "value": "ACME_CN"} in answer["options"]


def test_clarify_and_refused_routes(kb: Path) -> None:
    assert ask_json(kb, "How much did we make?")["route"] == "clarify"
    assert ask_json(kb, "Vortex Corp revenue 2024")["route"] == "refused"


def test_restricted_needs_a_cleared_chat(kb: Path) -> None:
    assert ask_json(kb, "ACME Labs revenue FY2025")["route"] == "refused"
    cleared = ask_json(kb, "ACME Labs revenue FY2025", "--chat", "telegram:9001")
    assert cleared["facts"][0]["value"] == 77


def test_plain_text_answer_shows_number_source_and_footer(kb: Path) -> None:
    out = ricorda(
        kb, "ask", "Qual è il fatturato della Cina nel 2024?", "--reference-date", REF
    ).stdout
    assert "1.320 Mln $" in out and "(fonte: ACME FY2024 Review, slide 2, tabella 1)" in out
    assert "planner" in out and "ms" in out


def test_turns_are_persisted(kb: Path) -> None:
    import sqlite3

    answer = ask_json(kb, "ACME HK revenue FY2025")
    with sqlite3.connect(kb / "ricorda.db") as db:
        row = db.execute(
            "select question, route from turns where id = ?", (answer["turn_id"],)
        ).fetchone()
    assert row == ("ACME HK revenue FY2025", "structured")


def test_ingest_reports_bad_rows_with_line_numbers_and_loads_the_rest(tmp_path: Path) -> None:
    bad = tmp_path / "facts.csv"
    lines = (ACME / "facts.csv").read_text(encoding="utf-8").splitlines()
    lines.insert(2, "REVENUE,NOPE,FY,2024,TOTAL,1,USD_M,x.pdf,page=1")
    lines.insert(3, "REVENUE,ACME_CN,FY,2019,TOTAL,abc,USD_M,x.pdf,page=1")
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    data = tmp_path / "data"
    proc = ricorda(data, "ingest", str(ACME / "glossary.toml"), str(bad), check=False)
    assert proc.returncode == 1
    assert "line 3" in proc.stderr and "NOPE" in proc.stderr
    assert "line 4" in proc.stderr
    assert "15 new" in proc.stdout
    again = ricorda(data, "ingest", str(bad), check=False)
    assert "0 new" in again.stdout and "15 unchanged" in again.stdout


def test_malformed_glossary_names_file_line_and_key(tmp_path: Path) -> None:
    broken = tmp_path / "glossary.toml"
    text = (ACME / "glossary.toml").read_text(encoding="utf-8")
    broken.write_text(text.replace('unit = "FTE"', "unit = 7"), encoding="utf-8")
    proc = ricorda(tmp_path / "d", "ingest", str(broken), check=False)
    assert proc.returncode == 1
    assert "glossary.toml" in proc.stderr and "metrics.HEADCOUNT.unit" in proc.stderr
    assert "line " in proc.stderr
    assert "Traceback" not in proc.stderr


def test_ask_before_ingest_says_what_to_do(tmp_path: Path) -> None:
    proc = ricorda(tmp_path / "new" / "dir", "ask", "revenue?", check=False)
    assert proc.returncode == 1
    assert "ricorda ingest" in proc.stderr and "Traceback" not in proc.stderr
    assert (tmp_path / "new" / "dir").is_dir()  # unknown data dir is created


def test_chat_picks_an_option_by_number(kb: Path) -> None:
    out = ricorda(kb, "chat", "--reference-date", REF, stdin="What was revenue?\n1\n/quit\n").stdout
    first, second = out.split("you> ")[1:3]
    assert "[1] ACME China" in first
    assert "$1,188M" in second  # the same question re-run for ACME China, FY2025


def test_data_dirs_never_mix(tmp_path: Path, kb: Path) -> None:
    other = tmp_path / "other"
    proc = ricorda(other, "ask", "ACME China revenue FY2024", check=False)
    assert proc.returncode == 1 and "no knowledge base" in proc.stderr


@pytest.mark.parametrize("command", [[], ["ingest"], ["ask"], ["chat"], ["demo"]])
def test_help_for_each_command(tmp_path: Path, command: list[str]) -> None:
    out = ricorda(tmp_path / "d", *command, "--help").stdout
    assert "Usage" in out


def test_demo_loads_the_bundled_knowledge_base(tmp_path: Path) -> None:
    data = tmp_path / "demo"
    out = ricorda(data, "demo", "--no-chat").stdout
    assert "demo knowledge base loaded" in out
    answer = json.loads(
        ricorda(data, "ask", "What was Orbis China revenue in FY2024?", "--json").stdout
    )
    assert answer["facts"][0]["status"] == "found"
    assert answer["facts"][0]["entity"] == "ORBIS_CN"


def test_repeat_is_served_from_the_cache_and_feedback_down_forgets_it(kb: Path) -> None:
    first = ask_json(kb, "What was ACME China revenue in FY2024?")
    second = ask_json(kb, "what was ACME China revenue in FY2024")
    assert (first["served_by"], second["served_by"]) == ("planner", "L0a")
    assert second["facts"] == first["facts"]
    listed = ricorda(kb, "fastpaths", "list").stdout
    assert "acme china revenue fy2024" in listed and "uses=1" in listed
    out = ricorda(kb, "feedback", second["turn_id"], "down").stdout
    assert "worked out afresh until an answer to it is confirmed" in out
    assert ask_json(kb, "What was ACME China revenue in FY2024?")["served_by"] == "planner"
    stats = ricorda(kb, "fastpaths", "stats").stdout
    assert "L0a" in stats and "planner" in stats


def test_feedback_on_unknown_turn_and_bad_verdict(kb: Path) -> None:
    proc = ricorda(kb, "feedback", "nope", "up", check=False)
    assert proc.returncode == 1 and "no answer with id nope" in proc.stderr
    proc = ricorda(kb, "feedback", "nope", "sideways", check=False)
    assert proc.returncode == 2 and "up or down" in proc.stderr


def test_purge_by_question_id_and_all(kb: Path) -> None:
    ask_json(kb, "ACME HK revenue FY2025")
    ask_json(kb, "ACME China revenue FY2025")
    out = ricorda(kb, "fastpaths", "purge", "acme hk revenue fy2025").stdout
    assert "purged the fast path" in out
    assert ask_json(kb, "ACME HK revenue FY2025")["served_by"] == "planner"
    assert "purged 2 fast paths" in ricorda(kb, "fastpaths", "purge", "all").stdout
    assert "no fast paths yet" in ricorda(kb, "fastpaths", "list").stdout


def test_cli_feedback_up_makes_an_autopath(kb: Path) -> None:
    answer = ask_json(kb, "What was ACME HK revenue in FY2025?")
    assert "positive feedback recorded" in ricorda(kb, "feedback", answer["turn_id"], "up").stdout
    listing = ricorda(kb, "fastpaths", "autopaths").stdout
    assert "active" in listing and "ok=1" in listing
