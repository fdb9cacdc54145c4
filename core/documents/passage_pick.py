"""Which retrieved chunks an extractive answer quotes, and how each is cut into a passage.

Retrieval ranks chunks; a chunk is not yet a passage a person wants to read. The chunker
(core.documents.chunking) gives a section's first chunk its heading as the first line, and every
later
chunk starts with the ~80-character tail of the one before (mid-sentence). Plain-text sections
pack several paragraphs, title lines included, into one chunk. So, per chunk:

- the heading (the `section=` locator's heading line, a markdown `#` line, or a short line
  without final punctuation above the text) becomes `PickedPassage.heading`, never the quote;
- the quote starts on a sentence start (a continuation's carried fragment is dropped) and ends
  on a sentence end (. ! ? … and Chinese 。！？), stops before an inner title line, and keeps
  whole sentences up to `QUOTE_CHARS` (one sentence longer than that is cut at a word, "…").

Across chunks, in this order:

1. Relevance floor: a passage whose cosine with the question (`ScoredChunk.similarity`, from the
   retriever's vector channel) is below `floor` is left out, never padded in. The floor is the
   embedder's calibrated retrieval floor (core.fastpath.thresholds `relevance`) that the retriever
   already
   applies to the question as a whole, here applied to each passage. A chunk found by BM25 alone
   carries the bound its cosine is below; with no vector channel at all (None) it is kept.
2. Entity: when the question names entities, a passage about other entities is dropped. It is
   judged on its document's file name, heading and whole chunk: naming other entities more often
   than the asked ones (or only others) is about something else, so "italia_crescita_2025.md:
   Orbis Italia ... l'Italia ... il calo della Cina" is not about China. A passage naming no
   entity is kept, after those about the asked one. Sub-entities (glossary `parent`) count as
   the asked entity ("Orbis Group" includes its subsidiaries), its parents as neither; a question
   naming an entity and its parent ("Orbis ... in China") is about the more specific one.
3. Language: at each place the best remaining passage is taken, unless one in the question's
   language is *equally relevant*: its score is within `LANGUAGE_TOLERANCE` (5%) of that best
   score, about two ranks in one fused list. Then it goes first. A clearly better passage in
   another language still wins (a cross-language question is often answered only by one).
4. Duplicates (the same quote, or one quote inside another, as overlapping chunks produce) are
   shown once.

Otherwise the retrieval order is kept (core.documents.retrieval orders equal scores by chunk id),
so the
same snippets always give the same passages, and a reranked order is not undone.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from core.contracts.ports import ScoredChunk
from core.documents.chunking import is_title_line
from core.documents.snippet_text import trim_at_sentence
from core.knowledge.names import NameIndex
from core.language import detect_language

QUOTE_CHARS = 300
LANGUAGE_TOLERANCE = 0.05  # relative score difference still "equally relevant"

# A sentence ends at . ! ? … followed by a space or the end (so "1,008.4" does not end one),
# or at Chinese 。！？ (no space follows in Chinese); closing quotes and brackets stay with it.
_SENTENCE_END = re.compile(r"[.!?…]+[\"'”’»)\]]*(?=\s|$)|[。！？]+[”’」』）)\]]*")
_MD_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")
# a line wrap inside Chinese text became a space when the chunker collapsed it
_CJK_GAP = re.compile(
    r"(?<=[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef])\s+"
    r"(?=[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef])"
)
_NAME_SEPARATORS = re.compile(r"[_\-.]+")
_FRAGMENT_START = re.compile(r"^[a-zà-ÿ,;:)\]”’.…]")


@dataclass(frozen=True)
class PickedPassage:
    """One quoted passage: the chunk it comes from, the quote, its section heading, its
    language (core.language.detect_language of the quote)."""

    snippet: ScoredChunk
    text: str
    heading: str
    language: str


def pick_passages(
    snippets: Sequence[ScoredChunk],
    *,
    language: str,
    entities: Sequence[str] = (),
    names: NameIndex | None = None,
    limit: int = 3,
    floor: float | None = None,
) -> list[PickedPassage]:
    """At most `limit` passages worth quoting from `snippets` (best first); see the module
    docstring for the rules. Fewer, or none, when fewer are worth it."""
    family = _asked_family(entities, names)
    candidates: list[tuple[int, PickedPassage]] = []
    for snippet in snippets:
        if floor is not None and snippet.similarity is not None and snippet.similarity < floor:
            continue
        passage = cut_passage(snippet)
        if not passage.text:
            continue
        about = None
        if family is not None and names is not None:
            about = _about(_context(passage), family, names)
            if about is False:
                continue
        candidates.append((0 if about or family is None else 1, passage))
    candidates.sort(key=lambda c: c[0])  # stable: retrieval order within a tier

    picked: list[PickedPassage] = []
    while candidates and len(picked) < limit:
        tier, lead = candidates[0]
        best = lead.snippet.score
        window = (
            c
            for c in candidates
            if c[0] == tier and c[1].snippet.score >= best - LANGUAGE_TOLERANCE * abs(best)
        )
        choice = next((c for c in window if c[1].language == language), candidates[0])
        candidates.remove(choice)
        if not any(same_passage(choice[1], p) for p in picked):
            picked.append(choice[1])
    return picked


def cut_passage(snippet: ScoredChunk, limit: int = QUOTE_CHARS) -> PickedPassage:
    """The chunk as a passage: heading apart, quote on sentence boundaries (empty when the chunk
    holds no whole sentence after its carried fragment)."""
    parts, lines, heading = _split_chunk(snippet)
    for segment_heading, sentences in parts:
        text = fit_sentences(sentences, limit)
        if text:
            return PickedPassage(snippet, text, segment_heading, detect_language(text))
    segments = _segments(lines, heading)
    if segments and not any(_SENTENCE_END.search(line) for line in lines):
        # no sentence punctuation at all (a table, a list of names): cut as before
        segment_heading, body = segments[0]
        text = trim_at_sentence(" ".join(body), limit)
        return PickedPassage(snippet, text, segment_heading, detect_language(text))
    return PickedPassage(snippet, "", heading, "")


def chunk_sentences(snippet: ScoredChunk) -> list[tuple[str, list[str]]]:
    """The chunk's whole sentences per part under one heading, (heading, sentences), in
    reading order, the carried fragment dropped: what a quote may start at."""
    return _split_chunk(snippet)[0]


def _split_chunk(
    snippet: ScoredChunk,
) -> tuple[list[tuple[str, list[str]]], list[str], str]:
    chunk = snippet.chunk
    lines = [_CJK_GAP.sub("", " ".join(line.split())) for line in chunk.text.split("\n")]
    lines = [line for line in lines if line]
    heading = chunk.locator[len("section=") :] if chunk.locator.startswith("section=") else ""
    opens_section = bool(lines) and bool(heading) and _fold(lines[0]) == _fold(heading)
    if opens_section:
        lines = lines[1:]
    # a section's later chunks start with the previous chunk's tail: drop it up to its first
    # sentence end; elsewhere (plain text packs) only when it visibly starts mid-sentence
    carried = chunk.locator.startswith("section=") and not opens_section
    carried = carried and not (lines and _title(lines[0]) and len(lines) > 1)
    parts = []
    for n, (segment_heading, body) in enumerate(_segments(lines, heading)):
        sentences, _ = _sentences(_join_lines(body))
        if len(sentences) > 1 and (
            (carried and n == 0) or _FRAGMENT_START.match(sentences[0])
        ):  # a chunk of one sentence has no carried part: it is quoted whole
            sentences = sentences[1:]
        parts.append((segment_heading, sentences))
    return parts, lines, heading


def about_entities(text: str, names: NameIndex) -> Counter[str]:
    """How often each entity is named in `text` (glossary names, longest first)."""
    return Counter(m.code for m in names.find(text) if m.kind == "entity")


def is_about(passage: PickedPassage, entities: Sequence[str], names: NameIndex) -> bool | None:
    """Whether a passage is about one of `entities`, judged on its document's name, heading and
    whole chunk: True when it names an asked entity (or a sub-entity) at least as often as any
    other; False when it names others more (or only others); None when it names no entity but
    the asked ones' parents, or none at all."""
    family = _asked_family(entities, names)
    return None if family is None else _about(_context(passage), family, names)


