"""Why-answers quote the cause, not the document's opening summary (issue 40, point 6).

Two companies that are not the demo (tests.why_companies), documents in .md, .docx, .pdf and
.pptx, in English, Italian and Chinese; each gives the reason for a change in a LATER paragraph
than its summary. Through the CLI: `ricorda ingest`, then `ricorda ask --json`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_cli import ricorda
from tests.why_companies import HARBOR_WHY, LUMEN_WHY, write_harbor, write_lumen


def _loaded(root: Path, kb: Path) -> Path:
    data = root / "data"
    ricorda(data, "ingest", str(kb / "glossary.toml"), str(kb / "facts.csv"), str(kb / "docs"))
    return data


@pytest.fixture(scope="module")
def lumen(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("lumen")
    return _loaded(root, write_lumen(root / "kb", levels=False))


@pytest.fixture(scope="module")
def harbor(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("harbor")
    return _loaded(root, write_harbor(root / "kb"))


def _first_quote(text: str) -> str:
    return text.split("“", 1)[1].split("”", 1)[0]


def ask(data: Path, question: str) -> dict:  # type: ignore[type-arg]
    return json.loads(ricorda(data, "ask", question, "--json").stdout)


@pytest.mark.parametrize(("question", "reason"), [
    *LUMEN_WHY,
    ("Lumen Bari营收2025财年受什么影响？", "porto di Taranto"),  # zh, an Italian .pptx
    ("What was the impact on Lumen Milano revenue in FY2025?", "Brescia coating line"),
])
def test_lumen_why_quotes_the_reason(lumen: Path, question: str, reason: str) -> None:
    answer = ask(lumen, question)
    text = answer["text"]
    assert reason in _first_quote(text), text  # the cause first, before the summary
    assert any(s["doc"].startswith("lumen/") for s in answer["sources"])  # and cited


@pytest.mark.parametrize(("question", "reason"), HARBOR_WHY)
def test_harbor_why_quotes_the_reason(harbor: Path, question: str, reason: str) -> None:
    text = ask(harbor, question)["text"]
    assert reason in _first_quote(text), text


def test_a_question_that_asks_no_cause_quotes_as_before(lumen: Path) -> None:
    """"Tell me about Lumen Milano" asks for no cause: the summary leads, as retrieval ranks it."""
    text = ask(lumen, "Tell me about the Lumen Milano review")["text"]
    assert "Lumen Milano revenue fell in fiscal 2025" in text
    assert "Brescia" not in text.split("Lumen Milano revenue fell")[0]
