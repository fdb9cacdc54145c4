"""The type of one catalog entry: the same sentence in every language the bot speaks.

A TypedDict with every language required, so a type checker rejects an entry that lacks one;
tests/test_catalog.py checks the placeholders agree across the languages at run time."""

from __future__ import annotations

from typing import TypedDict

LANGUAGES = ("en", "it", "zh")


class Sentence(TypedDict):
    en: str
    it: str
    zh: str