def _context(passage: PickedPassage) -> str:
    """What a passage's topic is judged on: the document's file name ("guerra_prezzi_cina.md"
    reads "guerra prezzi cina"), the heading and the whole chunk, not only the quoted part."""
    name = _NAME_SEPARATORS.sub(" ", passage.snippet.chunk.doc.rsplit("/", 1)[-1])
    return f"{name}\n{passage.heading}\n{passage.snippet.chunk.text}"


# --- entities -----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Family:
    asked: frozenset[str]  # the asked entities and their descendants
    ancestors: frozenset[str]  # their parents, grandparents...: neither for nor against


def _asked_family(entities: Sequence[str], names: NameIndex | None) -> _Family | None:
    if not entities or names is None:
        return None
    table = names.glossary.entities

    def chain(code: str) -> list[str]:
        out: list[str] = []
        seen: set[str] = set()
        parent = table[code].parent if code in table else None
        while parent and parent not in seen:
            seen.add(parent)
            out.append(parent)
            parent = table[parent].parent if parent in table else None
        return out

    named = {c for c in entities if c in table}
    # "Orbis ... in China" names the group and China: the more specific one is asked about
    named -= {p for c in named for p in chain(c)}
    asked = named | {code for code in table if set(chain(code)) & named}
    ancestors = {p for c in named for p in chain(c)} - asked
    if not asked:
        return None
    return _Family(frozenset(asked), frozenset(ancestors))


