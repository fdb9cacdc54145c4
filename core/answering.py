"""The dual-channel answerer: one entry point from question text to a finished answer.

Order matters and is fixed: clean the text, security gate, parse, clarification gate, then the
structured channel (numbers) and/or the narrative channel (cited explanations). Every answered
request is recorded as a turn with the plan that produced it.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import time
import unicodedata
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from core import render
from core.clarify import fill_slots, metric_options
from core.glossary import Glossary
from core.intent import Intent, RuleIntentParser
from core.language import detect_language
from core.messages import say
from core.names import NameIndex
from core.periods import normalize_period
from core.ports import FactStore, TurnRecord, TurnStore
from core.security import SecurityGate
from core.structured import StructuredChannel, two_period_difference
from core.types import Answer, FactResult, FactStatus, Request, Route, Source

log = logging.getLogger("ricorda.answer")

DEFAULT_MAX_QUESTION_CHARS = 2000
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ufffd\ufeff]+")


@dataclass
class NarrativeAnswer:
    text: str
    sources: list[Source] = field(default_factory=list)
    found: bool = True
    plan: list[dict[str, object]] = field(default_factory=list)


class NarrativeChannel(Protocol):
    """Explains from documents; implemented by the retrieval + synthesis stack."""

    def explain(
        self, question: str, *, language: str, intent: Intent, cleared: bool
    ) -> NarrativeAnswer: ...


class Answerer:
    def __init__(
        self,
        *,
        glossary: Glossary,
        facts: FactStore,
        turns: TurnStore | None = None,
        narrative: NarrativeChannel | None = None,
        today: Callable[[], dt.date] = dt.date.today,
        new_id: Callable[[], str] = lambda: uuid.uuid4().hex[:16],
        max_question_chars: int = DEFAULT_MAX_QUESTION_CHARS,
    ) -> None:
        self.glossary = glossary
        self.names = NameIndex(glossary)
        self.gate = SecurityGate(self.names)
        self.parser = RuleIntentParser(self.names)
        self.structured = StructuredChannel(names=self.names, facts=facts)
        self.turns = turns
        self.narrative = narrative
        self.today = today
        self.new_id = new_id
        self.max_question_chars = max_question_chars

    def answer(self, request: Request) -> Answer:
        started = time.perf_counter()
        text, notices = self._clean(request.text)
        language = detect_language(text)
        notices = [say("truncated", language, limit=self.max_question_chars)] if notices else []
        if not text.strip():
            ans = Answer(self.new_id(), Route.UNKNOWN, "planner", say("usage", language), language)
            ans.latency_ms = (time.perf_counter() - started) * 1000
            return ans
        ans = self._answer(text, request, language)
        if notices:
            ans.text = "\n".join([*notices, ans.text])
            ans.notices = notices
        ans.latency_ms = (time.perf_counter() - started) * 1000
        self._record(request, text, ans)
        return ans

    # -- steps -----------------------------------------------------------------------------

    def _clean(self, raw: str | None) -> tuple[str, bool]:
        """NFKC, control characters and binary garbage removed, length capped."""
        text = unicodedata.normalize("NFKC", raw or "")
        text = _CONTROL.sub(" ", text)
        truncated = len(text) > self.max_question_chars
        return (text[: self.max_question_chars] if truncated else text), truncated

    def _answer(self, text: str, request: Request, language: str) -> Answer:
        cleared = self.glossary.is_cleared(request.chat)
        verdict = self.gate.check(text, cleared=cleared, fixed_slots=request.fixed_slots)
        if not verdict.allowed:
            log.info("refused chat=%s reason=%s", request.chat, verdict.reason)
            return self._plain(Route.REFUSED, "refused", language, cleared)
        reference = request.reference_date or self.today()
        intent = self.parser.parse(verdict.text, reference)
        bad_fixed = self._apply_fixed_slots(intent, request.fixed_slots, reference)
        if bad_fixed is not None:
            ans = self._new(Route.STRUCTURED, language)
            ans.facts = [bad_fixed]
            ans.text = render.unrecognized_line(self.glossary, bad_fixed, language, cleared=cleared)
            return ans
        if intent.route is Route.UNKNOWN:
            return self._plain(Route.UNKNOWN, "not_understood", language, cleared)
        if intent.route is Route.NARRATIVE:
            return self._narrative(text, intent, language, cleared)
        if not intent.metrics:
            ans = self._new(Route.CLARIFY, language)
            ans.options = metric_options(self.glossary, language)
            labels = ", ".join(o.label for o in ans.options)
            ans.text = say("ask_metric", language, metrics=labels)
            return ans
        ans = self._structured(intent, reference, language, cleared)
        if intent.route is Route.COMPOSITE:
            self._add_attribution(ans, text, intent, language, cleared)
        return ans

    def _apply_fixed_slots(
        self, intent: Intent, fixed: dict[str, str], reference: dt.date
    ) -> FactResult | None:
        """A tapped option pins one slot; an unknown value is reported, never silently used."""
        for slot, value in fixed.items():
            if slot == "period":
                period = normalize_period(value, reference, self.glossary.fiscal_year_end)
                if period is None:
                    return FactResult(FactStatus.UNRECOGNIZED, param="period", raw=value)
                intent.periods, intent.bad_periods = [period], []
                continue
            code = self.names.normalize(slot, value) if slot in NameIndex.KINDS else None
            if code is None:
                return FactResult(FactStatus.UNRECOGNIZED, param=slot, raw=value)
            if slot == "metric":
                intent.metrics = [code]
            elif slot == "entity":
                intent.entities, intent.unknown_entities = [code], []
            else:
                intent.channels = [code]
        if fixed and intent.route in (Route.UNKNOWN, Route.NARRATIVE) and intent.metrics:
            intent.route = Route.COMPOSITE if intent.narrative_cue else Route.STRUCTURED
        return None

    def _structured(
        self, intent: Intent, reference: dt.date, language: str, cleared: bool
    ) -> Answer:
        slots = fill_slots(
            intent,
            glossary=self.glossary,
            structured=self.structured,
            reference_date=reference,
            language=language,
            cleared=cleared,
        )
        results = self.structured.query_all(
            slots.metrics, slots.entities, slots.periods, slots.channels, cleared=cleared
        )
        results += [
            FactResult(FactStatus.UNRECOGNIZED, param="entity", raw=raw)
            for raw in intent.unknown_entities
        ]
        if not intent.periods:
            results += [
                FactResult(FactStatus.UNRECOGNIZED, param="period", raw=raw)
                for raw in intent.bad_periods
            ]
        difference = two_period_difference(results)
        ans = self._new(
            Route.STRUCTURED if intent.route is Route.STRUCTURED else Route.COMPOSITE, language
        )
        ans.facts = results
        ans.assumptions = slots.assumptions
        ans.options = slots.options
        ans.sources = _unique([r.fact.source for r in results if r.fact is not None])
        ans.plan = [
            {
                "tool": "query_metric",
                "args": {
                    "metric": r.metric,
                    "entity": r.entity,
                    "channel": r.channel,
                    "period": r.period.code if r.period else None,
                },
            }
            for r in results
            if r.status is not FactStatus.UNRECOGNIZED
        ]
        lines = [
            render.structured_text(self.glossary, results, difference, language, cleared=cleared)
        ]
        if slots.assumptions:
            lines.append(render.assumptions_line(slots.assumptions, language))
        if slots.options:
            lines.append(say("narrow", language))
        ans.text = "\n".join(lines)
        return ans

    def _narrative(self, text: str, intent: Intent, language: str, cleared: bool) -> Answer:
        ans = self._new(Route.NARRATIVE, language)
        result = self._explain(text, intent, language, cleared)
        ans.text = result.text
        ans.sources = result.sources
        ans.plan = result.plan
        return ans

    def _add_attribution(
        self, ans: Answer, text: str, intent: Intent, language: str, cleared: bool
    ) -> None:
        result = self._explain(text, intent, language, cleared)
        ans.text = f"{ans.text}\n\n{say('attribution', language)}\n{result.text}"
        ans.sources = _unique([*ans.sources, *result.sources])
        ans.plan = [*ans.plan, *result.plan]

    def _explain(self, text: str, intent: Intent, language: str, cleared: bool) -> NarrativeAnswer:
        if self.narrative is None:
            return NarrativeAnswer(say("no_documents", language), found=False)
        return self.narrative.explain(text, language=language, intent=intent, cleared=cleared)

    # -- helpers ---------------------------------------------------------------------------

    def _new(self, route: Route, language: str) -> Answer:
        return Answer(
            turn_id=self.new_id(), route=route, served_by="planner", text="", language=language
        )

    def _plain(self, route: Route, key: str, language: str, cleared: bool) -> Answer:
        ans = self._new(route, language)
        ans.text = say(
            key, language, **render.scope_summary(self.glossary, language, cleared=cleared)
        )
        return ans

    def _record(self, request: Request, text: str, ans: Answer) -> None:
        if self.turns is None:
            return
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
            )
        )


def _unique(sources: list[Source]) -> list[Source]:
    return list(dict.fromkeys(sources))
