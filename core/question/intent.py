"""Rule-based intent parsing: four slots (metric, entity, period, channel) plus a route.

No model is involved: the glossary's names, the period grammar and short cue lists
(core.question.intent_words) decide. The parser sits behind the `IntentParser` Protocol so a
smarter one can replace it without touching the gates or channels.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from core.contracts.types import Period, Route
from core.knowledge.fuzzy import Reading, Readings
from core.knowledge.names import NameIndex, blank
from core.question.currency_asked import AskedCurrency, asked_currency
from core.question.intent_words import (
    NARRATIVE,
    NOT_ENTITIES,
    QUESTION,
    STRONG_NUMERIC,
    TOPIC,
    TREND_ASKED,
    WEAK_NUMERIC,
    WORDS,
    subject_terms,
    unknown_names,
)
from core.question.periods import PeriodMatch, find_periods
from core.question.range_parse import detect_analysis
from core.question.scale_asked import AskedScale, asked_scale
from core.question.table_shape import Analysis

if TYPE_CHECKING:
    from core.knowledge.metric_phrase import MetricPhrases


@dataclass
class Intent:
    """What the question asks for. Lists keep the user's order; duplicates removed."""

    route: Route
    metrics: list[str] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)
    channels: list[str] = field(default_factory=list)
    periods: list[Period] = field(default_factory=list)
    bad_periods: list[str] = field(default_factory=list)  # looked like periods, were not valid
    unknown_entities: list[str] = field(default_factory=list)  # named, but not in the glossary
    relative_period: bool = False
    # periods named without a year ("Q3", "December") and read as the latest complete one
    latest_periods: list[tuple[str, Period]] = field(default_factory=list)
    numeric_cue: bool = False
    strong_numeric_cue: bool = False
    question: bool = False  # phrased as a question (for the documents when nothing else fits)
    narrative_cue: bool = False
    topic_cue: bool = False  # "tell me about", "parlami di", "介绍": about a thing, not a figure
    analysis: Analysis | None = None  # a table (core.question.table_shape)
    # words read as a name they were not written as (core.knowledge.fuzzy), and the question
    # as read with them; the answer states each one
    readings: list[Reading] = field(default_factory=list)
    read_text: str = ""
    # words naming what is asked about that no glossary name covers ("NPS", "magazzino"):
    # when the documents found mention none of them, the answer is "I don't have that"
    subject: list[str] = field(default_factory=list)
    # a metric named in other words that fits two metrics about equally (the reader picks),
    # or a phrase naming no metric the glossary has ("EBITDA margin"): never a substitute
    metric_choices: list[str] = field(default_factory=list)
    unnamed_metric: str = ""
    scale: AskedScale | None = None  # "in millions", "以亿元计": the figures shown so
    currency: AskedCurrency | None = None  # "in US dollars": a figure in another is said so
    # the periods found in the text read (names blanked, offsets kept): later steps read
    # these rather than parse the question's periods again
    period_matches: tuple[PeriodMatch, ...] = ()


class IntentParser(Protocol):
    def parse(self, text: str, reference_date: dt.date) -> Intent: ...


