"""The comparable form of text: what every gate and every glossary-name match compares.

A name must be recognised however it is dressed up, or the competitor gate and the restricted
gate can be walked around with characters a reader does not see. One function folds a character,
and everything that compares names (core.knowledge.names: the gates, the intent parser, the
planner, the
document tagger; core.documents.query_rewrite) goes through it:

1. NFKC: full-width, ligatures, mathematical letters (`ＡＣＭＥ`, `ﬁ`, `𝐍`) become plain letters;
2. format characters (Unicode category Cf: zero-width space and joiner, soft hyphen, word
   joiner, bidi controls, BOM) are dropped, and so are combining marks (`N̸imbus`, `perché` →
   `perche`), on the text and on the names alike;
3. look-alikes from Cyrillic and Greek become the Latin letter they imitate (`CONFUSABLES`,
   below: a small table, not Unicode's whole confusables list, covering the letters that look
   exactly like Latin ones in common fonts);
4. casefold (look-alikes are mapped before it, combining marks dropped after it).

Then, for glossary names (`comparable`, used by core.knowledge.names for the gates, the intent
parser,
the planner and the document tagger), inner punctuation is ignored where it cannot be part of a
sentence: decorations between two letters are dropped (`N.i.m.b.u.s`, `La·bs`, `Vor_tex`), a
word spelled out letter by letter is joined (`V o r t e x`, `L-a-b-s`), and a name's words may
be separated by spaces, hyphens, dots or underscores (`Nimbus-Retail`). Apostrophes, commas,
slashes and hyphens between two words still end a word, so `China's`, `l'Italia`,
`China/Italy` and `Italy-China` keep their names. The competitor gate goes further (`squash`):
it compares letters and digits only, so any spacing or punctuation inside a competitor's name
is ignored.

Every function keeps track of where each compared character came from, so a match can be
blanked or reported in the original text.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# Upper and lower case are listed separately: Greek `ν` (nu) looks like `v`, its capital `Ν`
# like `N`. Applied after NFKC, before casefolding.
CONFUSABLES: dict[str, str] = {
    # Cyrillic
    "А": "A", "В": "B", "Е": "E", "Ѕ": "S", "І": "I", "Ј": "J", "К": "K", "М": "M", "Н": "H",
    "О": "O", "Р": "P", "С": "C", "Т": "T", "У": "Y", "Х": "X", "Ү": "Y", "Ԛ": "Q", "Ԝ": "W",
    "Ӏ": "I", "Ԁ": "D",
    "а": "a", "е": "e", "ѕ": "s", "і": "i", "ј": "j", "о": "o", "р": "p", "с": "c", "у": "y",
    "х": "x", "ү": "y", "һ": "h", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ӏ": "l", "ɡ": "g",
    # Greek
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N",
    "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "Ϲ": "C", "Ϳ": "J",
    "ο": "o", "ν": "v", "ι": "i", "κ": "k", "ρ": "p", "τ": "t", "χ": "x", "υ": "u", "ϲ": "c",
    "ϳ": "j", "α": "a",
    # Latin letters that read as others
    "ı": "i", "ȷ": "j", "ſ": "s", "ℓ": "l",
}  # fmt: skip

_DROPPED_CATEGORIES = frozenset({"Cf", "Mn", "Me"})


@lru_cache(maxsize=8192)
def fold_char(ch: str) -> str:
    """The comparable form of one character: "" for an invisible one, else 1+ characters."""
    out: list[str] = []
    ch = CONFUSABLES.get(ch, ch)  # before NFKC too: it turns some look-alikes (`Ϲ`) into others
    for c in unicodedata.normalize("NFKC", ch):
        # look-alikes before casefolding (capital Greek `Ν` is N, small `ν` is v), marks after
        # it (casefolding `İ` adds a combining dot)
        folded = CONFUSABLES.get(c, c).casefold()
        out.extend(
            d
            for d in unicodedata.normalize("NFD", folded)
            if unicodedata.category(d) not in _DROPPED_CATEGORIES
        )
    return "".join(out)


def fold(text: str) -> str:
    """The comparable form of a whole text (no offsets needed)."""
    if text.isascii():
        return text.lower()
    return "".join(map(fold_char, text))


def _fold_with_offsets(text: str) -> tuple[str, list[int] | None]:
    """(folded text, for every folded character the index of the original character it came
    from); the offsets are None when they are the identity (ASCII text, the common case)."""
    if text.isascii():
        return text.lower(), None
    folded: list[str] = []
    offsets: list[int] = []
    for i, ch in enumerate(text):
        piece = fold_char(ch)
        if piece:
            folded.append(piece)
            offsets.extend([i] * len(piece))
    return "".join(folded), offsets


def original_span(offsets: list[int] | None, start: int, end: int) -> tuple[int, int]:
    """The span of the original text that folded characters [start, end) came from."""
    if offsets is None:
        return start, end
    return offsets[start], offsets[end - 1] + 1


@lru_cache(maxsize=4096)
def squash(text: str) -> str:
    """Letters and digits of the folded text only: spacing and punctuation tricks vanish.
    Kept per text: names and codes (a small vocabulary) are squashed on every lookup and
    every name match, 20 times for a 5 x 4 table."""
    return "".join(c for c in fold(text) if c.isalnum())


def squash_with_offsets(text: str) -> tuple[str, list[int]]:
    """`squash` plus, for every kept character, the index of its original character."""
    folded, offsets = _fold_with_offsets(text)
    kept: list[str] = []
    index: list[int] = []
    for j, c in enumerate(folded):
        if c.isalnum():
            kept.append(c)
            index.append(j if offsets is None else offsets[j])
    return "".join(kept), index


# Latin letters and digits: a Latin edge of a name must sit at a word boundary.
LATIN = "0-9a-z\u00c0-\u024f"
_LETTER = "a-z\u00c0-\u024f"
# Punctuation and symbols that never join two letters of one word: they end a word in a
# sentence ("China's", "l'Italia", "China/Italy", "Italy-China", "A&B").
_WORD_ENDS = "'’‘`,;:!?()\\[\\]{}\"“”«»/&+|\\-\u2010-\u2015，。；：！？、"
# Any other punctuation or symbol between two letters is decoration: "N.i.m.b.u.s", "La·bs",
# "Lab*s", "Vor_tex" (underscore included).
_INNER = re.compile(rf"(?<=[{_LETTER}])(?:[^\s\w{_WORD_ENDS}]|_)+(?=[{_LETTER}])")
# A word spelled out letter by letter with one separator: "V o r t e x", "L-a-b-s".
_SPELLED = re.compile(
    rf"(?<![{_LETTER}])[{_LETTER}](?:([ \-\u2010-\u2015])[{_LETTER}])"
    rf"(?:\1[{_LETTER}])+(?![{_LETTER}])"
)
# What stands for the space between two words of a name (and for a hyphen inside one).
_BETWEEN = r"[\s._\-\u00b7\u2010-\u2015]*"


def comparable(text: str) -> tuple[str, list[int] | None]:
    """(the comparable form of `text`, for every character of it the index of the original
    character it came from — None when that is the identity, as for plain ASCII text).

    Folded (`fold`), then decorations between letters dropped and spelled-out words joined,
    as the module docstring describes."""
    folded, offsets = _fold_with_offsets(text)
    drop: list[int] = []
    for m in _INNER.finditer(folded):
        drop.extend(range(m.start(), m.end()))
    for m in _SPELLED.finditer(folded):
        drop.extend(range(m.start() + 1, m.end(), 2))
    if not drop:
        return folded, offsets
    dropped = set(drop)
    keep = [j for j in range(len(folded)) if j not in dropped]
    return (
        "".join(folded[j] for j in keep),
        [j if offsets is None else offsets[j] for j in keep],
    )


def name_pattern(name: str) -> str:
    """A regex body matching the glossary name `name` in comparable text: its words separated
    by any spacing, hyphens, dots or underscores ("Nimbus-Retail", "e commerce")."""
    words = re.split(r"[\s\-\u2010-\u2015]+", comparable(name)[0])
    return _BETWEEN.join(re.escape(w) for w in words if w)
