"""The lexical channel: tokenizer (words, accents, jieba user words) and the BM25 index."""

from __future__ import annotations

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from core.contracts.ports import Chunk
from core.documents.lexical import Bm25Index, Tokenizer, TokenMemo, guarded_idf


class GuardedBM25(BM25Okapi):
    """rank_bm25 with the index's positive IDF: the reference its scores must equal."""

    def _calc_idf(self, nd: dict[str, int]) -> None:
        self.idf = {w: float(guarded_idf(self.corpus_size, n)) for w, n in nd.items()}
        self.average_idf = sum(self.idf.values()) / len(self.idf) if self.idf else 0.0


def chunk(cid: str, text: str) -> Chunk:
    return Chunk(id=cid, doc=f"{cid}.md", locator="para=1", text=text)


# --- tokenizer ---------------------------------------------------------------------------


def test_words_are_casefolded_with_accents_kept_and_width_normalised() -> None:
    tokens = Tokenizer().tokenize("Perché i RICAVI dell'azienda sono calati? ＦＹ2025")
    assert tokens == ["perché", "i", "ricavi", "dell", "azienda", "sono", "calati", "fy2025"]


def test_latin_text_never_loads_jieba() -> None:
    tokenizer = Tokenizer(["意大利区"])
    tokenizer.tokenize("Only English and italiano here")
    assert tokenizer._jieba is None


def test_chinese_is_segmented_and_mixed_text_keeps_latin_words() -> None:
    tokens = Tokenizer().tokenize("Orbis中国区营收在2025年下降")
    assert tokens[0] == "orbis"
    assert {"营收", "下降", "2025"} <= set(tokens)
    assert "营收在2025年下降" not in tokens


def test_glossary_words_stay_whole_in_jieba() -> None:
    # jieba's dictionary already knows 中国区, so use names it would otherwise split.
    text = "意大利区营收下降，奥比斯集团"
    plain = Tokenizer().tokenize(text)
    assert "意大利区" not in plain and "奥比斯" not in plain

    with_words = Tokenizer(["意大利区"])
    with_words.add_words(["奥比斯", "Orbis Italy"])  # added after jieba is loaded, too
    tokens = with_words.tokenize(text)
    assert "意大利区" in tokens and "奥比斯" in tokens


def test_user_words_do_not_leak_between_tokenizers() -> None:
    Tokenizer(["意大利区"]).tokenize("意大利区")
    assert "意大利区" not in Tokenizer().tokenize("意大利区营收下降")


# --- BM25 ------------------------------------------------------------------------------


def test_term_in_half_the_documents_still_ranks_its_documents_first() -> None:
    # Plain BM25Okapi gives "margin" (2 of 4 docs) an IDF of exactly 0: no signal at all.
    texts = {
        "a": "gross margin fell in china",
        "b": "margin pressure from discounts",
        "c": "store openings in italy",
        "d": "board approved the dividend",
    }
    corpus = [t.split() for t in texts.values()]
    assert BM25Okapi(corpus).get_scores(["margin"]).max() == 0.0  # the bug being guarded

    index = Bm25Index([chunk(k, v) for k, v in texts.items()], Tokenizer())
    assert [cid for cid, _ in index.search(["margin"], k=4)] == ["b", "a"]


def test_term_in_most_documents_counts_positively() -> None:
    texts = ["revenue china", "revenue italy", "revenue spain", "dividend"]
    index = Bm25Index([chunk(str(i), t) for i, t in enumerate(texts)], Tokenizer())
    hits = index.search(["revenue", "italy"], k=4)
    assert hits[0][0] == "1"
    assert {cid for cid, _ in hits} == {"0", "1", "2"}
    assert all(score > 0 for _, score in hits)


def test_sparse_scores_equal_rank_bm25_formula() -> None:
    texts = [
        "revenue in china fell because of weaker demand",
        "china store network expanded, revenue grew",
        "the board met twice",
        "demand for premium products stayed strong in italy and china",
    ]
    tokenizer = Tokenizer()
    index = Bm25Index([chunk(str(i), t) for i, t in enumerate(texts)], tokenizer)
    query = tokenizer.tokenize("why did china revenue fall, weaker demand")
    reference = GuardedBM25([tokenizer.tokenize(t) for t in texts])
    np.testing.assert_allclose(index.scores(query), reference.get_scores(query))


def test_rare_term_beats_common_term() -> None:
    texts = ["china revenue", "china stores", "china board", "italy dividend"]
    index = Bm25Index([chunk(str(i), t) for i, t in enumerate(texts)], Tokenizer())
    assert index.search(["china", "dividend"], k=1)[0][0] == "3"


def test_ties_are_broken_by_chunk_id_and_k_is_respected() -> None:
    chunks = [chunk(cid, "same words here") for cid in ["c", "a", "d", "b"]]
    index = Bm25Index(chunks, Tokenizer())
    assert [cid for cid, _ in index.search(["words"], k=3)] == ["a", "b", "c"]


def test_mask_excludes_rows_and_unknown_terms_find_nothing() -> None:
    chunks = [chunk("a", "china revenue"), chunk("b", "china revenue fell")]
    index = Bm25Index(chunks, Tokenizer())
    assert [cid for cid, _ in index.search(["china"], k=5, allowed=np.array([False, True]))] == [
        "b"
    ]
    assert index.search(["nothing"], k=5) == []
    assert index.search(["china"], k=0) == []


@pytest.mark.parametrize("texts", [[], ["", "   "]])
def test_empty_index_returns_nothing(texts: list[str]) -> None:
    index = Bm25Index([chunk(str(i), t) for i, t in enumerate(texts)], Tokenizer())
    assert index.search(["china"], k=5) == []


def test_a_token_memo_tokenises_only_new_texts_and_builds_the_same_index() -> None:
    """A re-ingest rebuilds BM25 in a running bot: only the changed document is segmented
    again (jieba is the slow part), and the index is the one a fresh build gives."""

    class Counting(Tokenizer):
        calls = 0

        def tokenize(self, text: str) -> list[str]:
            Counting.calls += 1
            return super().tokenize(text)

    memo = TokenMemo(Counting())
    first = [chunk("a", "revenue fell in China"), chunk("b", "中国区 营收 下降"), chunk("c", "HK")]
    Bm25Index(first, memo.tokenizer, corpus=memo.corpus(first))
    assert Counting.calls == 3
    second = [*first[:2], chunk("c", "Hong Kong retail grew")]  # c re-ingested
    index = Bm25Index(second, memo.tokenizer, corpus=memo.corpus(second))
    assert Counting.calls == 4
    fresh = Bm25Index(second, Tokenizer())
    for query in ("hong kong retail", "营收", "china"):
        tokens = Tokenizer().tokenize(query)
        assert index.search(tokens, 3) == fresh.search(tokens, 3)
    assert index.search(Tokenizer().tokenize("hk"), 3) == []  # the old text is gone
