"""Follow-ups: "What was Orbis China revenue in FY2024?" then "and Italy?".

Each conversation (a private chat, a Slack thread, one member of a Telegram group: the adapters
choose the key) remembers the slots of its last answered request. A short question that names
only some slots, with a follow-up cue ("and …", "what about …", "e nel …", "那…呢") or without
a metric of its own, inherits the rest. Inheriting is done the way a tapped option pins a slot:
the carried values become `fixed_slots` of the resolved request, so everything downstream --
the security gate, the plan cache's key, the recorded turn, a later tap on its buttons -- sees
the resolved request, never the follow-up's text alone.

Deliberately conservative: a question that names a metric, an entity and a period is
self-contained and never changed; a question with a narrative cue ("and why?") is left alone;
a context older than the TTL, or from another chat or thread, is never used.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import cast

from core.catalog.lookup import say
from core.contracts.deferred import Deferred, deferred
from core.contracts.ports import ConversationContext, ConversationStore
from core.contracts.types import Answer, Line, Request, Route
from core.knowledge.glossary import Glossary
from core.question.intent import Intent
from core.question.period_labels import period_label
from core.question.periods import normalize_period
from core.question.series_parse import expand

log = logging.getLogger("ricorda.conversation")

DEFAULT_TTL = dt.timedelta(minutes=30)
SLOTS = ("metric", "entity", "period", "channel")
STANDALONE = "-"  # a request's conversation key that has none: it reads and keeps no context
ROUTE = "route"  # a pseudo-slot: a follow-up of a "why" figure stays composite
TABLE = "table"  # a pseudo-slot: a follow-up of a table is that table again (Analysis.shape)
MAX_WORDS = 8  # longer than this is a question of its own, whatever it starts with
MAX_HAN = 16

# a question that opens (or, in Chinese, ends) like this continues the previous one
_CUE = re.compile(
    r"^\W*(?:and|also|plus|what\s+about|how\s+about|what\s+if|same(?:\s+(?:for|but|with|in))?"
    r"|now|then|instead|ok(?:ay)?\s*,?\s*(?:and|what\s+about|now)"
    r"|e|ed|anche|invece|inoltre|lo\s+stesso|la\s+stessa|stessa\s+cosa|idem|e\s+invece"
    r"|ora|adesso|mentre)(?!\w)"
    r"|\b(?:instead|too|as\s+well|invece)\W*$"
    r"|^\W*(?:那|那么|还有|换成|改成|同样|再看|如果是|至于)|[呢]\W*$",
    re.IGNORECASE,
)
_LATIN_WORD = re.compile(r"[^\W\d_]+|\d+")
_HAN = re.compile(r"[\u4e00-\u9fff]")


def is_short(text: str) -> bool:
    latin = _LATIN_WORD.findall(_HAN.sub(" ", text))
    return len(latin) <= MAX_WORDS and len(_HAN.findall(text)) <= MAX_HAN


def has_cue(text: str) -> bool:
    return bool(_CUE.search(text.strip()))


def carried_slots(
    text: str, intent: Intent, context: ConversationContext, *, tool: str | None = None
) -> dict[str, str]:
    """The slots `text` inherits from `context`, as fixed-slot values (codes, comma-joined
    for several); empty when it is not a follow-up. `intent` is `text` parsed on its own."""
    if tool is not None or intent.narrative_cue or not context.metrics:
        return {}
    named = {
        "metric": bool(intent.metrics),
        "entity": bool(intent.entities or intent.unknown_entities),
        "period": bool(intent.periods or intent.bad_periods),
        "channel": bool(intent.channels),
    }
    if not any(named.values()):
        return {}  # nothing to substitute: "and?", "ok", a question about something else
    if named["metric"] and named["entity"] and named["period"]:
        return {}  # self-contained
    if not is_short(text):
        return {}
    if named["metric"] and not has_cue(text):
        return {}  # "EBITDA 2024?" is a question of its own (with assumptions)
    values = {
        "metric": context.metrics,
        "entity": context.entities,
        "period": context.periods,
        "channel": context.channels,
    }
    out = {slot: ",".join(values[slot]) for slot in SLOTS if not named[slot] and values[slot]}
    if out and context.route == Route.COMPOSITE.value:
        out[ROUTE] = Route.COMPOSITE.value
    if out and context.table and intent.analysis is None and _keeps_table(context.table, named):
        out[TABLE] = context.table
    return out


def _keeps_table(shape: str, named: dict[str, bool]) -> bool:
    """Whether a follow-up still asks for the previous table: a series unless it names a
    period ("and 2020?" is one figure), a breakdown, ranking or comparison unless it names a
    member of the dimension the table runs over ("and Italy?" after a breakdown by entity is
    Italy's figure)."""
    kind, _, rest = shape.partition(":")
    if kind == "series":
        return not named["period"]
    dimension = rest.partition(":")[0]
    return dimension in named and not named[dimension]


class Conversations:
    """Resolves follow-ups against the stored context and remembers answered requests."""

    def __init__(
        self,
        store: ConversationStore | Deferred[ConversationStore],
        *,
        ttl: dt.timedelta = DEFAULT_TTL,
        now: Callable[[], dt.datetime],
    ) -> None:
        # deferred: a process that never meets a follow-up never opens the store
        self.store = cast("Deferred[ConversationStore]", deferred(store))
        self.ttl = ttl
        self.now = now
        # contexts handed to a writer (`remember(..., later=...)`) and not stored yet: this
        # process's next follow-up reads them from here
        self._pending: dict[tuple[str, str], ConversationContext] = {}
        self._lock = threading.Lock()

    def context(self, request: Request) -> ConversationContext | None:
        """The live context of the request's conversation, or None (none, or expired)."""
        if self.ttl <= dt.timedelta(0) or request.conversation == STANDALONE:
            return None
        key = (request.chat, request.conversation_key)
        with self._lock:
            found = self._pending.get(key)
        if found is None:
            found = self.store.get().load(*key)
        if found is None or found.at.astimezone(dt.UTC) + self.ttl < self._now():
            return None
        return found

    def resolve(
        self, request: Request, text: str, parse: Callable[[str], Intent],
        tool: Callable[[], str | None],
    ) -> Request:
        """`request` with the slots it inherits fixed (and listed in `carried`), or itself.

        A tapped option (`parent_turn`) already carries its stored question's slots; a request
        with pinned slots is not a free-text follow-up."""
        if request.parent_turn or request.fixed_slots or request.carried or not is_short(text):
            return request  # a long question is its own: not even a read
        context = self.context(request)
        if context is None:
            return request
        carried = carried_slots(text, parse(text), context, tool=tool())
        if not carried:
            return request
        log.debug("follow-up in %s carries %s", request.conversation_key, sorted(carried))
        return replace(request, fixed_slots=carried, carried=tuple(carried))

    def remember(
        self,
        request: Request,
        intent: Intent | None,
        ans: Answer,
        *,
        later: Callable[[Callable[[], None]], None] | None = None,
    ) -> None:
        """Keep the slots of an answered figure as the conversation's context. Refusals,
        clarifications, "why" questions without a figure and tapped options leave it as it
        was (a tap is keyed by chat, not by the thread it was tapped in).

        `later` (a serving process's writer): the store write is handed to it, off the answer
        path; until it is done this process reads the context from memory. A follow-up comes
        seconds later, so another replica finds it stored; a crash in between costs that
        follow-up its context, never an answer."""
        if intent is None or request.parent_turn or not ans.succeeded or not intent.metrics:
            return
        if ans.route not in (Route.STRUCTURED, Route.COMPOSITE) or self.ttl <= dt.timedelta(0):
            return
        if request.conversation == STANDALONE:
            return
        context = ConversationContext(
            metrics=tuple(intent.metrics),
            entities=tuple(intent.entities),
            periods=tuple(p.code for p in intent.periods),
            channels=tuple(intent.channels),
            route=ans.route.value,
            at=self._now(),
            table=intent.analysis.shape() if intent.analysis is not None else "",
            language=ans.language,
        )
        key = (request.chat, request.conversation_key)
        if later is None:
            self._save(key, context)
            return
        with self._lock:
            self._pending[key] = context
        later(lambda: self._save_pending(key, context))

    def _save_pending(self, key: tuple[str, str], context: ConversationContext) -> None:
        try:
            self._save(key, context)
        finally:  # stored, or lost: either way memory no longer stands in for the store
            with self._lock:
                if self._pending.get(key) is context:
                    del self._pending[key]

    def _save(self, key: tuple[str, str], context: ConversationContext) -> None:
        try:
            self.store.get().save(*key, context)
        except Exception:  # losing a context costs a follow-up, never the answer
            log.exception("cannot keep the conversation context; the next follow-up starts anew")

    def _now(self) -> dt.datetime:
        return self.now().astimezone(dt.UTC)


def carried_line(
    request: Request, glossary: Glossary, language: str, reference: dt.date
) -> Line | None:
    """"Carried over from your previous question: revenue, FY2024." in the reader's language."""
    items: list[str] = []
    for slot in SLOTS:
        if slot not in request.carried:
            continue
        values = [v for v in request.fixed_slots.get(slot, "").split(",") if v]
        if slot == "period":
            items += _period_items(values, reference, glossary.fiscal_year_end, language)
            continue
        items += [glossary.label(slot, value, language) for value in values]
    if not items:
        return None
    joined = ("、" if language == "zh" else ", ").join(items)
    return Line("carried", say("carried", language, items=joined))


def _period_items(values: list[str], reference: dt.date, fye: str, language: str) -> list[str]:
    """The carried periods as read: a run of three or more ("FY2021, FY2022, FY2023, FY2024",
    a series') as its span, "FY2021–FY2024"; any other list one by one."""
    periods = [normalize_period(v, reference, fye) for v in values]
    known = [p for p in periods if p is not None]
    if len(values) >= 3 and len(known) == len(values) and expand(known[0], known[-1]) == known:
        return [f"{period_label(known[0], language, fye)}–{period_label(known[-1], language, fye)}"]
    return [period_label(p, language, fye) if p else v
            for p, v in zip(periods, values, strict=True)]
