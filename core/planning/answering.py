"""The dual-channel answerer: from question text to a finished answer.

Order is fixed: clean the text, security gate, parse, clarification gate, then a plan that the
executor runs (structured channel for numbers, narrative channel for cited explanations, or a
tool). The same `execute` serves a freshly planned request and a replayed cached plan, so the
fast path can never answer differently from the planner.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import functools
import logging
import re
import time
import unicodedata
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Protocol, cast

from core.catalog.lookup import say
from core.catalog.presentation import plain_text
from core.contracts import thinking
from core.contracts.context import RequestContext
from core.contracts.deferred import Deferred, deferred
from core.contracts.errors import Unresolvable
from core.contracts.ports import (
    ConversationContext,
    ConversationStore,
    FactStore,
    TurnRecord,
    TurnStore,
)
from core.contracts.types import (
    Answer,
    Citation,
    FactResult,
    FactStatus,
    Line,
    Request,
    Route,
    Segment,
    Source,
    Table,
)
from core.documents.source_titles import source_title
from core.figures import render
from core.figures.clarify import fill_slots, metric_options
from core.figures.step_context import ExecutionContext
from core.figures.structured import StructuredChannel, two_period_difference
from core.knowledge.glossary import Glossary
from core.knowledge.names import NameIndex
from core.language import question_language
from core.planning.bounds import (
    Bounds,
    bound_segments,
    long_range_lines,
    lookups_asked,
    lookups_needed,
    overlong_range,
    table_cells,
    too_much_lines,
)
from core.planning.catalog import Catalog
from core.planning.executors import execute
from core.planning.model_planner import WORDS, Failure, ModelResult
from core.planning.plan import SLOT_KINDS, Plan
from core.planning.planner import plan_for
from core.question.arguments import extract_arguments
from core.question.conversation import (
    DEFAULT_TTL,
    ROUTE,
    TABLE,
    Conversations,
    carried_line,
)
from core.question.currency_asked import currency_notice
from core.question.intent import Intent, IntentParser, RuleIntentParser
from core.question.language_words import language_words
from core.question.period_labels import period_label
from core.question.periods import normalize_period
from core.question.read_as import read_as_notices
from core.question.scale_asked import scale_notice, shown_in_scale
from core.question.security import Gate, SecurityGate
from core.question.table_shape import MAX_SERIES, from_shape
from core.question.tool_intents import detect_tool

if TYPE_CHECKING:  # a "why" question builds the channel; a number never loads it
    from core.documents.narrative_tools import NarrativeTools

log = logging.getLogger("ricorda.answer")

DEFAULT_MAX_QUESTION_CHARS = 2000
_NAMED_KEPT = 1024  # short questions whose own parse the follow-up check keeps
# controls, lone surrogates (bytes that were not UTF-8), replacement characters and the BOM
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffd\ufeff]+")


_NOT_PLANNED = object()


class ReadsQuestions(Protocol):
    """What the answerer asks of a model planner (core.planning.model_planner.ModelPlanner; a
    test may hand in a fake): a reading of the question, or the failure that leaves the rules'
    answer standing."""

    def read(
        self, question: str, *, cleared: bool, reference: dt.date,
        context: ConversationContext | None = None,
    ) -> ModelResult: ...


@dataclass
class Prepared:
    """A request that passed the gates: what planning and replay both start from."""

    request: Request
    context: RequestContext  # language, clearance, reference date, calendar: decided once
    intent: Intent
    tool: str | None
    notices: list[str] = field(default_factory=list)
    # the planner's plan, made once: the pipeline plans, then a replay's fit check asks again
    planned: Plan | object | None = field(default=_NOT_PLANNED, repr=False, compare=False)

    @property
    def text(self) -> str:
        """The question as cleaned and read (what is planned and cached)."""
        return self.context.text

    @property
    def language(self) -> str:
        return self.context.language

    @property
    def cleared(self) -> bool:
        return self.context.cleared

    @property
    def is_planned(self) -> bool:
        return self.planned is not _NOT_PLANNED

    @property
    def plan_made(self) -> Plan | None:
        """The plan made for it (None: clarify); only meaningful when `is_planned`."""
        return None if self.planned is _NOT_PLANNED else cast(Plan | None, self.planned)


class Answerer:
    def __init__(
        self,
        *,
        glossary: Glossary,
        facts: FactStore,
        turns: TurnStore | None = None,
        narrative: NarrativeTools | Deferred[NarrativeTools] | None = None,
        today: Callable[[], dt.date] = dt.date.today,
        now: Callable[[], dt.datetime] = lambda: dt.datetime.now().astimezone(),
        new_id: Callable[[], str] = lambda: uuid.uuid4().hex[:16],
        max_question_chars: int = DEFAULT_MAX_QUESTION_CHARS,
        rerank: bool = False,
        catalog: Catalog | None = None,
        conversations: ConversationStore | Deferred[ConversationStore] | None = None,
        conversation_ttl: dt.timedelta = DEFAULT_TTL,
        bounds: Bounds | None = None,
        model_planner: ReadsQuestions | None = None,
        names: NameIndex | None = None,
        parser: IntentParser | None = None,
        gate: Gate | None = None,
        glossary_version: int = 0,
    ) -> None:
        """`catalog`: this application's executors (built-ins plus approved macros).
        `narrative`, `conversations`: the documents channel and where follow-ups find their
        context (None: every question stands alone; a context older than `conversation_ttl` is
        not used); either may be handed built or as a `Deferred`, built on first use.
        `model_planner`: the last tier for what the rules cannot read (None: off).
        `names`, `parser`, `gate`: the glossary's name index, the intent parser and the
        security gate, as the builder made them (None: the rules' own, built from the
        glossary); a test may hand in fakes. `glossary_version`: which glossary this is (the
        builder's generation), carried by every request's context."""
        self.model_planner = model_planner
        self.last_model_result: ModelResult | None = None  # for the benchmark and logs
        self.glossary = glossary
        self._facts = facts
        self.catalog = catalog if catalog is not None else Catalog()
        self.names = names if names is not None else NameIndex(glossary)
        self.language_words = language_words(glossary)  # its names are no language evidence
        self.gate: Gate = gate if gate is not None else SecurityGate(self.names)
        self.parser: IntentParser = parser if parser is not None else RuleIntentParser(self.names)
        self.glossary_version = glossary_version
        self.structured = StructuredChannel(names=self.names, facts=facts)
        self.turns = turns
        self.narrative = deferred(narrative)  # built by the first plan that reads documents
        self.today = today
        self.now = now
        self.new_id = new_id
        self.max_question_chars = max_question_chars
        self.bounds = bounds or Bounds()  # work per question (core.planning.bounds)
        self.rerank = rerank
        self.conversations = (
            Conversations(conversations, ttl=conversation_ttl, now=now)
            if conversations is not None else None
        )
        # what a short question names on its own, by (text, reference date): the follow-up
        # check parses it before `prepare` does, on every short question while a context is
        # live; kept per answerer (a glossary reload builds a new one)
        self._named_in = functools.lru_cache(maxsize=_NAMED_KEPT)(self._parse_named)

    # -- conversations (core.question.conversation)
    # -------------------------------------------------

    def resolve(self, request: Request) -> Request:
        """A follow-up ("and Italy?") with the slots it inherits from its conversation fixed;
        any other request unchanged. Everything after this -- the gate, the cache, the
        record -- sees the resolved request."""
        if self.conversations is None:
            return request
        text, _ = self._clean(request.text)
        if not text.strip():
            return request
        reference = request.reference_date or self.today()
        return self.conversations.resolve(
            request, text, lambda t: self._named_in(t, reference),
            lambda: detect_tool(text),  # only for a short question with a live context
        )

    def _parse_named(self, text: str, reference: dt.date) -> Intent:
        """`text` parsed on its own, for the follow-up check (which reads it, never changes
        it): kept by `_named_in`, so a repeat need not parse it twice."""
        return self.parser.parse(self.gate.check(text, cleared=True).text, reference)

    def remember(
        self,
        request: Request,
        prepared: Prepared | Answer,
        ans: Answer,
        *,
        later: Callable[[Callable[[], None]], None] | None = None,
    ) -> None:
        """An answered figure becomes its conversation's context (stored by `later`, a
        serving process's writer, when given)."""
        if self.conversations is not None and isinstance(prepared, Prepared):
            self.conversations.remember(request, prepared.intent, ans, later=later)

    def usage(self, language: str) -> str:
        """"Ask me a question, for example: ..." with this knowledge base's names."""
        from core.knowledge.examples import usage_hint

        try:
            return usage_hint(self.glossary, self._facts.periods, language)
        except Exception:  # a hint must never fail a turn: the generic one
            log.exception("usage hint")
            return say("usage", language)

    def _chat_language(self, request: Request) -> str:
        """The language of a question that says none ("EBITDA 2024"): the conversation's
        previous answer's, else English."""
        context = self.conversations.context(request) if self.conversations else None
        return (context.language if context is not None else "") or "en"

    def prepare(self, request: Request) -> Prepared | Answer:
        """Clean, gate and parse; a refusal, a usage hint or a bad option is answered here."""
        text, truncated = self._clean(request.text)
        language = (question_language(text, self.language_words)
                    or self._chat_language(request))
        if not text.strip():  # examples from the loaded knowledge base, not the demo's
            return self._new(Route.UNKNOWN, language, self.usage(language))
        notices = [say("truncated", language, limit=self.max_question_chars)] if truncated else []
        cleared = self.glossary.is_cleared(request.chat)
        verdict = self.gate.check(text, cleared=cleared, fixed_slots=request.fixed_slots)
        if not verdict.allowed:
            log.info("refused chat=%s reason=%s", request.chat, verdict.reason)
            return self._with_notices(
                self._plain(Route.REFUSED, "refused", language, cleared), notices
            )
        reference = request.reference_date or self.today()
        intent = self.parser.parse(verdict.text, reference)
        if intent.readings:  # words read as names: the question as read, said so
            if not cleared and self.gate.any_restricted(intent.entities):
                return self._with_notices(
                    self._plain(Route.REFUSED, "refused", language, cleared), notices
                )
            text = intent.read_text
            notices += read_as_notices(self.glossary, intent.readings, language)
        bad_fixed = self._apply_fixed_slots(intent, request.fixed_slots, reference)
        if bad_fixed is not None:
            ans = self._new(
                Route.STRUCTURED,
                language,
                render.unrecognized_line(self.glossary, bad_fixed, language, cleared=cleared),
                kind="unrecognized",
            )
            ans.facts = [bad_fixed]
            return ans
        tool = detect_tool(verdict.text)
        limit = min(self.bounds.max_range_periods, MAX_SERIES)
        analysis = intent.analysis
        clipped = analysis is not None and bool(analysis.asked)  # answered over the data's part
        # the parser's periods, when it read the text as given (a reading rewrote it otherwise)
        found = intent.period_matches if not intent.readings else None
        long = overlong_range(verdict.text, reference, self.glossary.fiscal_year_end, limit,
                              language, found) if tool is None and not clipped else None
        if long is not None:  # never the range's two ends, silently
            ans = self._new(Route.STRUCTURED, language, "")
            ans.segments = [*long_range_lines(language, long, limit)]
            return self._with_notices(_bounded(ans), notices)
        asked = lookups_asked(intent, self.glossary)
        if asked > self.bounds.max_lookups:  # refused before a plan of that size is made
            ans = self._new(Route.STRUCTURED, language, "")
            ans.segments = [*too_much_lines(language, kind="lookups", asked=asked,
                                            limit=self.bounds.max_lookups)]
            return self._with_notices(_bounded(ans), notices)
        context = RequestContext(
            chat=request.chat, user=request.user, text=text, language=language, cleared=cleared,
            reference=reference, fiscal_year_end=self.glossary.fiscal_year_end,
            glossary_version=self.glossary_version)
        return Prepared(request, context, intent, tool, notices)

    def plan(self, prepared: Prepared) -> Plan | None:
        """The plan for this request, or None when it must be clarified or is not understood."""
        if prepared.planned is _NOT_PLANNED:
            prepared.planned = self._make_plan(prepared)
        return cast(Plan | None, prepared.planned)

    def _make_plan(self, prepared: Prepared) -> Plan | None:
        intent = prepared.intent
        if prepared.tool is None:
            if intent.route is Route.UNKNOWN:
                return None
            if intent.route in (Route.STRUCTURED, Route.COMPOSITE) and not intent.metrics:
                return None
        arguments = extract_arguments(
            prepared.text, prepared.context.reference, self.glossary.fiscal_year_end
        )
        plan = plan_for(
            intent,
            tool=prepared.tool,
            text=prepared.text,
            arguments=arguments,
            rerank=self.rerank,
            names=self.names,
        )
        return self.catalog.substitute(plan)  # an approved macro stands for these steps

    # -- the model planner (core.planning.model_planner) ------------------------------------

    def wants_model(self, prepared: Prepared) -> bool:
        """The rules left the request unresolved: no plan (a metric menu, "not understood"), or
        a word left where an entity or a period should be."""
        if self.model_planner is None or prepared.tool is not None:
            return False
        intent = prepared.intent
        if intent.route is Route.UNKNOWN and not intent.question:
            return False  # "hello", "thanks": nothing is asked, no model call is worth it
        return self.plan(prepared) is None or bool(intent.unknown_entities or intent.bad_periods)

    def model_plan(self, prepared: Prepared) -> tuple[Plan, Prepared] | None:
        """The model's plan for a request the rules left unresolved, with the request as the
        model read it; None (the rules' answer stands) on a timeout, an error, or a reading
        that fails the checks a tapped option would fail."""
        if self.model_planner is None or not self.wants_model(prepared):
            return None
        context = self.conversations.context(prepared.request) if self.conversations else None
        thinking.started()
        result = self.model_planner.read(
            prepared.text, cleared=prepared.cleared, reference=prepared.context.reference,
            context=context,
        )
        self.last_model_result = result
        if result.reading is None:
            return None
        intent = prepared.intent
        stated = _stated(intent)
        # what the rules read exactly stays theirs; the model fills only what they left
        reading = {k: v for k, v in result.reading.items() if k not in stated}
        words = _unplaced(intent)
        if words:
            reading[WORDS] = words
        overlaid = self._overlay(prepared, reading)
        plan = self.plan(overlaid) if overlaid is not None else None
        if overlaid is None or plan is None:
            log.info("model reading %s does not make a plan; the rules' answer stands", reading)
            self.last_model_result = replace(
                result, reading=None, failure=Failure("invalid", "the reading makes no plan"))
            return None
        plan.reading = reading
        return plan, overlaid

    def _overlay(self, prepared: Prepared, reading: dict[str, str]) -> Prepared | None:
        """The request with a model's reading filled in, checked as a tapped option is (the
        gate, codes that exist, periods that parse); None when the reading does not belong to
        this request: it names a slot the request states otherwise, or the request has other
        words the rules could not place."""
        intent = copy.deepcopy(prepared.intent)
        if reading.get(WORDS, "") != _unplaced(intent):
            return None
        stated = _stated(intent)
        if any(k in stated for k in reading):
            return None
        fixed = {k: v for k, v in reading.items() if k in (*SLOT_KINDS, TABLE)}
        verdict = self.gate.check(prepared.text, cleared=prepared.cleared, fixed_slots=fixed)
        if not verdict.allowed:
            return None
        if self._apply_fixed_slots(intent, fixed, prepared.context.reference) is not None:
            return None
        route = reading.get(ROUTE, "")
        if route == Route.NARRATIVE.value:
            intent.route, intent.analysis = Route.NARRATIVE, None
        elif intent.metrics:
            composite = route == Route.COMPOSITE.value and intent.analysis is None
            intent.route = Route.COMPOSITE if composite else Route.STRUCTURED
        else:
            return None
        return replace(prepared, intent=intent, planned=_NOT_PLANNED)

    def understood_line(self, intent: Intent, language: str) -> Line:
        """"Understood as: Revenue · ACME HK · FY2023": what a model-made plan read, to check."""
        g = self.glossary
        fye = g.fiscal_year_end
        items = [", ".join(g.label("metric", c, language) for c in intent.metrics)]
        if intent.entities:
            items.append(", ".join(g.label("entity", c, language) for c in intent.entities))
        if intent.periods:
            items.append(", ".join(period_label(p, language, fye) for p in intent.periods))
        if intent.channels:
            items.append(", ".join(g.label("channel", c, language) for c in intent.channels))
        if intent.route is Route.NARRATIVE:
            items = [*(i for i in items if i), say("understood_documents", language)]
        return Line("understood", say("understood_as", language, items=" · ".join(items)))

    def clarify(self, prepared: Prepared) -> Answer:
        """Not understood, or a number was asked for without saying which: ask."""
        language = prepared.language
        if prepared.intent.route is Route.UNKNOWN:
            ans = self._plain(Route.UNKNOWN, "not_understood", language, prepared.cleared)
        else:
            ans = self._new(Route.CLARIFY, language, "")
            ans.options = metric_options(self.glossary, language,
                                         only=prepared.intent.metric_choices)
            ans.segments = [Line("message", say(
                "ask_metric", language, metrics=", ".join(o.label for o in ans.options)))]
            from core.question.no_figure import missing_subject, no_figure_notice  # a menu only

            chosen = prepared.intent.metrics or prepared.intent.metric_choices
            subject = prepared.intent.unnamed_metric or ("" if chosen else (
                missing_subject(prepared.text, self.names, prepared.context.reference, language)))
            if subject:  # "customer churn rate": no such figure, said before the menu
                return self._with_notices(
                    ans, [*prepared.notices, no_figure_notice(subject, language)])
        return self._with_notices(ans, prepared.notices)

    # -- execution (planner and replay alike) ----------------------------------------------

    def run(self, plan: Plan, prepared: Prepared, *, served_by: str = "planner") -> Answer:
        """Execute the plan against this request; Unresolvable when a slot is missing."""
        intent = prepared.intent
        glossary = shown_in_scale(self.glossary, intent.scale)  # "in millions": as asked
        ctx = ExecutionContext(
            request=prepared.context,
            intent=intent,
            now=self.now(),
            glossary=glossary,
            structured=self.structured,
            narrative=self.narrative,
            turns=self.turns,
            turn_lookup=self._previous_turns,
            replay=served_by != "planner",
            max_lookups=self.bounds.max_lookups,
        )
        language = prepared.language
        over = self._past_bounds(plan, prepared)
        if over is not None:  # nothing runs: the reply says what was asked and the bound
            ans = self._new(Route.STRUCTURED, language, "")
            ans.served_by, ans.plan, ans.segments = served_by, plan.to_dict(), [*over]
            return self._with_notices(_bounded(ans), prepared.notices)
        state = execute(plan, ctx, self.catalog)
        route = {"tool": Route.STRUCTURED}.get(plan.route) or Route(plan.route)
        ans = self._new(route, language, "")
        ans.served_by = served_by
        ans.plan = plan.to_dict()
        segments: list[Segment] = []
        if state.tables:  # a series, breakdown, ranking or comparison (core.figures.tabulate)
            ans.facts, ans.assumptions = state.results, state.assumptions
            segments += state.tables
        elif plan.route in ("structured", "composite"):
            slots = fill_slots(intent, glossary=glossary, structured=self.structured,
                               request=prepared.context)
            results = state.results + [
                FactResult(FactStatus.UNRECOGNIZED, param="entity", raw=raw)
                for raw in intent.unknown_entities
            ]
            if not intent.periods:
                results += [
                    FactResult(FactStatus.UNRECOGNIZED, param="period", raw=raw)
                    for raw in intent.bad_periods
                ]
            ans.facts, ans.assumptions, ans.options = results, slots.assumptions, slots.options
            segments += render.structured_lines(
                glossary, results, two_period_difference(results), prepared.context)
            if slots.assumptions:
                segments.append(
                    Line("assumed", render.assumptions_line(slots.assumptions, language)))
            if slots.options:
                segments.append(Line("narrow", say("narrow", language)))
        if plan.reading is not None:  # a model read it: say how, so a reader can check
            segments.insert(0, self.understood_line(intent, language))
        numbered: list[tuple[int, Source]] = []
        if state.narrative is not None:
            if segments:
                segments.append(Line("attribution", say("attribution", language)))
            narrative = state.narrative
            if narrative.lead:
                kind = "degraded" if narrative.mode == "degraded" else "message"
                segments.append(Line(kind, narrative.lead))
            segments += narrative.passages
            numbered += narrative.numbered
        if numbered and state.table_sources:  # a growth and why: one numbering, figures last
            shift = len(numbered)
            segments = [_renumbered(seg, shift) if any(seg is t for t in state.tables) else seg
                        for seg in segments]
            numbered += list(enumerate(state.table_sources, shift + 1))
        else:
            numbered += list(enumerate(state.table_sources, 1))
        if state.tool_text is not None:
            segments.append(Line("tool", state.tool_text))
            numbered += list(enumerate(state.listed, 1))
        ans.segments = segments
        ans.citations = [
            Citation(n, src, source_title(src, language, self.glossary.titles))
            for n, src in numbered
        ]
        ans.sources = list(dict.fromkeys(state.sources))
        ans.succeeded = _succeeded(ans, state.narrative_found, plan)
        notices = list(prepared.notices)
        if intent.scale is not None and any(f.fact is not None for f in ans.facts):
            ans.facts = [replace(f, shown_power=intent.scale.power) if f.fact else f
                         for f in ans.facts]
            notices.append(scale_notice(intent.scale, language))
        currency = currency_notice(intent.currency, _units_shown(ans.facts),
                                   self.glossary.unit_kinds, language)
        if currency is not None:  # "in US dollars" on a CNY figure: said, never converted
            notices.append(currency)
        return self._with_notices(ans, notices)

    def replay(self, plan: Plan, prepared: Prepared, *, served_by: str) -> Answer | None:
        """A cached plan on this request, or None (a miss) when it does not fit the request."""
        target = self._as_read(plan, prepared)
        if target is None or not self._fits(plan, target):
            return None
        prepared = target
        try:
            return self.run(plan, prepared, served_by=served_by)
        except Unresolvable as exc:
            log.debug("cached plan does not fit: %s", exc)
            return None

    def fits(self, plan: Plan, prepared: Prepared) -> bool:
        """Same framework as the planner would produce, or a vague request and a plan that
        needs nothing from it (a clock question worded in a way the rules do not know).
        A model's plan fits a request its reading fills in to the same framework."""
        target = self._as_read(plan, prepared)
        return target is not None and self._fits(plan, target)

    def _as_read(self, plan: Plan, prepared: Prepared) -> Prepared | None:
        """The request as the plan reads it: a model's plan fills in its reading."""
        return prepared if plan.reading is None else self._overlay(prepared, plan.reading)

    def _fits(self, plan: Plan, prepared: Prepared) -> bool:
        if prepared.intent.unknown_entities or prepared.intent.bad_periods:
            return False
        if _vague(prepared):
            needs = {
                v
                for s in plan.steps
                for v in s.get("args", {}).values()
                if isinstance(v, str) and v.startswith("${") and v != "${query}"
            }
            return not needs
        own = self.plan(prepared)
        return own is not None and own.framework() == plan.framework()

    # -- helpers ---------------------------------------------------------------------------

    def finish(self, request: Request, ans: Answer, started: float) -> Answer:
        if request.carried and ans.route in (Route.STRUCTURED, Route.COMPOSITE):
            reference = request.reference_date or self.today()
            line = carried_line(request, self.glossary, ans.language, reference)
            if line is not None:  # said first: what the figures below were read with
                ans.segments = [line, *ans.segments]
        # the plain text is made here, once, from the final parts: every answer, planned,
        # replayed, refused or clarified, ends here before it is recorded or shown
        ans.text = plain_text(ans.segments, ans.citations, ans.language)
        limit = self.bounds.max_answer_chars
        if len(ans.text) > limit:  # the turn stores what is shown: the bounded answer
            sources = len(plain_text([], ans.citations, ans.language))
            room = max(100, limit - sources - 300)  # 300: the lines saying it was cut
            ans.segments = bound_segments(ans.segments, room, ans.language, limit=limit)
            ans.text = plain_text(ans.segments, ans.citations, ans.language)[:limit]
        ans.latency_ms = (time.perf_counter() - started) * 1000
        if request.text and request.text.strip():
            self._record(request, ans)
        return ans

    def _past_bounds(self, plan: Plan, prepared: Prepared) -> list[Line] | None:
        """The reply when this plan would look up or draw more than the bounds allow."""
        lookups = lookups_needed(plan)
        if lookups > self.bounds.max_lookups:
            return too_much_lines(prepared.language, kind="lookups", asked=lookups,
                                  limit=self.bounds.max_lookups)
        cells = table_cells(prepared.intent, self.glossary, prepared.cleared)
        if cells > self.bounds.max_table_cells:
            return too_much_lines(prepared.language, kind="cells", asked=cells,
                                  limit=self.bounds.max_table_cells)
        return None

    def _clean(self, raw: str | None) -> tuple[str, bool]:
        """NFKC, control characters and binary garbage removed, length capped."""
        text = unicodedata.normalize("NFKC", raw or "")
        text = _CONTROL.sub(" ", text)
        truncated = len(text) > self.max_question_chars
        return (text[: self.max_question_chars] if truncated else text), truncated

    def _apply_fixed_slots(
        self, intent: Intent, fixed: dict[str, str], reference: dt.date
    ) -> FactResult | None:
        """A tapped option pins one slot, a follow-up the slots it carried over (several
        values comma-joined); an unknown value is reported, never silently used."""
        for slot, value in fixed.items():
            if slot == ROUTE:  # a follow-up of a "why" figure: core.question.conversation
                intent.narrative_cue = value == Route.COMPOSITE.value
                continue
            if slot == TABLE:  # a follow-up of a table: drawn below, over the final slots
                continue
            if slot == "period":
                periods = [
                    normalize_period(v, reference, self.glossary.fiscal_year_end)
                    for v in value.split(",")
                ]
                if not periods or any(p is None for p in periods):
                    return FactResult(FactStatus.UNRECOGNIZED, param="period", raw=value)
                intent.periods, intent.bad_periods = [p for p in periods if p is not None], []
                continue
            codes = [
                self.names.normalize(slot, v) if slot in NameIndex.KINDS else None
                for v in value.split(",")
            ]
            if not codes or any(c is None for c in codes):
                return FactResult(FactStatus.UNRECOGNIZED, param=slot, raw=value)
            found = list(dict.fromkeys(c for c in codes if c is not None))
            if slot == "metric":
                intent.metrics = found
            elif slot == "entity":
                intent.entities, intent.unknown_entities = found, []
            else:
                intent.channels = found
        if fixed and intent.metrics and (
            intent.route in (Route.UNKNOWN, Route.NARRATIVE) or intent.narrative_cue
        ):
            intent.route = Route.COMPOSITE if intent.narrative_cue else Route.STRUCTURED
        if fixed.get(TABLE) and intent.analysis is None and intent.metrics:
            analysis = from_shape(
                fixed[TABLE],
                intent.periods,
                entities=len(intent.entities),
                channels=len(intent.channels),
            )
            if analysis is not None:  # else the figures themselves, as a list
                intent.analysis, intent.narrative_cue = analysis, False
                intent.route = Route.STRUCTURED
        return None

    def _previous_turns(self, chat: str) -> list[TurnRecord]:
        recent = getattr(self.turns, "recent_turns", None)
        return list(recent(5, chat=chat)) if recent else []

    def _new(self, route: Route, language: str, text: str, *, kind: str = "message") -> Answer:
        ans = Answer(
            turn_id=self.new_id(), route=route, served_by="planner", text=text, language=language
        )
        if text:
            ans.segments = [Line(kind, text)]
        return ans

    def _plain(self, route: Route, key: str, language: str, cleared: bool) -> Answer:
        summary = render.scope_summary(self.glossary, language, cleared=cleared)
        return self._new(route, language, say(key, language, **summary))

    @staticmethod
    def _with_notices(ans: Answer, notices: list[str]) -> Answer:
        if notices:
            ans.segments = [*(Line("notice", n) for n in notices), *ans.segments]
            ans.notices = [*notices, *ans.notices]
        return ans

    def _record(self, request: Request, ans: Answer) -> None:
        if self.turns is None:
            return
        text, _ = self._clean(request.text)
        ref = request.reference_date.isoformat() if request.reference_date else None
        self.turns.record_turn(
            TurnRecord(
                id=ans.turn_id,
                chat=request.chat,
                user=request.user,
                question=text,
                language=ans.language,
                route=ans.route_name,
                served_by=ans.served_by,
                plan=ans.plan,
                answer_text=ans.text,
                options=[o.to_dict() for o in ans.options],
                fixed_slots=dict(request.fixed_slots),
                latency_ms=ans.latency_ms,
                reference_date=ref,
                parent_turn=request.parent_turn,
                answer=ans.to_dict(),
                restricted=self.glossary.is_cleared(request.chat),
            )
        )


def _bounded(ans: Answer) -> Answer:
    """A reply past a bound: its notice is also in `notices` (ask --json), and no figure."""
    ans.notices = [line.text for line in ans.segments if isinstance(line, Line)
                   and line.kind == "notice"]
    return ans


def _stated(intent: Intent) -> set[str]:
    """The slots the rules read in the request."""
    lists = {"metric": intent.metrics, "entity": intent.entities,
             "period": intent.periods, "channel": intent.channels}
    return {k for k, v in lists.items() if v}


def _unplaced(intent: Intent) -> str:
    """The words the rules could not place (an unknown name, a broken period), casefolded:
    a model's reading of them belongs to requests with the same words."""
    return "|".join(sorted(w.casefold() for w in [*intent.unknown_entities, *intent.bad_periods]))


def _vague(prepared: Prepared) -> bool:
    """The rules did not recognise what is asked: only a slot-free plan may be replayed."""
    intent = prepared.intent
    if prepared.tool is not None:
        return False
    if intent.route is Route.UNKNOWN:
        return True
    stated = intent.metrics or intent.entities or intent.periods or intent.channels
    return intent.route is Route.NARRATIVE and not intent.narrative_cue and not stated


def _succeeded(ans: Answer, narrative_found: bool, plan: Plan) -> bool:
    """A real answer (registrable): every fact found or honestly not found, documents found."""
    if any(f.status is FactStatus.UNRECOGNIZED for f in ans.facts):
        return False
    return not (plan.route in ("narrative", "composite") and not narrative_found)


_CITE = re.compile(r"\[(\d+)(?:–(\d+))?\]")


def _renumbered(segment: Segment, shift: int) -> Segment:
    """A figure's citation numbers ("[1]", "[1–3]") moved past the passages' own, so a
    composite answer numbers its sources once."""

    def move(text: str) -> str:
        return _CITE.sub(lambda m: "[" + "–".join(str(int(g) + shift) for g in m.groups() if g)
                         + "]", text)

    if isinstance(segment, Line):
        return dataclasses.replace(segment, text=move(segment.text))
    if isinstance(segment, Table):
        return dataclasses.replace(segment, rows=tuple(tuple(move(c) for c in row)
                                                       for row in segment.rows))
    return segment


def _units_shown(facts: list[FactResult]) -> list[str]:
    """The units of the found figures an answer shows, computed ones' inputs included."""
    out: list[str] = []
    for f in facts:
        if f.fact is not None:
            out.append(f.fact.unit)
        unit = getattr(f, "unit", "")
        if f.status is FactStatus.FOUND and unit:
            out.append(unit)
        out += _units_shown(list(getattr(f, "inputs", ()) or ()))
    return out


def resolved_by_rules(prepared: Prepared, plan: Plan | None) -> bool:
    """The rule planner understood every part of a structured request: no unknown names or
    periods, a plan to run. Only its own plan could then answer it, whatever level served."""
    intent = prepared.intent
    return (
        plan is not None
        and plan.route == "structured"
        and prepared.tool is None
        and bool(plan.steps)
        and not intent.unknown_entities
        and not intent.bad_periods
    )
