"""Which reactions and short replies count as a verdict on an answer (docs/fast-path.md#feedback).

Platforms spell the same emoji differently (Telegram sends "❤" while a keyboard types "❤️";
Slack sends names, with skin tones as "+1::skin-tone-2"), so keys are normalised before the
lookup. Each platform's own reactions are its adapter's words (adapters/<platform>/words.py),
given to the table by the adapter's services (`own_reactions`); core knows no platform's emoji.
The sets are configurable; the ✓/✗ replies are the same everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

POSITIVE, NEGATIVE = "positive", "negative"
_VARIATION_SELECTORS = ("\ufe0f", "\ufe0e")
_SKIN_TONES = tuple(chr(c) for c in range(0x1F3FB, 0x1F400))

DEFAULT_REPLIES: dict[str, frozenset[str]] = {
    POSITIVE: frozenset({"✓", "✅"}),
    NEGATIVE: frozenset({"✗", "❌"}),
}


def normalise(reaction: str) -> str:
    """"❤️" -> "❤", "👍🏽" -> "👍", "+1::skin-tone-3" -> "+1"; ZWJ sequences stay distinct."""
    key = reaction.strip().split("::", 1)[0]
    for mark in (*_VARIATION_SELECTORS, *_SKIN_TONES):
        key = key.replace(mark, "")
    return key


@dataclass(frozen=True)
class ReactionVerdicts:
    """Reaction and reply sets per platform; an adapter adds its own with `own_reactions`, an
    operator overrides one with `configured`."""

    reactions: Mapping[str, Mapping[str, frozenset[str]]] = field(default_factory=dict)
    replies: Mapping[str, frozenset[str]] = field(default_factory=lambda: DEFAULT_REPLIES)

    @classmethod
    def configured(
        cls, platform: str, *, positive: Iterable[str] | None = None,
        negative: Iterable[str] | None = None, base: ReactionVerdicts | None = None,
    ) -> ReactionVerdicts:
        """`base` (else an empty table) with one platform's sets replaced (None keeps the set
        `base` has)."""
        base = base or cls()
        own = dict(base.reactions.get(platform, {}))
        if positive is not None:
            own[POSITIVE] = frozenset(normalise(r) for r in positive)
        if negative is not None:
            own[NEGATIVE] = frozenset(normalise(r) for r in negative)
        overlap = own.get(POSITIVE, frozenset()) & own.get(NEGATIVE, frozenset())
        if overlap:
            raise ValueError(f"reactions both positive and negative: {sorted(overlap)}")
        return cls({**base.reactions, platform: own}, base.replies)

    def own_reactions(self, platform: str, positive: Iterable[str],
                      negative: Iterable[str]) -> ReactionVerdicts:
        """The table with `platform`'s default sets added; sets already configured for it
        (an operator's choice) are kept."""
        if platform in self.reactions:
            return self
        return ReactionVerdicts.configured(platform, positive=positive, negative=negative,
                                           base=self)

    def for_reaction(self, platform: str, reaction: str) -> str | None:
        """"positive", "negative", or None for a reaction that says nothing about the answer."""
        sets = self.reactions.get(platform, {})
        key = normalise(reaction)
        for verdict in (POSITIVE, NEGATIVE):
            if key in sets.get(verdict, frozenset()):
                return verdict
        return None

    def for_reply(self, text: str | None) -> str | None:
        """A reply consisting only of a check or cross mark is a verdict; anything else is not."""
        key = normalise(text or "")
        for verdict in (POSITIVE, NEGATIVE):
            if key in self.replies.get(verdict, frozenset()):
                return verdict
        return None

    def for_reaction_change(
        self, platform: str, old: Iterable[str], new: Iterable[str]
    ) -> tuple[str | None, bool]:
        """(verdict now, whether it was withdrawn) after a user changed their reactions.

        The most recently added meaningful reaction wins; when no meaningful reaction is left
        but there was one before, the verdict is withdrawn.
        """
        old_keys = [normalise(r) for r in old]
        new_keys = [normalise(r) for r in new]
        added = [k for k in new_keys if k not in old_keys]
        for key in [*reversed(added), *reversed(new_keys)]:
            verdict = self.for_reaction(platform, key)
            if verdict is not None:
                return verdict, False
        had = any(self.for_reaction(platform, k) is not None for k in old_keys)
        return None, had
