"""Verified answers: an admin vouches for a cached answer, which then keeps being replayed.

A verified answer is the question's L0 entry with origin `verified`: replayed, like any L0
entry, for its exact question (L0a) and the cached paraphrases close to it (L0b), and shown
with a short "verified" line. A ✗ from someone who is not an admin is recorded (the report
shows it) but does not replace the entry with a rejection marker (core.fastpath.rejections);
an admin's ✗ does, as for any answer.
"""

from __future__ import annotations

from dataclasses import replace

from core.catalog.lookup import LANGUAGES, say
from core.contracts.fastpath import FastpathEntry
from core.contracts.learning_ports import FastpathStore
from core.contracts.ports import TurnRecord
from core.contracts.types import Answer, Line
from core.fastpath.canonical import cache_key, canonical_hash, canonical_text
from core.fastpath.rejections import is_rejection
from core.language import detect_language

VERIFIED = "verified"


def is_verified(entry: FastpathEntry | None) -> bool:
    return entry is not None and entry.origin == VERIFIED


def with_mark(answer: Answer) -> Answer:
    """The answer with its short "verified" line (a replay of a verified entry)."""
    answer.segments = [*answer.segments, Line("verified", say("verified_mark", answer.language))]
    return answer


def find_entry(fastpaths: FastpathStore, target: str, turn: TurnRecord | None
               ) -> FastpathEntry | None:
    """The L0 entry an admin names: its id, the turn it answered, or its question in any
    wording that normalises the same (as `purge` finds one)."""
    entry = fastpaths.by_id(target)
    if entry is None and turn is not None:
        entry = fastpaths.by_hash(cache_key(turn.question, turn.language, turn.fixed_slots)[1])
    if entry is None:
        first = detect_language(target)
        for code in dict.fromkeys((first, *LANGUAGES)):
            entry = fastpaths.by_hash(canonical_hash(canonical_text(target, code)))
            if entry is not None:
                break
    return entry


def verify(fastpaths: FastpathStore, target: str, turn: TurnRecord | None) -> FastpathEntry | None:
    """Mark the named cached answer verified; None when there is none to mark (never asked,
    rejected, or its answer is not cached)."""
    entry = find_entry(fastpaths, target.strip(), turn)
    if entry is None or is_rejection(entry):
        return None
    if not is_verified(entry):
        entry = fastpaths.upsert(replace(entry, origin=VERIFIED))
    return entry
