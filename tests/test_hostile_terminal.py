"""Documents written by anyone reach the operator's terminal and every sources block: escape
sequences (ANSI colours and screen clears, OSC window titles and clipboard writes, one-byte C1
CSI) are shown as text, never obeyed, and a file name with a newline cannot add a forged line
to the sources."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from adapters.console import ConsoleChat, render_answer, terminal_safe
from bot.kb.ingest import ingest_paths
from bot.settings.model import load_settings
from bot.wiring.build import App, build_app
from core.catalog.presentation import present
from core.contracts.types import Answer, Request, Route, Source
from core.documents.source_titles import source_title

DEMO = Path(__file__).resolve().parents[1] / "bot" / "demo"
ESCAPES = "\x1b]0;pwned\x07\x1b[2J\x1b[31m\x9b1m\x1b]52;c;cm0gLXJmIH4=\x07\u202e"
FORGED = "notes (para=1)\n[2] Orbis_Board_Minutes_restricted.pdf (page=1).md"
KEY = f"orbis/{FORGED}"  # the document key: its declared source, then its path
# no heading: the title is made from the (forged) file name, the path under test here
DOC = f"""Customers loved the loyalty app{ESCAPES} and the faster delivery promise.
"""
QUESTION = "Why did customers love the loyalty app?"
RAW_CONTROLS = ("\x1b", "\x07", "\x9b", "\u202e")


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("terminal")
    docs = root / "docs"
    docs.mkdir()
    (docs / FORGED).write_text(DOC, encoding="utf-8")
    shutil.copy(DEMO / "glossary.toml", root)  # its [[documents]] folders are relative to it
    app = build_app(load_settings(data_dir=root / "data", embedder="hashing"))
    try:
        summary = ingest_paths(app, [root / "glossary.toml", DEMO / "facts.csv", docs])
        assert not summary.problems
    finally:
        app.close()
    return root / "data"


@pytest.fixture
def app(data_dir: Path) -> Iterator[App]:
    app = build_app(load_settings(data_dir=data_dir, embedder="hashing"))
    yield app
    app.close()


def _ask(data_dir: Path, *args: str) -> str:
    return _ricorda(data_dir, "ask", QUESTION, *args)


def _ricorda(data_dir: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RICORDA_")}
    env["RICORDA_DATA_DIR"] = str(data_dir)
    proc = subprocess.run(
        [sys.executable, "-m", "bot", *args],
        capture_output=True, text=True, encoding="utf-8", env=env, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _sources_block(text: str) -> list[str]:
    head = text.index("Sources:")
    return [line for line in text[head:].splitlines()[1:] if line.startswith("[")]


def test_ricorda_ask_prints_escape_sequences_as_text(data_dir: Path) -> None:
    out = _ask(data_dir)
    assert "loyalty app" in out  # the document was quoted
    assert not any(c in out for c in RAW_CONTROLS), ascii(out)
    assert "\\x1b]0;pwned" in out  # shown, so the operator sees what the file holds


def test_a_file_name_with_a_newline_adds_no_line_to_the_sources(data_dir: Path) -> None:
    out = _ask(data_dir)
    sources = _sources_block(out)
    assert len(sources) == 1, out
    assert sources[0].startswith("[1] Notes (para=1)\\n[2] Orbis Board Minutes")
    assert not any(line.startswith("[2]") for line in out.splitlines())


def test_ricorda_ask_json_escapes_every_control(data_dir: Path) -> None:
    out = _ask(data_dir, "--json")
    assert not any(c in out for c in RAW_CONTROLS), ascii(out)
    answer = json.loads(out)  # still the exact text, for tools
    assert ESCAPES[:5] in answer["text"]
    assert answer["sources"][0]["doc"] == KEY


def test_admin_listings_escape_stored_questions(data_dir: Path) -> None:
    """A question from a chat is stored as it came (bidi override included) and listed later
    on the operator's terminal: the listing shows the escape, not the reordered text."""
    _ricorda(data_dir, "ask", "Orbis China revenue FY2024 \u202e4202YF", "--json")
    listed = _ricorda(data_dir, "fastpaths", "list")
    assert "orbis china revenue fy2024" in listed.casefold()
    assert "\u202e" not in listed and "\\u202e" in listed


def test_console_chat_escapes_what_it_prints(app: App) -> None:
    out = io.StringIO()
    chat = ConsoleChat(app.core.pipeline, stdin=io.StringIO(QUESTION + "\n"), stdout=out)
    chat.run()
    printed = out.getvalue()
    assert "loyalty app" in printed
    assert not any(c in printed for c in RAW_CONTROLS), ascii(printed)
    assert len(_sources_block(printed)) == 1


def test_every_sources_block_shows_one_line_per_source(app: App) -> None:
    """The chat platforms share core.catalog.presentation: the forged line is not there either."""
    ans = app.core.pipeline.answer(Request(QUESTION, chat="telegram:1"))
    shown = present(ans)
    assert len(shown.sources) == 1 and "\n" not in shown.sources[0]
    assert shown.sources[0].startswith("[1] Notes (para=1)\\n[2]")


def test_source_line_and_terminal_safe_units() -> None:
    line = source_title(Source("a.md\n[2] b.pdf", "page=1\r"), "en")
    assert line == "A.md\\n[2] b, p. 1"
    assert terminal_safe("ok\tline\n\x1b[31mred\x9b") == "ok\tline\n\\x1b[31mred\\x9b"
    ans = Answer(turn_id="t", route=Route.NARRATIVE, served_by="planner", text="x\x1b[2J")
    assert "\x1b" not in render_answer(ans)
