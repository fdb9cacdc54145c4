"""A scripted, recording LLM for tests of the code that calls one (rerank, synthesis)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.contracts.errors import ModelError
from core.contracts.ports import ChatMessage


@dataclass
class SpyLLM:
    """Returns `reply` (or raises `error`) and remembers every call it received."""

    reply: str | Callable[[Sequence[ChatMessage]], str] = ""
    error: Exception | None = None
    name: str = "spy"
    calls: list[dict[str, Any]] = field(default_factory=list)

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        json_schema: dict[str, Any] | None = None,
        timeout: float | None = None,
    ) -> str:
        self.calls.append(
            {"messages": list(messages), "json_schema": json_schema, "timeout": timeout}
        )
        if self.error is not None:
            raise self.error
        return self.reply(messages) if callable(self.reply) else self.reply

    @property
    def prompt_text(self) -> str:
        """Everything any call put in front of the model."""
        return "\n".join(m.content for call in self.calls for m in call["messages"])


def failing(message: str = "model down") -> SpyLLM:
    return SpyLLM(error=ModelError(message))
