"""For a "why" question, the passage that gives the cause, wherever it sits in the document.

A report explaining a change usually opens with a summary that repeats the question's words
("Lumen Milano revenue fell in fiscal 2025 ...") and names the cause further down ("Output was
lower because the Brescia coating line was shut ..."). Retrieval ranks the summary first (it
shares the most words with the question), so quoting the retrieved chunks answers with the
document's title. Here, for the documents the answer already cites, every chunk is read and the
sentences that state a cause are found by their causal cues (`CAUSAL_CUES`, en/it/zh: "because",
"due to", "driven by", "a causa di", "dovuto a", "grazie a", "由于", "受…影响", "主要是" ...).
Among them, the one quoted first is:

1. about the asked entities (the same test as core.documents.passage_pick: a chunk about another
   entity is left out);
2. in the document cited first (the retrieval order of documents is kept);
3. sharing the most words with the question (its subject: metric, entity; and its year).

The quote starts at the causal sentence, so the reason is never cut off at the 300-character
limit behind the sentences before it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.contracts.ports import Chunk, ScoredChunk
from core.documents.passage_pick import (
    PickedPassage,
    chunk_sentences,
    fit_sentences,
    is_about,
    same_passage,
)
from core.knowledge.names import NameIndex
from core.language import detect_language

CAUSE_DOCUMENTS = 2  # documents read whole: those of the first passages the answer quotes

# A question that asks for a cause (not a trend, an outlook or a strategy).
_WHY = re.compile(
    r"(?<!\w)(?:why|how come|what (?:caused|drove|happened)|reasons?|causes?|caused|drivers?|"
    r"drove|driven|explain|impact(?:ed)?|perch[ée]|come mai|motiv[oi]|causa|cause|spiega\w*"
    r"|impatto)(?!\w)|为什么|为何|原因|怎么回事|什么导致|驱动|影响",
    re.IGNORECASE,
)

# the words documents write before a cause, in English, Italian and Chinese
CAUSAL_CUES = (
    [
        "because", "due to", "driven by", "owing to", "as a result of", "reflecting",
        "reflects", "thanks to", "caused by", "resulted from", "result of", "led to",
        "on the back of", "attributable to", "came from", "comes from", "stems from",
        "stemmed from", "explained by", "the reason",
    ],
    [
        "a causa", "dovut[aoie]", "per via", "grazie a", "trainat[aoie]", "a seguito",
        "in seguito a", "per effetto", "causat[aoie]", "riflette", "determinat[aoie] da",
        "imputabile", "legat[aoie] a", "perché", "poiché", r"deriv(?:a|ano)\s+d[a-z]*",
        r"è\s+venut[oa]\s+d[a-z]*", r"nasce\s+d[a-z]*",
    ],
    [
        "由于", "因为", "受.{0,20}?影响", "得益于", "主要是", "归因于", "原因是", "导致", "源于",
        "来自于",
    ],
)
_CUE = re.compile(
    "|".join(
        rf"(?<!\w){cue}(?!\w)" if cue[0].isascii() else cue
        for cues in CAUSAL_CUES
        for cue in sorted(cues, key=len, reverse=True)
    ),
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W_]{3,}|[\u4e00-\u9fff]{2}")
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")


def asks_why(question: str) -> bool:
    """Whether the question asks for a cause ("why", "perché", "为什么", "what drove" ...) or an
    effect's cause ("the impact of …", "受什么影响")."""
    return _WHY.search(question) is not None


def states_cause(sentence: str) -> bool:
    """Whether a sentence gives a cause: it holds a causal cue of any of the three languages."""
    return _CUE.search(sentence) is not None


def cause_passages(
    question: str,
    chunks: Sequence[Chunk],
    *,
    entities: Sequence[str] = (),
    names: NameIndex | None = None,
    limit: int = 2,
) -> list[PickedPassage]:
    """At most `limit` passages that start at a sentence stating a cause, from `chunks` (whole
    documents, best document first); see the module docstring for the order."""
    words = _words(question)
    years = set(_YEAR.findall(question))
    docs = list(dict.fromkeys(c.doc for c in chunks))
    found: list[tuple[tuple[int, int, int], PickedPassage]] = []
    for chunk in chunks:
        snippet = ScoredChunk(chunk, 0.0)
        for heading, sentences in chunk_sentences(snippet):
            for i, sentence in enumerate(sentences):
                if not states_cause(sentence):
                    continue
                text = fit_sentences(sentences[i:])
                passage = PickedPassage(snippet, text, heading, detect_language(text))
                about = is_about(passage, entities, names) if names is not None else None
                if about is False:
                    continue
                overlap = len(words & _words(f"{heading} {sentence}"))
                overlap += 2 * len(years & set(_YEAR.findall(sentence)))
                found.append(((0 if about else 1, docs.index(chunk.doc), -overlap), passage))
    found.sort(key=lambda f: f[0])  # stable: reading order within equal keys
    picked: list[PickedPassage] = []
    for _, passage in found:
        if len(picked) == limit:
            break
        if not any(same_passage(passage, p) for p in picked):
            picked.append(passage)
    return picked


def with_causes(
    picked: Sequence[PickedPassage], causes: Sequence[PickedPassage], limit: int
) -> list[PickedPassage]:
    """The cause passages first, then the passages retrieval chose, without repeats: a quote
    already holding a cause is kept where it is (it answers), one the cause is inside of too."""
    out = list(causes)
    for passage in picked:
        if not any(same_passage(passage, p) for p in out):
            out.append(passage)
    return out[:limit]


def _words(text: str) -> set[str]:
    return {w.casefold() for w in _WORD.findall(text)}
