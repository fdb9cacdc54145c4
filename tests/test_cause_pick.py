"""core.documents.cause_pick and its use by the narrative answer: the sentence that states the
cause is found anywhere in a cited document, quoted first, and put first in a model's prompt;
a question that asks for no cause keeps the retrieved passages."""

from __future__ import annotations

from core.contracts.ports import Chunk, ScoredChunk
from core.documents.cause_pick import asks_why, cause_passages, states_cause
from core.documents.chunking import Section, chunk_document
from core.documents.narrative import answer_narrative
from tests.llm_fakes import SpyLLM

SUMMARY = ("Lumen Milano revenue fell in fiscal 2025, to EUR 41.2 million from EUR 48.0 "
           "million. Lumen Milano remains the largest unit of the group.")
CAUSE = ("Output was lower because the Brescia coating line was shut for seven weeks after a "
         "fire in July 2024.")
FILLER = "Headcount was stable through the year and training hours rose again. " * 4


def _document() -> list[Chunk]:
    sections = [Section("section=Summary", f"Summary\n\n{SUMMARY}"),
                Section("section=People", f"People\n\n{FILLER}"),
                Section("section=Production", f"Production\n\n{FILLER}\n\n{CAUSE}")]
    return chunk_document("lumen/milano.md", sections)


def test_questions_that_ask_for_a_cause() -> None:
    for question in ("Why did revenue fall?", "Perché il fatturato è calato?",
                     "Come mai i ricavi sono scesi?", "营收为什么下降？",
                     "What drove the decline?"):
        assert asks_why(question), question
    for question in ("Tell me about Milano", "Qual è il fatturato?", "介绍一下米兰"):
        assert not asks_why(question), question


def test_causal_cues_in_three_languages() -> None:
    for sentence in (CAUSE, "La flessione è dovuta alla perdita del contratto.",
                     "Le spedizioni sono calate a causa dello sciopero.",
                     "营收增长主要是由于新合同。", "销量受港口罢工影响下降。"):
        assert states_cause(sentence), sentence
    assert not states_cause(SUMMARY)


def test_the_cause_further_down_is_quoted_from_its_sentence() -> None:
    picked = cause_passages("Why did Lumen Milano revenue fall?", _document())
    assert picked and picked[0].text.startswith("Output was lower because the Brescia")
    assert picked[0].heading == "Production"


def test_extractive_answer_quotes_the_cause_first_only_for_a_why_question() -> None:
    chunks = _document()
    retrieved = [ScoredChunk(chunks[0], 1.0)]  # retrieval found only the summary

    def whole(docs: object) -> list[Chunk]:
        return chunks

    why = answer_narrative("Why did revenue fall?", "en", retrieved, None, whole_documents=whole)
    assert why.passages[0].text.startswith("Output was lower because")
    assert why.passages[1].text.startswith("Lumen Milano revenue fell")
    plain = answer_narrative("Why did revenue fall?", "en", retrieved, None)
    assert [p.text[:11] for p in plain.passages] == ["Lumen Milan"]


def test_a_model_is_given_the_cause_first_and_its_citation_stays_valid() -> None:
    chunks = _document()
    retrieved = [ScoredChunk(chunks[0], 1.0)]
    llm = SpyLLM(reply="A fire shut the Brescia line [1]. Revenue fell [2].")
    result = answer_narrative("Why did revenue fall?", "en", retrieved, llm,
                              whole_documents=lambda docs: chunks)
    prompt = llm.prompt_text
    assert prompt.index("Brescia") < prompt.index("remains the largest unit")
    assert result.mode == "synthesised"
    assert [s.locator for s in result.sources] == ["section=Production", "section=Summary"]