class RuleIntentParser:
    """Glossary-driven parser; `text` must already be security-gated (competitors blanked)."""

    def __init__(self, names: NameIndex, *, loose: bool = True) -> None:
        """`loose`: words exact matching leaves unread are read through a bounded edit
        distance (core.knowledge.fuzzy), and the question re-read with the corrections."""
        self.names = names
        self.fiscal_year_end = names.glossary.fiscal_year_end
        self.readings = Readings(names.glossary, never=NOT_ENTITIES) if loose else None
        self.loose = loose
        self._phrases: MetricPhrases | None = None  # built on the first unread phrase

    @property
    def phrases(self) -> MetricPhrases | None:
        """The close-phrase reader of metric names (core.knowledge.metric_phrase), built
        when a question first leaves a word unread: most processes never need it."""
        if self.loose and self._phrases is None:
            from core.knowledge.metric_phrase import MetricPhrases

            self._phrases = MetricPhrases(self.names.glossary)
        return self._phrases

    def parse(self, text: str, reference_date: dt.date) -> Intent:
        intent, taken = self._parse(text, reference_date)
        if self.readings is None or not _unread(intent, text, taken):
            return intent
        readings = self.readings.read(text, taken)
        if readings:
            text = corrected(text, readings)
            intent, taken = self._parse(text, reference_date)
            intent.readings, intent.read_text = readings, text
        return read_metric_phrases(self, intent, text, taken, reference_date)

    def _parse(self, text: str, reference_date: dt.date) -> tuple[Intent, list[tuple[int, int]]]:
        """The exact reading, and the spans it read (names and periods)."""
        found = self.names.find(text)
        money = asked_currency(text)
        if money is not None:  # "in US dollars" is a currency, not the unit named "US"
            found = [m for m in found if m.kind != "entity"
                     or not (money.start <= m.start and m.end <= money.end)]
        intent = Intent(route=Route.UNKNOWN)
        for m in found:
            bucket = {
                "metric": intent.metrics,
                "entity": intent.entities,
                "channel": intent.channels,
            }
            target = bucket[m.kind]
            if m.code not in target:
                target.append(m.code)
        rest = blank(text, [(m.start, m.end) for m in found])
        named, matches = rest, find_periods(rest, reference_date, self.fiscal_year_end)
        intent.period_matches = tuple(matches)
        for pm in matches:
            if pm.period is None:
                intent.bad_periods.append(pm.raw)
            elif pm.period not in intent.periods:
                intent.periods.append(pm.period)
                intent.relative_period |= pm.relative
                if pm.latest:
                    intent.latest_periods.append((pm.raw, pm.period))
            rest = blank(rest, [(pm.start, pm.end)])
        taken = [(m.start, m.end) for m in found] + [(pm.start, pm.end) for pm in matches]
        if money is not None:  # "in Australian dollars": read, never a misspelt name
            taken.append((money.start, money.end))
        intent.strong_numeric_cue = bool(STRONG_NUMERIC.search(rest))
        intent.numeric_cue = intent.strong_numeric_cue or bool(WEAK_NUMERIC.search(rest))
        intent.narrative_cue = bool(NARRATIVE.search(rest))
        intent.question = bool(QUESTION.search(rest)) and len(WORDS.findall(rest)) >= 2
        if intent.metrics or intent.numeric_cue:
            intent.unknown_entities = unknown_names(rest, bool(intent.metrics))
        if not intent.metrics:
            intent.subject = subject_terms(rest, named_any=bool(found))
        intent.topic_cue = bool(TOPIC.search(rest))
        intent.scale = asked_scale(rest)
        intent.currency = asked_currency(rest)  # "in US dollars": said, never converted
        self._analyse(intent, named, matches, reference_date)
        intent.route = _route(intent)
        return intent, taken


    def _analyse(self, intent: Intent, named: str, matches: list[PeriodMatch],
                 reference: dt.date) -> None:
        """A series, breakdown or ranking: its periods replace the end points, and a "trend"
        cue asks for the series, not for a "why" (one that is left still makes a composite)."""
        analysis = detect_analysis(
            named, matches, metrics=intent.metrics, entities=intent.entities,
            channels=intent.channels, reference_date=reference,
            fiscal_year_end=self.fiscal_year_end,
            first_metric=next(iter(self.names.glossary.metrics), ""),
        )
        if analysis is None:
            return
        why = bool(NARRATIVE.search(blank(named, list(analysis.spans))))
        if why and (analysis.kind != "growth" or not intent.strong_numeric_cue):
            return  # "why did China revenue fall?": the figure and why, no growth asked
        if (
            analysis.kind == "series"
            and intent.strong_numeric_cue
            and len(matches) <= 1
            and TREND_ASKED.search(named)
        ):
            # "…是多少，趋势如何": the figure asked for, and its trend explained (a composite),
            # not a series of periods it did not name
            intent.narrative_cue = True
            return
        if intent.unknown_entities or (intent.bad_periods and not analysis.periods):
            return  # said as today: the name or period it does not know
        # "how much did Italian revenue grow in 2025 and why?": the growth and its reasons
        intent.analysis, intent.narrative_cue = analysis, why
        if analysis.periods:
            intent.periods, intent.bad_periods = list(analysis.periods), []
        if analysis.assumed_metric:
            intent.metrics = [analysis.assumed_metric]


_CONTENT_WORD = re.compile(r"[A-Za-z\u00c0-\u024f]{4,}")  # Latin: "margin" in "margin是多少"


