"""The pipeline's guarantee to a chat (issue 39): a plan the chat's last answer registered is
stored before that chat's next question is answered, so a paraphrase sent right after the
model's answer is served by L0b from the stored plan, never planned by the model again.

The race the Telegram test lost at load 4-6 is made certain here instead of likely: the test
holds the learning writer's lock from the first answer on, so the writer cannot store the plan
before the paraphrase is asked. The same chat's paraphrase must then wait for the writer (it
lets go of the lock while it waits); another chat's question never waits for it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.kb.ingest import ingest_paths
from bot.settings.model import load_settings
from bot.wiring.build import build_app
from core.contracts.types import Request
from tests.acme import ACME
from tests.fake_planner_llm import FakePlannerLLM
from tests.test_model_planner_chat import PARAPHRASE, TILLS
from tests.test_model_planner_cli import HK_2024


def writer_of(app: Any) -> Any:
    """The plan cache's learning writer (the pipeline's cache, or the cascade before it)."""
    if hasattr(type(app.core), "pipeline"):
        return app.core.pipeline.cache.learning
    return app.core.cascade.learning


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Any, FakePlannerLLM]]:
    """A serving process's core (background learning writer) with the model planner on."""
    with FakePlannerLLM(HK_2024) as model:
        app = build_app(load_settings(
            data_dir=tmp_path, embedder="use", reference_date="2026-06-15", llm="openai",
            llm_base_url=model.url, model_planner=True, model_planner_timeout_s=30))
        try:
            ingest_paths(app, [ACME / "glossary.toml", ACME / "facts.csv"])
            assert writer_of(app).__class__.__name__ == "BackgroundLearning"
            yield app, model
        finally:
            app.close()


def test_the_same_chats_paraphrase_waits_for_the_plan_its_last_answer_registered(
    served: tuple[Any, FakePlannerLLM],
) -> None:
    app, model = served
    writer = writer_of(app)
    with writer._cond:  # the writer stores nothing unless someone waits for it
        first = app.core.answering.answer(Request(TILLS, chat="telegram:301"))
        assert first.served_by == "model" and model.requests == 1
        again = app.core.answering.answer(Request(PARAPHRASE, chat="telegram:301"))
    assert again.served_by == "L0b", again.text
    assert "410" in again.text and model.requests == 1  # no second model call


def test_another_chat_never_waits_for_the_writer(
    served: tuple[Any, FakePlannerLLM],
) -> None:
    app, model = served
    writer = writer_of(app)
    with writer._cond:
        first = app.core.answering.answer(Request(TILLS, chat="telegram:301"))
        assert first.served_by == "model"
        # not stored yet, and not waited for (waiting would have let the writer store it and
        # L0b serve it): this chat's paraphrase is planned by the model on its own
        other = app.core.answering.answer(Request(PARAPHRASE, chat="telegram:302"))
    assert other.served_by == "model" and model.requests == 2
