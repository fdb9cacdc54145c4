"""The security gate: runs before the cache and before any channel.

Competitors are refused (matched with whitespace removed, so spacing tricks do not get through)
and blanked out of the text, so an in-scope name inside a competitor's name never matches. A
RESTRICTED entity is simply out of scope for a chat without clearance: it is refused exactly like
a competitor, so the refusal itself reveals nothing.

Both are matched at least as loosely as the parser reads names (core.knowledge.fuzzy): a
competitor or restricted name within the edit bound ("Vortx", "Orbis Lbas") is refused too,
or a typo would walk a name past the gate that the parser then reads correctly. A run of words
that spells a public name exactly is that name, never a misspelt restricted one: "Meridian"
(the group) is not "MERIDIAN_MX" with two letters lost.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from core.knowledge.comparable import squash
from core.knowledge.fuzzy import near_protected, protected_keys
from core.knowledge.names import NameIndex, blank


@dataclass(frozen=True)
class GateVerdict:
    allowed: bool
    text: str  # the question with competitor names blanked
    reason: str = ""  # "competitor" | "restricted" when refused (for logs, never shown)


class Gate(Protocol):
    """What the answerer asks of a security gate (SecurityGate; a test may hand in a fake)."""

    def check(
        self, text: str, *, cleared: bool, fixed_slots: dict[str, str] | None = None
    ) -> GateVerdict: ...

    def any_restricted(self, codes: list[str]) -> bool: ...


class SecurityGate:
    def __init__(self, names: NameIndex) -> None:
        self.names = names
        self.glossary = names.glossary
        glossary = self.glossary
        self._competitors = protected_keys(list(glossary.competitors))
        self._restricted = protected_keys(
            [n for t in glossary.entities.values() if t.restricted
             for n in (*t.names, *t.forms, t.code)]
        )
        # a public name spelt exactly is that name, never a misspelt restricted one
        self._public = frozenset(
            squash(n) for table in (glossary.entities, glossary.metrics, glossary.channels)
            for t in table.values() if not getattr(t, "restricted", False)
            for n in (*t.names, *t.forms)) - frozenset(self._restricted)

    def check(
        self, text: str, *, cleared: bool, fixed_slots: dict[str, str] | None = None
    ) -> GateVerdict:
        spans = self.names.competitor_spans(text)
        if spans:
            return GateVerdict(False, blank(text, spans), "competitor")
        near = near_protected(text, self._competitors)
        if near:
            return GateVerdict(False, blank(text, near), "competitor")
        if not cleared and near_protected(text, self._restricted, self._public):
            return GateVerdict(False, text, "restricted")
        if not cleared:
            codes = [m.code for m in self.names.find(text) if m.kind == "entity"]
            if fixed_slots and fixed_slots.get("entity"):  # tapped, or carried (comma-joined)
                for value in fixed_slots["entity"].split(","):
                    codes.append(self.names.normalize("entity", value) or "")
            for code in codes:
                term = self.glossary.entities.get(code)
                if term is not None and term.restricted:
                    return GateVerdict(False, text, "restricted")
        return GateVerdict(True, text)

    def any_restricted(self, codes: list[str]) -> bool:
        """Whether one of these entity codes is restricted (a reading made after the gate is
        checked again before anything is looked up)."""
        return any(
            (term := self.glossary.entities.get(code)) is not None and term.restricted
            for code in codes
        )
