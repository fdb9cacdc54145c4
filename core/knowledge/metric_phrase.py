"""A metric named in other words than the glossary's: "office furniture at cost" for
"Furniture and fixtures, at cost", "cash spent on investing" for "Net cash used in investing
activities", "deferred revenue, current portion" for "Current portion of deferred revenue".

Asked only when exact matching (core.knowledge.names) leaves a content word unread, so an
ordinary question never pays for it. A phrase of the question (a run of words between question
words, entity names and periods) and every Latin metric name are reduced to their *content
stems*: casefolded, plural and common suffixes removed, stop words ("of", "in", "di") and
the usual qualifiers ("total", "net", "gross", "at year end", "at cost", "of which",
"reported") left out, a handful of report verbs read alike ("spent" as "used"). Then:

- a metric *fits* when its name holds every word of the phrase that belongs to some metric's
  name (the glossary's own vocabulary): "EBITDA margin" fits neither EBITDA nor Gross margin;
  words no metric uses ("office", "spent") may be extra;
- the fitting metrics are ranked by Dice overlap of stems; one clearly ahead, sharing at
  least half its name's stems, is a *reading* (stated to the reader); two close ones are a
  *choice* (the reader picks, with buttons);
- a phrase that names one metric and words of another, and fits none, is *unnamed*: the
  answer says there is no such figure, never the other metric.

The matcher was chosen by measurement against rapidfuzz's token_set_ratio and the hashing
embedder on a labelled list of paraphrases (bench/bench_metric_phrases.py,
docs/understanding-names.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from core.knowledge.comparable import comparable, original_span

if TYPE_CHECKING:
    from core.knowledge.glossary import Glossary

READ_AT = 0.4  # Dice overlap at which one fitting metric is read as the phrase
OFFER_AT = 0.3  # ... at which a fitting metric is offered as a choice
CLOSE = 0.15  # two fitting metrics within this are both offered: never a silent pick

_CJK = re.compile(r"[\u3400-\u9fff\uff00-\uffef]")
_WORD = re.compile(r"[0-9a-z\u00c0-\u024f]+|[,;?!/&()\u3001\uff0c\uff1f]")
_QUALIFIER_RUNS = re.compile(
    r"\b(?:at (?:the )?(?:fiscal )?year[ -]end|year[ -]end|at cost|al costo|of which|di cui"
    r"|as reported|fine anno|a fine anno)\b"
)
_STOP = frozenset([
    "of", "in", "on", "at", "the", "a", "an", "and", "for", "by", "from", "to", "per", "with",
    "as", "its", "their", "our", "di", "del", "della", "dello", "dei", "degli", "delle", "da",
    "dal", "dalla", "dai", "e", "ed", "al", "alla", "allo", "ai", "agli", "nel", "nella", "nei",
    "negli", "il", "lo", "la", "i", "gli", "le", "un", "una", "uno", "dell", "nell", "all",
    "dall", "sull"
])
_QUALIFIERS = frozenset([
    "total", "net", "gross", "reported", "overall", "totale", "netto", "netta", "netti",
    "nette", "lordo", "lorda", "lordi", "lorde", "complessivo", "complessiva"
])
# question words, scale words and other words that end a phrase (never a metric's words)
_FRAME = frozenset([
    "what", "whats", "was", "is", "were", "are", "be", "been", "how", "much", "many", "did",
    "do", "does", "we", "us", "you", "i", "me", "my", "show", "tell", "give", "list", "please",
    "which", "who", "when", "where", "why", "have", "has", "had", "get", "got", "there", "this",
    "that", "these", "those", "year", "years", "fy", "quarter", "month", "half", "in",
    "millions", "million", "thousands", "thousand", "billions", "billion", "miliardi",
    "milioni", "migliaia", "quanto", "quanti", "quanta", "quante", "qual", "quale", "quali",
    "abbiamo", "hanno", "ha", "avuto", "era", "sono", "stato", "stata", "mostrami", "dimmi",
    "dammi", "anno", "anni", "trimestre", "mese", "aveva", "avevano", "avevamo", "hai", "c",
    "erano", "esistevano",
    # averages and sums over periods (core.question.range_parse reads them): "media mensile
    # dei container" asks for an average of Containers handled, not a metric of that name
    "media", "medio", "medi", "average", "mean", "avg", "mensile", "monthly", "trimestrale",
    "quarterly", "semestrale", "somma"
]) - {"in"}
# "net" and "gross" are qualifiers, left out of the stems, but they contradict each other: a
# "net margin" is not the gross margin (never a substitute metric)
_NET = frozenset(("net", "netto", "netta", "netti", "nette"))
_GROSS = frozenset(("gross", "lordo", "lorda", "lordi", "lorde"))
# ... and so do "net" and "operating": a net profit is not the operating profit (EBIT)
_OPERATING = frozenset(("operating", "operativo", "operativa", "operativi", "operative"))
# ranking and comparison words end a phrase: "venduto più tonnellate" asks which period sold
# the most tonnes, "più" is no word of the metric's (core.question.range_parse reads it)
_FRAME |= frozenset((
    "più", "piu", "meno", "most", "least", "more", "less", "fewer", "fewest", "highest",
    "lowest", "higher", "lower", "bigger", "biggest", "smaller", "smallest", "larger",
    "largest", "greater", "greatest", "maggiore", "minore"))
# a basis that makes another figure of a metric: "like-for-like sales" are not sales,
# "adjusted EBITDA" is not EBITDA; unless the metric's own name says so, there is no such figure
_BASIS = re.compile(
    r"\b(?:like (?:for|4) like|lfl|same stores?|organic|adjusted|underlying|pro ?forma"
    r"|constant currency|a parita di perimetro|rettificat[oaie]|normali[sz]ed)\b")
_BASIS_CJK = re.compile(r"同店|可比门店|可比|经调整|调整后|有机|固定汇率")
_SOFT = frozenset(("and", "e", "ed", "&", ",", "/", "vs", "versus", "or", "o"))
_HARD = frozenset(("?", "!", ";", "(", ")", "？"))
_ALIKE = {"spent": "used", "spend": "used", "spending": "used", "generated": "provided",
          "generate": "provided", "utilizzato": "used", "impiegato": "used"}
_SUFFIXES = ("ments", "ment", "ings", "ing", "ions", "ion", "ities", "ity", "ed")


def stem(word: str) -> str:
    """A word's comparable stem: "investing" and "investment", "fixtures" and "fixture",
    "margine" and "margin" alike (the same on the question's side and the name's)."""
    word = _ALIKE.get(word, word)
    for tail in _SUFFIXES:
        if word.endswith(tail) and len(word) - len(tail) >= 4:
            return word[: -len(tail)]
    for tail, keep in (("ies", "y"), ("es", "e"), ("s", "")):
        if word.endswith(tail) and len(word) - len(tail) >= 3 and not word.endswith("ss"):
            word = word[: -len(tail)] + keep
            break
    if len(word) >= 5 and word[-1] in "aeiou":
        word = word[:-1]
    return word


def names_basis(text: str) -> bool:
    """Whether `text` says a basis that makes another figure ("like-for-like", "adjusted")."""
    return (_BASIS.search(" ".join(_WORD.findall(comparable(text)[0]))) is not None
            or _BASIS_CJK.search(text) is not None)


def polarity(words: list[str]) -> frozenset[str]:
    """Which of "net", "gross" and "operating" the words say (any, one or none)."""
    said = set(words)
    return frozenset(k for k, ws in (("net", _NET), ("gross", _GROSS),
                                     ("operating", _OPERATING)) if said & ws)


def content_stems(words: list[str]) -> frozenset[str]:
    """The stems that say what a name or phrase is about (no stop words, no qualifiers)."""
    return frozenset(
        stem(w) for w in words if w not in _STOP and w not in _QUALIFIERS and w.isalpha()
    )


def _name_words(name: str) -> list[str]:
    folded = _QUALIFIER_RUNS.sub(" ", comparable(name)[0])
    return [w for w in _WORD.findall(folded) if w[0].isalnum()]


@dataclass(frozen=True)
class PhraseVerdict:
    """What one phrase of the question names: a metric read (`code`), a choice between
    metrics (`choices`), or no metric the glossary has (`unnamed`)."""

    raw: str
    start: int
    end: int
    code: str = ""
    name: str = ""
    choices: tuple[str, ...] = ()
    unnamed: bool = False


@dataclass
class _Word:
    text: str
    start: int  # original offsets
    end: int
    role: str  # "content", "stop", "soft", "hard"
    unread: bool = False
    metric: str = ""


@dataclass
class MetricPhrases:
    """Every Latin metric name of a glossary as content stems, compiled once."""

    glossary: Glossary
    _names: list[tuple[str, str, frozenset[str]]] = field(default_factory=list)
    _polarity: list[frozenset[str]] = field(default_factory=list)  # per name: net / gross
    _vocabulary: frozenset[str] = frozenset()
    _terms: dict = field(default_factory=dict)  # type: ignore[type-arg]

    def __post_init__(self) -> None:
        g = self.glossary
        terms = {**g.metrics, **{c: d.term for c, d in g.derived.items()}}
        self._terms = terms
        for code, term in terms.items():
            for name in (*term.names, *term.forms):  # a form is read, never shown
                stems = content_stems(_name_words(name))
                if stems and not _CJK.search(name):  # Latin, accents included ("attività")
                    shown = name if name in term.names else term.names[0]
                    self._names.append((code, shown, stems))
                    self._polarity.append(polarity(_name_words(name)))
        self._vocabulary = frozenset(s for _, _, stems in self._names for s in stems)

    def vocabulary(self) -> frozenset[str]:
        """Every stem of a metric name (what `ricorda check` compares other names with)."""
        return self._vocabulary

    def read(
        self,
        text: str,
        metric_spans: list[tuple[int, int, str]],
        other_spans: list[tuple[int, int]],
        *,
        open_spans: list[tuple[int, int]] = (),  # type: ignore[assignment]
    ) -> list[PhraseVerdict]:
        """A verdict for each phrase of `text` that holds an unread word. `metric_spans` are
        the exact metric matches (start, end, code); `other_spans` end a phrase (entities,
        periods); `open_spans` (channel or entity names) count as words of a phrase, as a
        metric may share them ("stores" in "number of stores")."""
        words = self._words(text, metric_spans, other_spans, list(open_spans))
        out: list[PhraseVerdict] = []
        for run in _runs(words):
            verdict = self._judge(text, run)
            if (verdict is None or verdict.unnamed) and any(w.role == "soft" for w in run):
                # a list ("revenue and EBITDA margin"): each part on its own
                out += [p for p in (self._judge(text, part) for part in _split(run, "soft"))
                        if p is not None]
                continue
            if verdict is not None:
                out.append(verdict)
        return out

    def read_basis_cjk(self, text: str, metric_spans: list[tuple[int, int, str]]
                       ) -> list[PhraseVerdict]:
        """"同店销售额" (same-store sales) right before a metric's Chinese name that does not
        say it: no such figure, never the plain metric."""
        out: list[PhraseVerdict] = []
        for m in _BASIS_CJK.finditer(text):
            for start, end, code in metric_spans:
                if 0 <= start - m.end() <= 1 and not any(
                        m.group() in n for n in self._terms[code].names):
                    out.append(PhraseVerdict(text[m.start():end], m.start(), end,
                                             unnamed=True))
        return out

    def read_cjk(self, text: str, open_spans: list[tuple[int, int]]) -> list[PhraseVerdict]:
        """Chinese names of a channel or entity inside one metric's Chinese name ("门店" in
        "门店数量"): read as that metric (several: a choice). Chinese has no plurals or word
        order to undo, so containment is the whole test."""
        out: list[PhraseVerdict] = []
        for start, end in open_spans:
            raw = text[start:end]
            if raw.isascii():
                continue
            hits: dict[str, str] = {}
            for code, term in self._terms.items():
                for name in term.names:
                    if raw in name and raw != name and not name.isascii():
                        hits.setdefault(code, name)
            if len(hits) == 1:
                code, name = next(iter(hits.items()))
                out.append(PhraseVerdict(raw, start, end, code=code, name=name))
            elif hits:
                out.append(PhraseVerdict(raw, start, end, choices=tuple(hits)))
        return out

    def _words(
        self,
        text: str,
        metric_spans: list[tuple[int, int, str]],
        other_spans: list[tuple[int, int]],
        open_spans: list[tuple[int, int]],
    ) -> list[_Word]:
        folded, offsets = comparable(text)
        folded = _QUALIFIER_RUNS.sub(lambda m: " " * len(m.group()), folded)
        out: list[_Word] = []
        for m in _WORD.finditer(folded):
            start, end = original_span(offsets, m.start(), m.end())
            w = m.group()
            metric = next((c for a, b, c in metric_spans if a <= start and end <= b), "")
            is_open = any(a <= start and end <= b for a, b in open_spans)
            ended = any(a <= start and end <= b for a, b in other_spans) and not is_open
            if ended or w in _HARD or w in _FRAME:
                role = "hard"
            elif w in _SOFT:
                role = "soft"
            elif w in _STOP or w in _QUALIFIERS or w.isdigit():
                role = "stop"
            else:
                role = "content"
            unread = role == "content" and not metric and (
                not is_open or stem(w) in self._vocabulary)
            if is_open and not unread and role == "content":
                role = "hard"  # a channel's word no metric shares ends the phrase
            out.append(_Word(w, start, end, role, unread, metric))
        return out

    def _judge(self, text: str, run: list[_Word]) -> PhraseVerdict | None:
        """The verdict on one phrase, or None when it holds nothing unread worth a verdict."""
        content = [w for w in run if w.role == "content"]
        if not any(w.unread for w in content):
            return None
        stems = content_stems([w.text for w in content])
        named = {w.metric for w in content if w.metric}
        basis = _BASIS.search(" ".join(w.text for w in run))
        if basis and named and not any(
                basis.group() in " ".join(_name_words(n)) for code in named
                for n in (*self._terms[code].names, *self._terms[code].forms)):
            start, end = run[0].start, run[-1].end
            return PhraseVerdict(text[start:end], start, end, unnamed=True)
        known = stems & self._vocabulary
        if not known:
            return None  # words no metric uses ("office"): nothing to read them as
        start, end = content[0].start, content[-1].end
        raw = text[start:end]
        fits: dict[str, tuple[float, str]] = {}
        partial: dict[str, float] = {}
        said = polarity([w.text for w in run])
        for (code, display, name), sign in zip(self._names, self._polarity, strict=True):
            shared = stems & name
            if not shared or (said and sign and not said & sign):
                continue  # "net margin" is not "Gross margin"
            score = 2 * len(shared) / (len(stems) + len(name))
            if 2 * len(shared) < len(name):
                score = min(score, OFFER_AT)  # half the name unsaid: offered, never read
            if known <= name:
                if score > fits.get(code, (0.0, ""))[0]:
                    fits[code] = (score, display)
            else:
                partial[code] = max(partial.get(code, 0.0), len(shared & known) / len(known))
        if named & fits.keys():
            return None  # the metric exact matching read fits: it stands
        if fits:
            ranked = sorted(fits.items(), key=lambda kv: -kv[1][0])
            best, (top, display) = ranked[0]
            close = [c for c, (s, _) in ranked if s >= OFFER_AT and top - s < CLOSE]
            if len(close) >= 2:
                return PhraseVerdict(raw, start, end, choices=tuple(close))
            if top < READ_AT:
                return None  # too weak to read
            return PhraseVerdict(raw, start, end, code=best, name=display)
        if named:  # one metric's name and another's words: no such figure, never either one
            return PhraseVerdict(raw, start, end, unnamed=True)
        ranked_partial = sorted(partial.items(), key=lambda kv: -kv[1])
        if len(ranked_partial) >= 2 and ranked_partial[0][1] == ranked_partial[1][1]:
            top = ranked_partial[0][1]
            return PhraseVerdict(raw, start, end, choices=tuple(
                c for c, s in ranked_partial if s == top))
        return None


def _runs(words: list[_Word]) -> list[list[_Word]]:
    """Maximal runs of words between hard breaks."""
    return [run for run in _split(words, "hard") if run]


def _split(words: list[_Word], role: str) -> list[list[_Word]]:
    out: list[list[_Word]] = [[]]
    for w in words:
        if w.role == role:
            out.append([])
        else:
            out[-1].append(w)
    return [run for run in out if run]