def _unread(intent: Intent, text: str, taken: list[tuple[int, int]]) -> bool:
    """Whether exact matching left something a loose reading could fill: no metric, a name
    it does not know, or a content word outside every name and period."""
    if intent.unknown_entities or not intent.metrics:
        return True
    rest = blank(text, taken)
    if any(w.casefold() not in NOT_ENTITIES for w in _CONTENT_WORD.findall(rest)):
        return True
    from core.knowledge.metric_phrase import names_basis  # "like-for-like": another figure

    return names_basis(rest)


def read_metric_phrases(
    parser: RuleIntentParser,
    intent: Intent,
    text: str,
    taken: list[tuple[int, int]],
    reference: dt.date,
) -> Intent:
    """`intent` with a metric named in other words read as it (core.knowledge.metric_phrase),
    or its choices or missing figure recorded; asked only when a content word is left unread."""
    if parser.phrases is None or not _unread(intent, text, taken):
        return intent
    found = parser.names.find(text)
    metric_spans = [(m.start, m.end, m.code) for m in found if m.kind == "metric"]
    counted = intent.numeric_cue or bool(intent.periods)  # "how many stores": a figure asked
    open_spans = [] if metric_spans or not counted else [
        (m.start, m.end) for m in found if m.kind != "metric"]
    others = [t for t in taken if not any(t[0] == a and t[1] == b for a, b, _ in metric_spans)]
    if intent.analysis is not None:  # a ranking's "top" is its cue, never a metric's word
        others += [s for s in intent.analysis.spans
                   if not any(a <= s[0] and s[1] <= b for a, b, _ in metric_spans)]
    verdicts = parser.phrases.read(text, metric_spans, others, open_spans=open_spans)
    verdicts += parser.phrases.read_cjk(text, open_spans)
    verdicts += parser.phrases.read_basis_cjk(text, metric_spans)
    if not verdicts:
        return intent
    reads = [Reading("metric", v.code, v.name, v.raw, v.start, v.end, 0)
             for v in verdicts if v.code]
    if reads:
        read_text = corrected(text, reads)
        again, _ = parser._parse(read_text, reference)
        again.readings = [*intent.readings, *reads]
        again.read_text = read_text
        intent = again
    inside = [v for v in verdicts if not v.code]
    for v in inside:  # a metric whose words stand in a longer phrase is not what was asked
        named = {c for a, b, c in metric_spans if v.start <= a and b <= v.end}
        intent.metrics = [m for m in intent.metrics if m not in named]
        intent.metric_choices += [c for c in v.choices if c not in intent.metric_choices]
        if v.unnamed and not intent.unnamed_metric:
            intent.unnamed_metric = v.raw
    if inside and not intent.metrics:
        intent.route = Route.STRUCTURED
        intent.analysis = None
    return intent


def corrected(text: str, readings: list[Reading]) -> str:
    """`text` with each reading's words replaced by the name they were read as."""
    out, at = [], 0
    for r in sorted(readings, key=lambda r: r.start):
        out += [text[at : r.start], r.name]
        at = r.end
    return "".join(out) + text[at:]


def _route(intent: Intent) -> Route:
    has_metric = bool(intent.metrics)
    if intent.narrative_cue:
        return Route.COMPOSITE if has_metric else Route.NARRATIVE
    asked = intent.numeric_cue or intent.question
    if not has_metric and asked and any(t.isupper() for t in intent.subject):
        return Route.NARRATIVE  # "how much is our NPS?": the documents decide, not a menu
    if has_metric or intent.strong_numeric_cue:
        return Route.STRUCTURED
    if (intent.entities or intent.channels) and not (intent.periods or intent.bad_periods) and (
        intent.topic_cue or (intent.question and not intent.numeric_cue)
    ):
        return Route.NARRATIVE  # "tell me about Hong Kong", "介绍一下香港"
    if intent.entities or intent.periods or intent.channels or intent.bad_periods:
        # "Orbis China 2024": something we know, but not which number -> ask for the metric
        return Route.STRUCTURED
    if intent.numeric_cue or intent.question:
        return Route.NARRATIVE  # "what is Project Heron?", "which store has a tea bar?"
    return Route.UNKNOWN
