"""Chunking: packing to ~500 characters, overlap, sentence splits, locators and stable ids."""

from __future__ import annotations

import itertools

import pytest

from core.documents.chunking import OVERLAP_CHARS, TARGET_CHARS, Section, chunk_document, chunk_id

SENTENCE = "Revenue in China fell because footfall in tier-one cities was weaker than planned. "


def paragraphs(n: int, sentences_each: int = 2) -> str:
    return "\n\n".join(f"P{i}. " + SENTENCE * sentences_each for i in range(n))


def test_short_paragraphs_are_packed_up_to_the_target() -> None:
    chunks = chunk_document("a.md", [Section("section=China", paragraphs(12))])
    assert len(chunks) > 1
    assert all(len(c.text) <= TARGET_CHARS + OVERLAP_CHARS + 1 for c in chunks)
    # packing: every chunk but the last holds more than one paragraph's worth
    assert all(len(c.text) > TARGET_CHARS // 2 for c in chunks[:-1])
    assert all(c.locator == "section=China" for c in chunks)


def test_consecutive_chunks_overlap_by_about_80_characters() -> None:
    chunks = chunk_document("a.md", [Section("section=China", paragraphs(12))])
    for before, after in itertools.pairwise(chunks):
        shared = _longest_suffix_prefix(before.text, after.text)
        assert OVERLAP_CHARS // 2 <= shared <= OVERLAP_CHARS


def test_every_paragraph_survives_chunking() -> None:
    text = paragraphs(9)
    chunks = chunk_document("a.md", [Section("section=China", text)])
    joined = " ".join(c.text for c in chunks)
    for i in range(9):
        assert f"P{i}. Revenue in China fell" in joined


def test_long_paragraph_is_split_on_sentence_boundaries() -> None:
    long_para = " ".join(
        f"Sentence number {i} explains one more driver of the decline." for i in range(40)
    )
    chunks = chunk_document("a.txt", [Section("para=1", long_para)])
    assert len(chunks) >= 4
    for c in chunks:
        assert c.text.endswith("decline.")
        assert len(c.text) <= TARGET_CHARS + OVERLAP_CHARS + 1


def test_chinese_paragraph_is_split_after_chinese_punctuation() -> None:
    text = "".join(
        f"第{i}个原因是中国区门店客流下降！" if i % 2 else f"第{i}条说明了营收为何减少。"
        for i in range(80)
    )
    chunks = chunk_document("zh.md", [Section("section=原因", text)])
    assert len(chunks) >= 3
    assert all(c.text[-1] in "。！" for c in chunks)
    assert all(" " not in c.text for c in chunks)  # no spaces glued between Chinese sentences


def test_a_sentence_longer_than_the_target_is_hard_cut() -> None:
    chunks = chunk_document("a.txt", [Section("para=1", "word " * 400)])
    assert len(chunks) >= 4
    assert all(len(c.text) <= TARGET_CHARS + OVERLAP_CHARS + 1 for c in chunks)


def test_locators_follow_sections_and_heading_less_paragraphs_are_packed() -> None:
    sections = [Section(f"para={i}", f"Short paragraph {i}.") for i in range(1, 4)]
    sections += [Section("section=Italy", "Italy grew."), Section("page=3", "Page three.")]
    chunks = chunk_document("mixed.md", sections)
    assert [(c.locator, c.text) for c in chunks] == [
        ("para=1", "Short paragraph 1.\nShort paragraph 2.\nShort paragraph 3."),
        ("section=Italy", "Italy grew."),
        ("page=3", "Page three."),
    ]


def test_packed_paragraph_chunk_cites_the_paragraph_it_starts_in() -> None:
    sections = [Section(f"para={i}", f"P{i} " + SENTENCE * 3) for i in range(1, 7)]
    chunks = chunk_document("notes.txt", sections)
    assert chunks[0].locator == "para=1"
    for c in chunks[1:]:
        n = int(c.locator.removeprefix("para="))
        assert f"P{n} " in c.text


def test_ids_are_stable_unique_and_depend_on_doc_locator_and_position() -> None:
    sections = [Section("section=A", paragraphs(6)), Section("section=A", paragraphs(6))]
    first = chunk_document("a.md", sections, restricted=True)
    again = chunk_document("a.md", sections, restricted=True)
    assert [c.id for c in first] == [c.id for c in again]
    assert len({c.id for c in first}) == len(first)
    assert first[0].id == chunk_id("a.md", "section=A", 0)
    assert chunk_document("b.md", sections)[0].id != first[0].id
    assert all(c.restricted and c.doc == "a.md" for c in first)


def test_empty_sections_give_no_chunks_and_bad_overlap_is_rejected() -> None:
    assert chunk_document("a.md", [Section("page=1", "  \n\n ")]) == []
    with pytest.raises(ValueError):
        chunk_document("a.md", [Section("page=1", "x")], target=50, overlap=50)


def test_pdf_line_wraps_are_joined() -> None:
    wrapped = "Revenue fell\nbecause of\nweaker demand."
    chunks = chunk_document("r.pdf", [Section("page=1", wrapped)])
    assert chunks[0].text == "Revenue fell because of weaker demand."


def _longest_suffix_prefix(left: str, right: str) -> int:
    for size in range(min(len(left), len(right)), 0, -1):
        if left.endswith(right[:size]):
            return size
    return 0
