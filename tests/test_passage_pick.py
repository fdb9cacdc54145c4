"""Which passages an extractive answer quotes and how each is cut (core.documents.passage_pick): the
heading apart, whole sentences (Chinese too), nothing about another entity, the question's
language on near-ties, nothing below the relevance floor, no duplicates, a stable order."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.contracts.ports import Chunk, ScoredChunk
from core.documents.chunking import Section, chunk_document, split_paragraphs
from core.documents.passage_pick import LANGUAGE_TOLERANCE, cut_passage, is_about, pick_passages
from core.knowledge.glossary import load_glossary
from core.knowledge.names import NameIndex

DEMO = Path(__file__).resolve().parents[1] / "bot" / "demo"
NAMES = NameIndex(load_glossary(DEMO / "glossary.toml"))

ITALY_SUMMARY = (
    "Sintesi\nNell'esercizio 2025 Orbis Italia ha registrato ricavi per 352,6 milioni di euro, "
    "in crescita del 10,6% rispetto ai 318,9 milioni del 2024. È il miglior risultato di sempre "
    "per l'Italia e ha compensato in parte il calo della Cina."
)
CHINA_RULES = (
    "1. The new e-commerce promotion rules\nOn 1 April 2025 the national rules on online "
    "promotional pricing came into force. Orbis China had relied on live-stream flash sales "
    "for roughly a third of its online orders."
)


def scored(
    cid: str,
    text: str,
    *,
    doc: str = "doc.md",
    locator: str = "para=1",
    score: float = 0.5,
    similarity: float | None = None,
) -> ScoredChunk:
    return ScoredChunk(Chunk(cid, doc, locator, text), score, similarity)


def pick(snippets: list[ScoredChunk], **kwargs: object) -> list[str]:
    options: dict = {"language": "en"} | kwargs  # type: ignore[type-arg]
    return [p.snippet.chunk.id for p in pick_passages(snippets, **options)]


# --- the heading is context, not quote ----------------------------------------------------


def test_a_section_heading_becomes_the_heading_not_the_first_words_of_the_quote() -> None:
    passage = cut_passage(
        scored("a", ITALY_SUMMARY, doc="italia_crescita_2025.md", locator="section=Sintesi")
    )
    assert passage.heading == "Sintesi"
    assert passage.text.startswith("Nell'esercizio 2025 Orbis Italia")
    assert "Sintesi" not in passage.text
    assert passage.language == "it"


def test_a_markdown_heading_line_in_plain_text_is_taken_apart() -> None:
    passage = cut_passage(scored("a", "## Outlook\nManagement expects China to stabilise."))
    assert (passage.heading, passage.text) == ("Outlook", "Management expects China to stabilise.")


def test_a_plain_text_title_line_is_not_glued_into_the_quote() -> None:
    """The chunker keeps a title's line break (it used to make "Overview Orbis Hong Kong
    grew..."), so the quote starts at the sentence and the title is the heading."""
    text = (DEMO / "docs" / "hong_kong_update_2025.txt").read_text(encoding="utf-8")
    sections = [Section(f"para={n}", p) for n, p in enumerate(split_paragraphs(text), 1)]
    chunks = chunk_document("hong_kong_update_2025.txt", sections)
    passages = [cut_passage(ScoredChunk(c, 0.5)) for c in chunks]
    overview = next(p for p in passages if "grew revenue by 4.3%" in p.text)
    assert overview.heading == "Overview"
    assert overview.text.startswith("Orbis Hong Kong grew revenue by 4.3%")
    titles = ("Overview", "Visitors from the mainland", "Online and cross-border", "Next steps")
    assert not any(p.text.startswith(titles) for p in passages)
    # a title inside a packed chunk ends the quote: it never runs into the next section
    assert not any(t in p.text for p in passages for t in titles[1:])


