"""An unknown subject: the honest "I don't have that" instead of unrelated passages.

The rule, kept simple so it can be tested: a question for the documents whose subject words
(core.question.intent_words: acronyms such as "NPS"; in a question naming nothing of the glossary,
its longer words such as "magazzino") occur in none of the passages retrieval found is not
known. Passages retrieved for other words of the question would only pad the answer. The
sentence never repeats the question's words, so it says the same about a restricted subject
in an uncleared chat as about one that does not exist.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from core.catalog.lookup import say
from core.knowledge.comparable import fold


def not_known(language: str) -> str:
    return say("not_known", language)


def mentioned(subject: Iterable[str], texts: Iterable[str]) -> bool:
    """Whether any subject word occurs, as a word, in any of `texts` (compared folded)."""
    patterns = [re.compile(rf"(?<!\w){re.escape(fold(t))}(?!\w)") for t in subject]
    return any(p.search(fold(text)) for text in texts for p in patterns)
