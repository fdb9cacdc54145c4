"""The quick `ricorda ask` entry: same answers as the typer CLI, without loading it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner

from bot.cli.commands import app
from bot.entry import QuickAsk, _parser, parse_quick_ask
from tests.acme import ACME
from tests.test_cli import REF, ricorda

NOT_LOADED = ("typer", "click", "numpy", "chromadb", "torch", "llama_cpp", "jieba", "rich",
              "alembic", "mako", "matplotlib")  # charts are for chats: ask prints the table


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    ricorda(data, "ingest", str(ACME / "glossary.toml"), str(ACME / "facts.csv"))
    return data


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["ask", "q"], QuickAsk("q", None, False, None, None)),
        (["ask", "q", "--json"], QuickAsk("q", None, True, None, None)),
        (["ask", "--json", "q"], QuickAsk("q", None, True, None, None)),
        (
            ["--data-dir", "/d", "ask", "q", "--chat", "telegram:1", "--reference-date", REF],
            QuickAsk("q", "/d", False, "telegram:1", REF),
        ),
        (["--data-dir=/d", "ask", "--chat=x", "q"], QuickAsk("q", "/d", False, "x", None)),
        (["ask", "--", "--json"], QuickAsk("--json", None, False, None, None)),
    ],
)
def test_plain_ask_lines_take_the_quick_entry(argv: list[str], expected: QuickAsk) -> None:
    assert parse_quick_ask(argv) == expected


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--help"],
        ["ask", "--help"],
        ["ask", "-h"],
        ["ask"],  # missing question: typer says so
        ["ask", "q", "--jsn"],  # typo: typer names the unknown option
        ["ask", "q", "extra"],
        ["ask", "--chat"],
        ["--json", "ask", "q"],  # an ask option before the command is not valid
        ["--data", "/d", "ask", "q"],  # no abbreviations: click has none either
        ["ingest", "ask"],
        ["fastpaths", "list"],
    ],
)
def test_anything_else_goes_to_typer(argv: list[str]) -> None:
    assert parse_quick_ask(argv) is None


def test_quick_parser_knows_exactly_the_options_of_the_typer_command() -> None:
    """If an option is added to `ask` in bot.cli.commands, the quick parser must learn it too."""
    command = typer.main.get_command(app)
    ask = command.commands["ask"]  # type: ignore[attr-defined]
    typer_opts = {
        opt: param.default for param in ask.params for opt in param.opts if opt.startswith("--")
    }
    sub = _parser()._subparsers._group_actions[0].choices["ask"]  # type: ignore[union-attr]
    quick_opts = {
        opt: (False if action.const is True else action.default)
        for action in sub._actions
        for opt in action.option_strings
    }
    assert quick_opts == typer_opts
    top_opts = {o for p in command.params for o in p.opts if o.startswith("--")}
    assert top_opts == {o for a in _parser()._actions for o in a.option_strings}


def test_quick_entry_and_typer_give_the_same_answer(kb: Path) -> None:
    question = "What was ACME China revenue in FY2024?"
    quick = json.loads(ricorda(kb, "ask", question, "--json", "--reference-date", REF).stdout)
    env = {"RICORDA_DATA_DIR": str(kb)}
    result = CliRunner().invoke(app, ["ask", question, "--json", "--reference-date", REF], env=env)
    assert result.exit_code == 0, result.output
    slow = json.loads(result.stdout)
    for answer in (quick, slow):
        answer.pop("turn_id"), answer.pop("latency_ms"), answer.pop("served_by")
    assert quick == slow and quick["facts"][0]["value"] == 1320


def test_errors_match_too(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    quick = ricorda(empty, "ask", "What was revenue?", check=False)
    result = CliRunner().invoke(
        app, ["ask", "What was revenue?"], env={"RICORDA_DATA_DIR": str(empty)}
    )
    assert quick.returncode == result.exit_code == 1
    assert quick.stderr.startswith("error: ") and quick.stderr == result.stderr


def test_typer_still_explains_a_bad_ask_line(tmp_path: Path) -> None:
    proc = ricorda(tmp_path / "d", "ask", "q", "--jsn", check=False)
    assert proc.returncode == 2 and "--jsn" in proc.stderr


def test_a_one_shot_question_loads_no_cli_framework_and_no_heavy_stack(kb: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RICORDA_")}
    env["RICORDA_DATA_DIR"] = str(kb)
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "bot", "ask", "What was ACME revenue in 2024?"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0 and "ACME" in proc.stdout
    loaded = {ln.rsplit("|", 1)[-1].strip() for ln in proc.stderr.splitlines() if "|" in ln}
    assert "sqlalchemy" in loaded  # the probe does see imports
    assert [m for m in NOT_LOADED if m in loaded] == []


@pytest.mark.parametrize("unbuffered", ["", "1"])
def test_a_reader_that_went_away_gets_no_traceback(kb: Path, unbuffered: str) -> None:
    """`ricorda ask ... | head -0`: the reader closed the pipe before the answer was printed."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RICORDA_", "PYTHONUNBUF"))}
    env["RICORDA_DATA_DIR"] = str(kb)
    if unbuffered:
        env["PYTHONUNBUFFERED"] = unbuffered
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot", "ask", "What was ACME China revenue in FY2024?"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) != 0  # the answer could not be delivered
    assert "Traceback" not in err and "BrokenPipe" not in err


def test_data_dir_flag_beats_the_environment_on_the_quick_entry(kb: Path, tmp_path: Path) -> None:
    proc = ricorda(
        tmp_path / "elsewhere",  # RICORDA_DATA_DIR: an empty data dir
        "--data-dir",
        str(kb),
        "ask",
        "What was ACME China revenue in FY2024?",
        "--reference-date",
        REF,
    )
    assert "1,320" in proc.stdout
