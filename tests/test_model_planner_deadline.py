"""The model planner's deadline is total whatever the provider does (issue 39): a provider that
ignores the timeout it is given (a reply without an end, a local model that does not stop) is
given up at the planner's deadline, and the rules answer. In process: the provider is a stub
behind core's `LLM` Protocol, since the point is a provider that breaks its promise; the real
providers are tested against loopback servers in tests/test_model_planner_bounds.py."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Sequence
from typing import Any

import pytest

from core.contracts.ports import ChatMessage
from core.planning.model_planner import ModelPlanner, within

R26 = dt.date(2026, 6, 15)
QUESTION = "how much did the tills ring up in Hong Kong in FY2024?"


class DeafProvider:
    """Never answers, whatever timeout it is handed, until `release` is set."""

    name = "deaf"

    def __init__(self) -> None:
        self.release = threading.Event()
        self.asked = threading.Event()
        self.timeouts: list[float | None] = []

    def complete(self, messages: Sequence[ChatMessage], *, max_tokens: int = 512,
                 temperature: float = 0.0, json_schema: dict[str, Any] | None = None,
                 timeout: float | None = None) -> str:
        self.timeouts.append(timeout)
        self.asked.set()
        self.release.wait(60)
        return "{}"


def test_a_provider_that_ignores_its_timeout_is_given_up_at_the_deadline(
    acme_glossary: Any,
) -> None:
    deaf = DeafProvider()
    planner = ModelPlanner(lambda: deaf, acme_glossary, timeout=0.2)
    try:
        result = planner.read(QUESTION, cleared=False, reference=R26)
        assert deaf.asked.is_set() and not deaf.release.is_set()  # it never answered
        assert result.reading is None and result.failure is not None
        assert result.failure.kind == "timeout", result.failure
        assert deaf.timeouts == [0.2]  # the provider was told the deadline too
    finally:
        deaf.release.set()


def test_within_hands_back_the_value_or_the_error() -> None:
    assert within(30, lambda: 42) == 42
    with pytest.raises(ZeroDivisionError):
        within(30, lambda: 1 / 0)
