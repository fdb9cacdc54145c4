"""A company's words for the language guess (core.language.LanguageWords): its metric labels
in English and Italian (the words found in one only break a tie: "expenses" / "spese") and its
proper names, which say which unit is meant, never the sentence's language ("Alpina Italia
marketing expenses" is English)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.language import LanguageWords

if TYPE_CHECKING:
    from core.knowledge.glossary import Glossary


def language_words(glossary: Glossary) -> LanguageWords:
    """The glossary's label words per language and its proper names."""
    metrics = [*glossary.metrics.values(), *(d.term for d in glossary.derived.values())]
    # only a metric labelled in both says which words are English ("EBITDA" alone says none)
    pairs = [(m.label, text) for m in metrics for lang, text in m.labels if lang == "it"]
    en, it = [e for e, _ in pairs], [i for _, i in pairs]
    proper = [name for e in glossary.entities.values() for name in e.names]
    return LanguageWords.of(en, it, [*proper, *glossary.competitors])