def test_a_wrapped_line_is_not_mistaken_for_a_title() -> None:
    wrapped = "Revenue in China fell by twelve percent in\nthe year because of weaker demand."
    assert split_paragraphs(wrapped) == [" ".join(wrapped.split())]
    question = "How do I register?\nSend the form."  # ends with a question mark: a sentence
    assert split_paragraphs(question) == ["How do I register? Send the form."]


# --- sentence boundaries ------------------------------------------------------------------


def test_a_continuation_chunk_drops_the_carried_fragment_and_ends_on_a_sentence() -> None:
    """A section's later chunk starts with the previous chunk's tail, mid-sentence."""
    text = (
        "second and third quarters. Orbis China had relied on live-stream flash sales for "
        "roughly a third of its online orders. " + "Online orders fell again in May. " * 12
    )
    passage = cut_passage(scored("a", text, locator="section=1. The new rules"))
    assert passage.text.startswith("Orbis China had relied")
    assert passage.text.endswith(".") and len(passage.text) <= 300
    assert passage.heading == "1. The new rules"


def test_a_fragment_starting_in_lower_case_is_dropped_in_plain_text_too() -> None:
    passage = cut_passage(scored("a", "ended the year lower. Revenue fell 14.7%. It recovered"))
    assert passage.text == "Revenue fell 14.7%."  # no unfinished last sentence either


def test_decimal_points_and_abbreviated_figures_do_not_end_a_sentence() -> None:
    passage = cut_passage(scored("a", "Revenue was EUR 1,008.4 million. Net income fell."))
    assert passage.text == "Revenue was EUR 1,008.4 million. Net income fell."


def test_chinese_passages_start_and_end_on_chinese_sentence_marks() -> None:
    long_body = "线上营收由2.466亿欧元降至1.817亿欧元，降幅26.3%。" * 12
    text = f"由5.604亿欧元下降14.7%。{long_body}毛利率由40.1%降至"
    passage = cut_passage(scored("a", text, locator="section=概览"))
    assert passage.text.startswith("线上营收") and passage.text.endswith("。")
    assert len(passage.text) <= 300 and passage.heading == "概览"
    wrapped = cut_passage(scored("b", "概览\n中国区营收下降，主要来自线上 渠道。门店较稳！"))
    # the chunker made a line wrap a space: between Chinese characters it is removed
    assert wrapped.text == "中国区营收下降，主要来自线上渠道。门店较稳！"
    assert (wrapped.heading, wrapped.language) == ("概览", "zh")


def test_text_without_any_sentence_mark_is_still_quoted_without_its_title() -> None:
    table = "Revenue | 478.2 | 560.4; Gross margin | 35.6 | 40.1"
    assert cut_passage(scored("a", table)).text == table
    titled = cut_passage(scored("b", f"Key figures\n{table}"))
    assert (titled.heading, titled.text) == ("Key figures", table)


# --- entities -----------------------------------------------------------------------------


def test_a_passage_about_another_entity_is_dropped() -> None:
    """The Italy summary names China once ("il calo della Cina") but is about Italy."""
    italy = scored("it", ITALY_SUMMARY, doc="italia_crescita_2025.md", locator="section=Sintesi")
    china = scored("cn", CHINA_RULES, doc="china_revenue_2025.md", score=0.4)
    assert pick([italy, china], entities=["ORBIS_CN"], names=NAMES) == ["cn"]
    assert pick([italy, china], entities=["ORBIS_IT"], names=NAMES) == ["it"]
    assert pick([italy, china]) == ["it", "cn"]  # no entity asked: retrieval order


def test_a_passage_naming_no_entity_is_kept_after_those_about_the_asked_one() -> None:
    neutral = scored("n", "Group revenue was 3.4% lower than in 2024.", doc="ceo_letter.md")
    china = scored("cn", "China revenue fell 14.7%.", doc="ceo_letter.md", score=0.3)
    assert pick([neutral, china], entities=["ORBIS_CN"], names=NAMES) == ["cn", "n"]


