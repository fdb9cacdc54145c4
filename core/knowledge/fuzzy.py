"""Names as people mistype them: glossary names read through a bounded edit distance.

Exact matching (core.knowledge.names) always comes first; this module is asked only when it
leaves something unread. The bound grows with the name, so a short word never turns into a
name by chance: no edit under 4 letters, 1 edit for 4-7 letters, 2 for longer names. The
distance is rapidfuzz's optimal string alignment (a swap of two neighbouring letters, "reveneu",
is one edit). Only names written in Latin letters are read loosely: Chinese is typed through
an input method, whose slips are other characters, not edits.

Two users:
- `Readings` proposes corrected readings of the words a question left unread ("reveneu" ->
  Revenue, "Orbis Lbas" -> Orbis Labs, "net inventories" -> "Inventories, net": a metric
  name's words in another order or number). The parser re-reads the corrected text and the
  answer states every correction.
- `near_protected` finds competitor or restricted names within the bound anywhere in a text,
  for the security gate: it must match at least as loosely as the parser reads.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.knowledge.comparable import comparable, original_span, squash

if TYPE_CHECKING:
    from core.knowledge.glossary import Glossary

MAX_WORDS = 4  # the longest name, in words, a reading may cover
_LATIN_WORD = re.compile(r"[0-9a-z\u00c0-\u024f]+")
_TOKEN = re.compile(r"[0-9a-z\u00c0-\u024f]+|[^\W_]")  # a Latin word, or any other letter
_LATIN_KEY = re.compile(r"^[0-9a-z\u00c0-\u024f]+$")
_BETWEEN_WORDS = re.compile(r"^[\s\-\u2010-\u2015,.]*$")  # what may separate a name's words
# Everyday words one edit from a common business name ("tell"/"sell", "stuff"/"staff",
# "detail"/"retail", "stories"/"stores"): never read as a name. Casefolded, en and it.
_EVERYDAY = """
    tell told hold gold bold cold sole well self cell seal stuff stiff still detail retain
    stories store scores chain chin laps tabs lads lab tales males sale tonal order border
    borders profile totally retailer cena cima fine cine totali italic italics
"""
_NEVER_READ = frozenset(_EVERYDAY.split())


def max_edits(length: int) -> int:
    """How many edits a name of `length` letters may carry and still be read as itself."""
    if length < 4:
        return 0
    return 1 if length <= 7 else 2


@dataclass(frozen=True)
class Reading:
    """Words of the question read as a glossary name they were not written as."""

    kind: str  # "metric" | "entity" | "channel"
    code: str
    name: str  # the glossary name the words were read as
    raw: str  # the words as written
    start: int
    end: int
    edits: int  # 0: the name's words in another order or number


def _stem(word: str) -> str:
    """A word without its plural ending, for order-free metric names ("inventories" and
    "inventory" alike)."""
    for tail, keep in (("ies", "y"), ("es", ""), ("s", "")):
        if len(word) > len(tail) + 2 and word.endswith(tail):
            if tail == "es" and not word.endswith(("ses", "xes", "ches", "shes")):
                continue
            return word[: -len(tail)] + keep
    return word


def bag_key(words: list[str]) -> frozenset[str]:
    """A name's words regardless of order, plural and punctuation."""
    return frozenset(_stem(w) for w in words if w)


