"""Issue 39: a slow chat model holds no other chat, whichever step asks it.

The model planner lets go of core's lock while it thinks (tests/test_model_planner_bounds.py);
so do a "why" answer's rerank and synthesis, which ask the same model. Under `ricorda serve`
with the Telegram adapter against the fake Bot API and a scripted OpenAI-compatible server on
127.0.0.1 that holds its reply: while one chat's "why" question waits for the model, another
chat's number question is answered; then the first gets its cited answer.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.kb.ingest import ingest_paths
from bot.settings.model import load_settings
from bot.wiring.build import build_app
from tests.fake_planner_llm import FakePlannerLLM
from tests.fake_telegram import FakeTelegram
from tests.telegram_harness import BotProcess as TelegramBot

DEMO = Path(__file__).resolve().parents[1] / "bot" / "demo"
WHY = "What drove the decline of the online channel?"
NUMBER = "What was Orbis China revenue in FY2024?"


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[FakeTelegram, FakePlannerLLM]]:
    """The demo knowledge base (facts and documents) served with a chat model configured."""
    data = tmp_path_factory.mktemp("demo-slow-llm")
    app = build_app(load_settings(data_dir=data, embedder="hashing"))
    try:
        ingest_paths(app, [DEMO / "glossary.toml", DEMO / "facts.csv", DEMO / "docs"])
    finally:
        app.close()
    with FakePlannerLLM("A fine answer.") as model:
        fake = FakeTelegram().start()
        process = TelegramBot(data, fake, RICORDA_LLM="openai", RICORDA_LLM_BASE_URL=model.url,
                              RICORDA_LLM_TIMEOUT_S="120").start()
        try:
            yield fake, model
        finally:
            process.stop()
            fake.stop()


def test_another_chat_is_answered_while_a_why_answer_waits_for_the_model(
    bot: tuple[FakeTelegram, FakePlannerLLM],
) -> None:
    fake, model = bot
    waiting, other = 601, 602
    model.hold()
    fake.inject(fake.text(waiting, waiting, WHY))
    assert model.received.wait(60)  # the model is reading the passages for the first chat
    fake.inject(fake.text(other, other, NUMBER))
    answered = fake.wait_for(lambda: fake.sent(other), timeout=60)[0]["text"]
    assert "560.4" in answered, answered
    assert fake.sent(waiting) == []  # the first chat still waits for its model
    model.release()
    why = fake.wait_for(lambda: fake.sent(waiting), timeout=60)[0]["text"]
    assert "[1]" in why, why  # cited, from the documents