def test_the_document_name_tells_what_a_section_is_about() -> None:
    section = scored(
        "a",
        "Online orders fell from 2.84 million to 2.22 million.",
        doc="orbis/guerra_prezzi_cina.md",
        locator="section=Le conseguenze",
    )
    passage = cut_passage(section)
    assert is_about(passage, ["ORBIS_CN"], NAMES) is True
    assert is_about(passage, ["ORBIS_IT"], NAMES) is False


def test_sub_entities_count_for_the_group_and_the_specific_entity_wins_over_its_parent() -> None:
    china = cut_passage(scored("a", "China revenue fell 14.7%."))
    assert is_about(china, ["ORBIS_GROUP"], NAMES) is True
    # "Why did Orbis end its distributor agreement in China?" names the group and China
    italy = cut_passage(scored("b", "Italy had its best year ever."))
    assert is_about(italy, ["ORBIS_GROUP", "ORBIS_CN"], NAMES) is False
    group = cut_passage(scored("c", "Orbis Group revenue fell."))
    assert is_about(group, ["ORBIS_CN"], NAMES) is None  # a parent counts as neither


# --- language -----------------------------------------------------------------------------


def test_a_passage_in_the_question_language_goes_first_when_equally_relevant() -> None:
    english = scored("en", "China revenue fell because of new promotion rules.", score=1.0)
    close = 1.0 - LANGUAGE_TOLERANCE / 2
    italian = scored("it", "I ricavi della Cina sono calati per le nuove regole.", score=close)
    assert pick([english, italian], language="it") == ["it", "en"]
    assert pick([english, italian], language="en") == ["en", "it"]


def test_a_clearly_better_passage_in_another_language_still_wins() -> None:
    english = scored("en", "China revenue fell because of new promotion rules.", score=1.0)
    italian = scored("it", "I ricavi della Cina sono calati per le nuove regole.", score=0.8)
    assert pick([english, italian], language="it") == ["en", "it"]


# --- relevance floor ----------------------------------------------------------------------


def test_a_passage_below_the_relevance_floor_is_left_out_not_padded_in() -> None:
    good = scored("a", "China revenue fell.", similarity=0.40)
    weak = scored("b", "Suppliers register in ten days.", similarity=0.05, score=0.4)
    lexical = scored("c", "Stores held up better.", similarity=None, score=0.3)
    assert pick([good, weak, lexical], floor=0.17) == ["a", "c"]
    assert pick([good, weak, lexical]) == ["a", "b", "c"]  # no floor: as retrieved
    assert pick([weak], floor=0.17) == []  # nothing worth quoting: nothing quoted


# --- duplicates and order -----------------------------------------------------------------


def test_duplicates_and_quotes_inside_another_are_shown_once() -> None:
    first = scored("a", "Revenue fell. Margins fell too.", score=0.9)
    same = scored("b", "Revenue fell.  Margins fell too.", doc="other.md", score=0.8)
    inside = scored("c", "Margins fell too.", score=0.7)
    other = scored("d", "Stores held up.", score=0.6)
    assert pick([first, same, inside, other, first]) == ["a", "d"]


def test_the_retrieval_order_is_kept_and_the_limit_holds() -> None:
    """Equal scores come from the retriever ordered by chunk id; a reranked order is kept."""
    snippets = [scored(cid, f"Passage {cid} says something.", score=0.5) for cid in "abcd"]
    assert pick(snippets) == ["a", "b", "c"] == pick(snippets)
    assert pick(list(reversed(snippets))) == ["d", "c", "b"]
    assert pick(snippets, limit=1) == ["a"]


@pytest.mark.parametrize("language", ["en", "it", "zh"])
def test_nothing_retrieved_gives_nothing(language: str) -> None:
    assert pick_passages([], language=language, entities=["ORBIS_CN"], names=NAMES) == []