class Readings:
    """Every Latin name of a glossary, for the loose reading of unread words."""

    def __init__(self, glossary: Glossary, *, never: frozenset[str] = frozenset()) -> None:
        tables = {
            "metric": {**glossary.metrics, **{c: d.term for c, d in glossary.derived.items()}},
            "entity": glossary.entities,
            "channel": glossary.channels,
        }
        self._keys: list[str] = []
        self._owners: list[tuple[str, str, str]] = []  # (kind, code, name) per key
        self._widths: list[int] = []  # how many words each key's name has
        self._bags: dict[frozenset[str], tuple[str, str, str]] = {}
        seen: set[str] = set()
        for kind, terms in tables.items():
            for code, term in terms.items():
                for name in term.names:  # names only: a verb form is too short to guess at
                    key = squash(name)
                    words = _LATIN_WORD.findall(comparable(name)[0])
                    if len(words) >= 2 and kind == "metric":
                        self._bags.setdefault(bag_key(words), (kind, code, name))
                    if len(key) < 4 or key in seen or not _LATIN_KEY.match(key):
                        continue
                    seen.add(key)
                    self._keys.append(key)
                    self._owners.append((kind, code, name))
                    self._widths.append(len(words))
        self._never = _NEVER_READ | never

    def read(self, text: str, taken: list[tuple[int, int]]) -> list[Reading]:
        """Corrected readings of runs of words in `text` not wholly inside `taken` (spans of
        the original text already read exactly), best first, never overlapping."""
        folded, offsets = comparable(text)
        words = []
        for m in _LATIN_WORD.finditer(folded):
            start, end = original_span(offsets, m.start(), m.end())
            inside = any(a <= start and end <= b for a, b in taken)
            words.append((m.start(), m.end(), m.group(), inside, start, end))
        found: list[tuple[tuple[int, int, int], Reading]] = []
        for i in range(len(words)):
            for n in range(1, MAX_WORDS + 1):
                run = words[i : i + n]
                if len(run) < n or not _adjacent(folded, run):
                    break
                texts = [w[2] for w in run]
                unread = [w[2] for w in run if not w[3]]
                if all(w in self._never or w.isdigit() for w in unread):
                    continue  # nothing unread but everyday words ("revenue in")
                hit = self._match(texts)
                if hit is None:
                    continue
                (kind, code, name), edits = hit
                start, end = run[0][4], run[-1][5]
                reading = Reading(kind, code, name, text[start:end], start, end, edits)
                found.append(((edits, -n, start), reading))
        found.sort(key=lambda f: f[0])
        chosen: list[Reading] = []
        for _, r in found:
            if all(r.end <= c.start or c.end <= r.start for c in chosen):
                chosen.append(r)
        return sorted(chosen, key=lambda r: r.start)

    def _match(self, words: list[str]) -> tuple[tuple[str, str, str], int] | None:
        """The name these words are a slip of, and how many edits (0: reordered words)."""
        if len(words) >= 2:
            bag = self._bags.get(bag_key(words))
            if bag is not None and squash(bag[2]) != "".join(words):
                return bag, 0
        key = "".join(words)
        if len(key) < 4 or not self._keys:
            return None
        from rapidfuzz import process
        from rapidfuzz.distance import OSA

        best: tuple[tuple[str, str, str], int] | None = None
        for choice, edits, index in process.extract(
            key, self._keys, scorer=OSA.distance, score_cutoff=2, limit=8
        ):
            if edits == 0 or edits > max_edits(len(choice)) or edits > max_edits(len(key)):
                continue
            if self._widths[index] != len(words):
                continue  # a slip keeps the name's words: "chi ha" is not "China"
            if len(key) <= 6 and key[0] != choice[0]:
                continue  # short words: a slip rarely hits the first letter ("tell"/"sell")
            if best is None or edits < best[1]:
                best = (self._owners[index], int(edits))
        return best


def _adjacent(folded: str, run: list[tuple[int, int, str, bool, int, int]]) -> bool:
    """Whether the words of `run` follow each other as a name's words do."""
    return all(
        _BETWEEN_WORDS.match(folded[a[1] : b[0]]) for a, b in itertools.pairwise(run)
    )


def _floor(key: str) -> float:
    bound = max_edits(len(key))
    return 100 * (1 - bound / (len(key) - bound)) - 1


def protected_keys(names: list[str]) -> list[str]:
    """The names the gate reads loosely: Latin letters, at least 4 of them."""
    keys = {squash(n) for n in names}
    return sorted(k for k in keys if len(k) >= 4 and _LATIN_KEY.match(k))


def near_protected(text: str, keys: list[str], public: frozenset[str] = frozenset()
                   ) -> list[tuple[int, int]]:
    """Spans of `text` (original offsets) whose words spell one of `keys` within the edit
    bound: runs of whole words, so "Vortx", "Orbis Lbas" and "Vor tex" count, a name's
    letters inside an unrelated longer word do not. Words that spell a `public` name exactly
    are that name, not a misspelt key ("Meridian US" is no typo of the code MERIDIAN_MX)."""
    if not keys:
        return []
    from rapidfuzz import fuzz
    from rapidfuzz.distance import OSA

    flat = squash(text)
    # k edits leave some window at least 1 - k/(len(key) - k) alike (in insertions plus
    # deletions, as partial_ratio counts): a question near no key costs one C call per key
    keys = [k for k in keys if fuzz.partial_ratio(k, flat, score_cutoff=_floor(k))]
    if not keys:
        return []
    folded, offsets = comparable(text)
    tokens = [(m.start(), m.end(), m.group()) for m in _TOKEN.finditer(folded)]
    spans = []
    for key in keys:
        bound = max_edits(len(key))
        low, high = len(key) - bound, len(key) + bound
        for i in range(len(tokens)):
            joined = ""
            for j in range(i, len(tokens)):
                joined += tokens[j][2]
                if len(joined) > high:
                    break
                if len(joined) >= low and joined not in public and OSA.distance(
                        joined, key, score_cutoff=bound) <= bound:
                    spans.append(original_span(offsets, tokens[i][0], tokens[j][1]))
    return sorted(set(spans))
