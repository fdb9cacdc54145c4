"""Glossary-driven query rewriting: synonyms and codes swapped in, capped, deterministic."""

from __future__ import annotations

from core.documents.query_rewrite import rewrite_queries

CHINA = ["Orbis China", "China", "Cina", "中国区", "ORBIS_CN"]
REVENUE = ["revenue", "sales", "fatturato", "ricavi", "营收", "REVENUE"]


def test_original_first_then_synonyms_and_codes() -> None:
    assert rewrite_queries("Perché sono calati i ricavi in Cina?", [CHINA]) == [
        "Perché sono calati i ricavi in Cina?",
        "Perché sono calati i ricavi in Orbis China?",
        "Perché sono calati i ricavi in China?",
        "Perché sono calati i ricavi in 中国区?",
        "Perché sono calati i ricavi in ORBIS_CN?",
    ]


def test_every_matched_group_is_rewritten_in_each_variant() -> None:
    out = rewrite_queries("Why did China revenue fall?", [CHINA, REVENUE])
    assert out == [
        "Why did China revenue fall?",
        "Why did Orbis China sales fall?",
        "Why did Cina fatturato fall?",
        "Why did 中国区 ricavi fall?",
        "Why did ORBIS_CN 营收 fall?",
    ]


def test_at_most_max_queries_and_never_duplicates() -> None:
    out = rewrite_queries("china revenue", [CHINA, REVENUE, ["China", "CHINA"]], max_queries=3)
    assert len(out) == 3
    assert len({q.casefold() for q in out}) == 3
    # "REVENUE" equals the question's own "revenue" ignoring case: 4 alternatives each
    assert len(rewrite_queries("China revenue", [CHINA, REVENUE], max_queries=50)) == 5


def test_longest_name_wins_and_shorter_names_inside_it_are_not_matched() -> None:
    out = rewrite_queries("Orbis China results", [CHINA, ["Orbis", "ORBIS_GROUP"]])
    assert out[1] == "China results"  # "Orbis China" replaced whole; "Orbis" not matched in it
    assert all("ORBIS_GROUP" not in q for q in out)


def test_names_match_whole_words_case_insensitively() -> None:
    assert rewrite_queries("Chinaware sales", [CHINA]) == ["Chinaware sales"]
    assert rewrite_queries("CINA ricavi", [CHINA])[1] == "Orbis China ricavi"


def test_chinese_names_match_inside_a_sentence_and_latin_names_get_spaces() -> None:
    out = rewrite_queries("2025年中国区营收为什么下降？", [CHINA, REVENUE])
    assert out[1] == "2025年 Orbis China revenue 为什么下降？"
    assert out[0] == "2025年中国区营收为什么下降？"


def test_no_match_gives_only_the_question_and_empty_gives_nothing() -> None:
    assert rewrite_queries("What about the weather?", [CHINA, REVENUE]) == [
        "What about the weather?"
    ]
    assert rewrite_queries("   ", [CHINA]) == []


def test_deterministic() -> None:
    runs = {tuple(rewrite_queries("Cina ricavi 2025", [REVENUE, CHINA])) for _ in range(5)}
    assert len(runs) == 1


def test_names_are_found_as_the_gates_find_them() -> None:
    """A look-alike letter or an invisible character does not hide a name from rewriting."""
    out = rewrite_queries("Why did \u0421hi\u200bna revenue fall?", [CHINA, REVENUE])
    assert out[1] == "Why did Orbis China sales fall?"