def _about(text: str, family: _Family, names: NameIndex) -> bool | None:
    counts = about_entities(text, names)
    mine = sum(n for code, n in counts.items() if code in family.asked)
    others = [n for code, n in counts.items() if code not in family.asked | family.ancestors]
    if mine and mine >= max(others, default=0):
        return True
    return False if others else None


# --- text ---------------------------------------------------------------------------------


def _title(line: str) -> str:
    """The title a line is, or "": a markdown heading, or a short line without final
    punctuation that is not a list item (core.documents.chunking keeps such a line on its own)."""
    md = _MD_HEADING.match(line)
    if md:
        return md.group(1)
    return line if is_title_line(line) else ""


def _fold(text: str) -> str:
    md = _MD_HEADING.match(text)
    return " ".join((md.group(1) if md else text).split()).casefold()


def _segments(lines: list[str], heading: str) -> list[tuple[str, list[str]]]:
    """Lines split at title lines (a title followed by more text), each part with its heading."""
    segments: list[tuple[str, list[str]]] = [(heading, [])]
    for i, line in enumerate(lines):
        title = _title(line) if i + 1 < len(lines) else ""
        if title:
            segments.append((title, []))
        else:
            segments[-1][1].append(line)
    return [(h, body) for h, body in segments if body]


def _join_lines(lines: list[str]) -> str:
    out = ""
    for line in lines:
        if out and not (_CJK.search(out[-1]) or _CJK.match(line)):
            out += " "
        out += line
    return out


def _sentences(text: str) -> tuple[list[str], str]:
    """Whole sentences of `text`, and the unfinished rest after the last sentence end."""
    sentences, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        sentence = text[start : match.end()].strip()
        if sentence:
            sentences.append(sentence)
        start = match.end()
    return sentences, text[start:].strip()


def fit_sentences(sentences: Sequence[str], limit: int = QUOTE_CHARS) -> str:
    """Whole sentences from the first while they fit in `limit`; one longer sentence is cut."""
    if not sentences:
        return ""
    if len(sentences[0]) > limit:
        return trim_at_sentence(sentences[0], limit)
    text = sentences[0]
    for sentence in sentences[1:]:
        sep = "" if _CJK.search(text[-1]) or _CJK.match(sentence) else " "
        if len(text) + len(sep) + len(sentence) > limit:
            break
        text += sep + sentence
    return text


def _normal(text: str) -> str:
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def same_passage(a: PickedPassage, b: PickedPassage) -> bool:
    if a.snippet.chunk.id == b.snippet.chunk.id:
        return True
    x, y = _normal(a.text), _normal(b.text)
    return bool(x and y) and (x in y or y in x)
