"""Deferred collaborators: built once on first use, never by an answer that does not use them."""

from __future__ import annotations

import threading

import pytest

from core.contracts.deferred import Deferred, deferred
from core.contracts.types import FactStatus, Request
from core.knowledge.glossary import Glossary
from core.pipeline.pipeline import Pipeline
from core.planning.answering import Answerer
from core.question.conversation import STANDALONE
from tests.acme import REF, MemoryFacts, MemoryTurns, read_acme_facts


def test_the_value_is_built_on_the_first_get_and_kept() -> None:
    builds: list[object] = []

    def build() -> object:
        builds.append(object())
        return builds[-1]

    made = Deferred(build)
    assert not made.built and builds == []
    first = made.get()
    assert made.get() is first and builds == [first] and made.built


def test_two_threads_asking_at_once_build_it_once() -> None:
    entered, release = threading.Event(), threading.Event()
    builds = []

    def build() -> list[int]:
        builds.append(1)
        entered.set()
        assert release.wait(10)
        return builds

    made: Deferred[list[int]] = Deferred(build)
    got: list[object] = []
    first = threading.Thread(target=lambda: got.append(made.get()))
    first.start()
    assert entered.wait(10)  # the first thread is inside the build
    second = threading.Thread(target=lambda: got.append(made.get()))
    second.start()
    release.set()
    first.join(10)
    second.join(10)
    assert builds == [1] and got == [builds, builds]


def test_a_build_that_fails_is_tried_again_on_the_next_get() -> None:
    attempts = []

    def build() -> str:
        attempts.append(1)
        if len(attempts) == 1:
            raise ConnectionError("vector store down")
        return "connected"

    made = Deferred(build)
    with pytest.raises(ConnectionError):
        made.get()
    assert not made.built
    assert made.get() == "connected" and len(attempts) == 2


def test_deferred_keeps_none_and_deferreds_and_wraps_a_built_object() -> None:
    assert deferred(None) is None
    made = Deferred(lambda: 1)
    assert deferred(made) is made
    ready = deferred([1])
    assert ready is not None and ready.built and ready.get() == [1]


def _never(what: str) -> Deferred[object]:
    def build() -> object:
        raise AssertionError(f"a structured answer built the {what}")

    return Deferred(build)


def test_a_structured_answer_builds_neither_the_narrative_nor_the_conversation_store(
    acme_glossary: Glossary,
) -> None:
    narrative, conversations = _never("narrative channel"), _never("conversation store")
    answerer = Answerer(
        glossary=acme_glossary,
        facts=MemoryFacts(read_acme_facts()),
        turns=MemoryTurns(),
        today=lambda: REF,
        narrative=narrative,  # type: ignore[arg-type]
        conversations=conversations,  # type: ignore[arg-type]
    )
    ans = Pipeline(answerer).answer(Request(text="What was ACME China revenue in FY2024?",
                                  reference_date=REF, conversation=STANDALONE))
    assert ans.facts[0].status is FactStatus.FOUND
    assert not narrative.built and not conversations.built
