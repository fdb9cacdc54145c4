"""The core services are built in one order, written once in the builder (bot.wiring.build):
the light parts at start, the answer path as one unit on the first question, the heavy parts
(models, documents, the vector store) only on use. What a process reads first no longer decides
what is built when; a one-shot `ricorda ask` builds no embedder, no chat model, no vector store.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.kb.ingest import ingest_paths
from bot.settings.model import load_settings
from bot.wiring.build import (
    ANSWER_PATH,
    ANSWER_PATH_ONE_SHOT,
    AT_START,
    AT_START_ONE_SHOT,
    HEAVY,
    App,
    build_app,
)
from core.contracts.types import Request

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "bot" / "demo"
QUESTION = "What was Orbis China revenue in FY2024?"


def _ingested(data: Path) -> None:
    app = build_app(load_settings(data_dir=data, embedder="hashing"))
    try:
        summary = ingest_paths(app, [DEMO / "glossary.toml", DEMO / "facts.csv"])
        assert not summary.problems, summary.problems
    finally:
        app.close()


@pytest.fixture
def serving_app(tmp_path: Path):  # type: ignore[no-untyped-def]
    _ingested(tmp_path / "data")
    apps: list[App] = []

    def make() -> App:
        apps.append(build_app(load_settings(data_dir=tmp_path / "data", embedder="hashing")))
        return apps[-1]

    yield make
    for app in apps:
        app.close()


# a one-shot ask in its own interpreter: what it built, and whether the heavy libraries loaded
ONE_SHOT = """
import json, sys
from bot.settings.model import load_settings
from bot.wiring.build import build_app
from core.contracts.types import Request
app = build_app(load_settings(), one_shot=True)
at_start = list(app.core.built)
answer = app.core.pipeline.answer(Request(sys.argv[1], chat="t", user="u"))
print(json.dumps({
    "at_start": at_start, "built": app.core.built, "text": answer.text,
    "loaded": sorted(m for m in ("bot.models.embedders", "bot.models.llm_providers",
                                 "bot.wiring.document_services", "chromadb", "torch")
                     if m in sys.modules),
}))
app.close()
"""


def test_a_one_shot_ask_builds_its_answer_path_and_nothing_heavy(tmp_path: Path) -> None:
    data = tmp_path / "data"
    _ingested(data)
    env = {k: v for k, v in os.environ.items() if not k.startswith("RICORDA_")}
    env["RICORDA_DATA_DIR"] = str(data)
    proc = subprocess.run([sys.executable, "-c", ONE_SHOT, QUESTION], capture_output=True,
                          text=True, env=env, cwd=REPO, timeout=300)
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    assert "560.4" in seen["text"]  # it did answer, from the fact table
    assert seen["at_start"] == list(AT_START_ONE_SHOT)
    assert seen["built"] == [*AT_START_ONE_SHOT, *ANSWER_PATH_ONE_SHOT]
    assert seen["loaded"] == []  # no embedder, no chat model, no vector store


def test_a_serving_process_builds_in_the_written_order_whatever_it_reads_first(
    serving_app,  # type: ignore[no-untyped-def]
) -> None:
    by_feedback, by_answering, by_cascade = serving_app(), serving_app(), serving_app()
    for app in (by_feedback, by_answering, by_cascade):
        assert app.core.built == list(AT_START)  # the light parts, at start, in order
    by_feedback.core.feedback  # noqa: B018 (what a verdict reaches first)
    by_answering.core.answering  # noqa: B018 (what a chat question reaches first)
    by_cascade.core.pipeline  # noqa: B018
    for app in (by_feedback, by_answering, by_cascade):
        assert app.core.built == [*AT_START, *ANSWER_PATH]
        assert not set(HEAVY) & set(app.core.built)
    answer = by_answering.core.answering.answer(Request(QUESTION, chat="t", user="u"))
    assert "560.4" in answer.text
    # a serving answer looks for a similar cached plan: the embedder comes now, after the rest
    assert by_answering.core.built[: len(AT_START) + len(ANSWER_PATH)] == [*AT_START, *ANSWER_PATH]


def test_the_heavy_parts_are_built_on_use_after_the_rest(serving_app) -> None:  # type: ignore[no-untyped-def]
    app = serving_app()
    app.core.documents  # noqa: B018
    assert app.core.built == [*AT_START, "documents"]
    app.core.feedback  # noqa: B018
    assert app.core.built == [*AT_START, "documents", *ANSWER_PATH]


def test_the_architecture_page_states_the_build_order() -> None:
    page = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    for order in (AT_START, ANSWER_PATH, HEAVY):
        assert " → ".join(f"`{part}`" for part in order) in page, order
