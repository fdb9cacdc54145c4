"""The sentence that states a corrected reading: never silent about reading 'reveneu' as
Revenue (core.knowledge.fuzzy), in the reader's language."""

from __future__ import annotations

from core.catalog.lookup import say
from core.contracts.types import Notice
from core.knowledge.fuzzy import Reading
from core.knowledge.glossary import Glossary

READ_AS = "read_as"


def read_as_notices(glossary: Glossary, readings: list[Reading], language: str) -> list[Notice]:
    """One notice per corrected reading, in the order the words were written."""
    return [
        Notice(
            say("read_as", language, raw=r.raw, name=_shown(glossary, r, language)),
            READ_AS,
        )
        for r in readings
    ]


def _shown(glossary: Glossary, reading: Reading, language: str) -> str:
    """The name as the reader wrote towards it ("Fatturato" for 'fatturto'); for a Chinese
    reader the name's Chinese label, the loose names being Latin."""
    if language == "zh":
        return glossary.label(reading.kind, reading.code, language)
    name = reading.name
    return name[0].upper() + name[1:] if name[:1].islower() else name
