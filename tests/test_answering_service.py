"""The knowledge-base check before an answer, in core (core.pipeline.answering_service): the
glossary and the facts follow what the database holds, with fakes for the ports. The same
promise across processes is tested in tests/test_kb_freshness.py."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from core.contracts.types import Request
from core.knowledge.current_glossary import CurrentGlossary
from core.knowledge.freshness import FACTS, GLOSSARY
from core.pipeline.answering_service import AnsweringService
from core.pipeline.pipeline import Pipeline
from core.planning.answering import Answerer
from tests.acme import ACME


@dataclass
class Stored:
    text: str
    source_path: str = "glossary.toml"


class Texts:
    def __init__(self, text: str) -> None:
        self.stored = Stored(text)

    def load(self) -> Stored:
        return self.stored


class Versions:
    def __init__(self) -> None:
        self.now: dict[str, int] = {}

    def read(self) -> Mapping[str, int]:
        return dict(self.now)


class Facts:
    def __init__(self) -> None:
        self.catch_ups = 0

    def catch_up(self) -> None:
        self.catch_ups += 1


class FakePipeline:
    """Records the answerer each answer was given."""

    def __init__(self, answerer: object) -> None:
        self.answerer, self.used = answerer, []

    def answer(self, request: Request) -> Any:
        self.used.append(self.answerer)
        return self.answerer


def service(text: str) -> tuple[AnsweringService, Texts, Versions, Facts, FakePipeline]:
    texts, versions, facts = Texts(text), Versions(), Facts()
    glossary = CurrentGlossary(texts)
    built = iter(range(1, 100))

    def answerer() -> Answerer:  # a new "answerer" per glossary, named by its order
        return cast("Answerer", (next(built), glossary.get()))

    cascade = FakePipeline(answerer())
    answering = AnsweringService(
        cast("Pipeline", cascade), glossary=glossary, answerer_for_glossary=answerer,
        facts=facts, versions=versions, baseline=versions.read(),
    )
    return answering, texts, versions, facts, cascade


GLOSSARY_TEXT = (ACME / "glossary.toml").read_text(encoding="utf-8")


def test_an_answer_after_a_glossary_change_uses_the_new_glossary() -> None:
    answering, texts, versions, facts, cascade = service(GLOSSARY_TEXT)
    before = answering.answer(Request("q"))
    texts.stored = Stored(GLOSSARY_TEXT + "\n# changed\n")
    versions.now[GLOSSARY] = 1
    after = answering.answer(Request("q"))
    assert before[0] == 1 and after[0] == 2 and after[1] is not before[1]
    assert cascade.answerer is after  # the cascade keeps its identity, with the new answerer
    assert facts.catch_ups == 0  # the facts did not move: not reloaded


def test_moved_facts_catch_up_before_the_answer() -> None:
    answering, _, versions, facts, _ = service(GLOSSARY_TEXT)
    versions.now[FACTS] = 3
    answering.answer(Request("q"))
    answering.answer(Request("q"))
    assert facts.catch_ups == 1


def test_a_stored_glossary_that_does_not_load_keeps_the_one_in_use() -> None:
    answering, texts, versions, _, _ = service(GLOSSARY_TEXT)
    before = answering.answer(Request("q"))
    texts.stored = Stored("this is [not toml")
    versions.now[GLOSSARY] = 1
    assert answering.answer(Request("q")) is before


def test_without_versions_nothing_is_checked() -> None:
    texts, facts = Texts(GLOSSARY_TEXT), Facts()
    glossary = CurrentGlossary(texts)
    answering = AnsweringService(
        cast("Pipeline", FakePipeline(None)), glossary=glossary,
        answerer_for_glossary=lambda: cast("Answerer", None), facts=facts, versions=None,
    )
    answering.ensure_fresh(force=True)
    assert answering.freshness is None and answering.documents_seen() is None
