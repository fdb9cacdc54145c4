"""The narrative channel's reuse of an identical synthesis on a replayed plan."""

from __future__ import annotations

from core.contracts.ports import Chunk, ScoredChunk
from core.documents.narrative_channel import DocumentNarrative
from core.knowledge.glossary import load_glossary
from core.knowledge.names import NameIndex
from tests.acme import ACME
from tests.llm_fakes import SpyLLM


def snippets(text: str = "China revenue fell because of the new regulation.") -> list[ScoredChunk]:
    return [ScoredChunk(Chunk("c1", "china.md", "section=Summary", text), 1.0)]


def channel(llm: SpyLLM) -> DocumentNarrative:
    return DocumentNarrative(
        names=NameIndex(load_glossary(ACME / "glossary.toml")),
        build_retriever=lambda: None,
        llm=lambda: llm,
    )


def test_replay_reuses_an_identical_synthesis_and_nothing_else() -> None:
    llm = SpyLLM(reply="Revenue fell because of the regulation [1].")
    narrative = channel(llm)
    kwargs = {"language": "en", "cleared": False, "rerank": False}
    first = narrative.compose("Why did China fall?", snippets=snippets(), **kwargs)
    assert first.mode == "synthesised" and "[1]" in first.passages[0].text and len(llm.calls) == 1
    again = narrative.compose("Why did China fall?", snippets=snippets(), reuse=True, **kwargs)
    assert again == first and len(llm.calls) == 1  # same question, same snippets: reused
    narrative.compose("Why did China fall?", snippets=snippets(), **kwargs)
    assert len(llm.calls) == 2  # the planner path always asks the model
    changed = snippets("China revenue fell because a distributor was replaced.")
    narrative.compose("Why did China fall?", snippets=changed, reuse=True, **kwargs)
    assert len(llm.calls) == 3  # a changed document is a new synthesis, never a stale one


def test_a_failed_synthesis_is_not_reused() -> None:
    from tests.llm_fakes import failing

    llm = failing("timeout")
    narrative = channel(llm)
    kwargs = {"language": "en", "cleared": False, "rerank": False}
    narrative.compose("Why?", snippets=snippets(), **kwargs)
    narrative.compose("Why?", snippets=snippets(), reuse=True, **kwargs)
    assert len(llm.calls) == 2
