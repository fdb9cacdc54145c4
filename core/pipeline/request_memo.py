"""Exact requests as they were prepared and planned, so a repeat need not be read again."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import replace
from typing import Any

from core.contracts.types import Request
from core.planning.answering import Answerer, Prepared


class RequestMemo:
    """An exact request as the answerer prepared and planned it, kept so an exact repeat
    (L0a) need not parse it and plan it again to check that the stored plan fits.

    Preparing (cleaning, the security gate, parsing, tapped slots) and planning are functions
    of the request's text and tapped slots, its reference date, the chat's clearance, the
    glossary (the answerer: a glossary reload builds a new one, which empties the memo) and
    the approved macros (the catalog's generation). All of them are the key, so a hit is
    exactly what the answerer would make now; nothing read when the plan runs (facts,
    documents, the clock, earlier turns) is kept. Refusals and usage answers are not kept."""

    def __init__(self, size: int = 4096) -> None:
        self._size = size
        self._kept: OrderedDict[tuple[Any, ...], tuple[Prepared, str, str]] = OrderedDict()
        self._owner: object | None = None
        self._lock = threading.Lock()

    def key(self, answerer: Answerer, request: Request) -> tuple[Any, ...]:
        with self._lock:
            if answerer is not self._owner:
                self._kept.clear()
                self._owner = answerer
        return (
            getattr(answerer.catalog, "generation", 0),
            request.text,
            tuple(sorted(request.fixed_slots.items())),
            request.reference_date or answerer.today(),
            answerer.glossary.is_cleared(request.chat),
        )

    def reuse(self, key: tuple[Any, ...], request: Request) -> tuple[Prepared, str, str] | None:
        """(prepared for this request, canonical text, cache key), or None."""
        with self._lock:
            kept = self._kept.get(key)
            if kept is None:
                return None
            self._kept.move_to_end(key)
        prepared, canonical, cache_hash = kept
        # the intent is shared: nothing changes an intent once it is prepared
        context = replace(prepared.context, chat=request.chat, user=request.user)
        return (
            replace(prepared, request=request, context=context, notices=list(prepared.notices)),
            canonical,
            (cache_hash),
        )

    def clear(self) -> None:
        """Forget every kept request (a benchmark's first ask must prepare its request)."""
        with self._lock:
            self._kept.clear()

    def keep(
        self, key: tuple[Any, ...], prepared: Prepared, canonical: str, cache_hash: str
    ) -> None:
        if not prepared.is_planned:
            return
        with self._lock:
            self._kept[key] = (prepared, canonical, cache_hash)
            self._kept.move_to_end(key)
            while len(self._kept) > self._size:
                self._kept.popitem(last=False)
