"""The glossary's vocabulary entries: a code with its names in every language (`Term`) and a
metric computed from two stored ones (`DerivedMetric`). Apart from the Glossary that holds them,
so the validator that builds them (core.knowledge.glossary_validation) sits below it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from core.knowledge.formulas import Formula, rounded

__all__ = ["DerivedMetric", "Term"]

_CJK = re.compile(r"[\u3400-\u9fff]")


@dataclass(frozen=True)
class Term:
    """A code with its names in every language (first name is the display name)."""

    code: str
    names: tuple[str, ...]
    unit: str = ""
    parent: str | None = None
    restricted: bool = False
    # display name per language ("Ricavi" for it): names are matched in every language, so the
    # first name cannot also be the right one to show an Italian or Chinese reader
    labels: tuple[tuple[str, str], ...] = ()
    # a metric's `additive = true|false`: whether it sums over periods (None: the unit
    # decides, core.figures.arithmetic.default_additive)
    additive: bool | None = None
    # other ways people write it, matched like names but never shown: adjectives and demonyms
    # ("Chinese", "italiani"), plurals, verbs of a metric ("sold", "venduto", "卖"), shorthand
    forms: tuple[str, ...] = ()
    # an entity's level of the hierarchy (`level = "region"`, one of [levels]; "": none named)
    level: str = ""
    # a metric's `kind = "flow" | "stock" | "rate"` (None: `additive`, else the unit decides,
    # core.knowledge.metric_kind)
    kind: str | None = None

    @property
    def label(self) -> str:
        return self.names[0] if self.names else self.code

    def label_for(self, language: str) -> str:
        """Display name for a reader: the glossary's label for the language when it gives one,
        else the first Chinese name for zh, else the first name."""
        for lang, text in self.labels:
            if lang == language:
                return text
        if language == "zh":
            for name in self.names:
                if _CJK.search(name):
                    return name
        return self.label


@dataclass(frozen=True)
class DerivedMetric:
    """A metric computed from two stored ones (`[derived.CODE]`): its names and unit, the
    formula, and how many decimals an answer shows."""

    term: Term
    formula: Formula
    decimals: int

    def rounded(self, value: Decimal) -> Decimal:
        return rounded(value, self.decimals)
