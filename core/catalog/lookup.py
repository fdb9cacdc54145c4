"""The one way a sentence is read: `say(key, language, **fields)`.

Every area's table (answers, arithmetic, disclosure, derived, questions, documents, chat,
admin) is merged into one catalog at import; a key defined twice is an error then, not a
silent override. A language the catalog lacks falls back to English; an unknown key raises
(a typo must fail a test, not say nothing)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import cast

from core.catalog import (
    admin,
    answers,
    arithmetic,
    chat,
    derived,
    disclosure,
    documents,
    feedback,
    periods,
    questions,
    subscriptions,
)
from core.catalog.sentence import LANGUAGES, Sentence

__all__ = ["CATALOG", "LANGUAGES", "join_list", "render", "say"]

_AREAS = (answers, arithmetic, disclosure, derived, questions, documents, chat, admin, periods,
          feedback, subscriptions)


def _merged(areas: Sequence[Mapping[str, Sentence]]) -> dict[str, Sentence]:
    out: dict[str, Sentence] = {}
    for table in areas:
        twice = out.keys() & table.keys()
        if twice:
            raise ValueError(f"catalog keys defined twice: {sorted(twice)}")
        out.update(table)
    return out


CATALOG: dict[str, Sentence] = _merged([area.SENTENCES for area in _AREAS])


def render(sentence: Sentence, language: str, **fields: object) -> str:
    """One entry in `language` (English when the bot does not speak it), its fields filled.
    Adapters' words.py tables (platform words) are read with this too."""
    columns = cast(Mapping[str, str], sentence)
    return (columns.get(language) or sentence["en"]).format(**fields)


def say(key: str, language: str, **fields: object) -> str:
    """The catalog's sentence `key` in `language`; KeyError on a key the catalog lacks."""
    try:
        sentence = CATALOG[key]
    except KeyError:
        raise KeyError(f"no sentence {key!r} in the catalog (core/catalog/)") from None
    return render(sentence, language, **fields)


def join_list(items: Sequence[str], language: str) -> str:
    """"a, b and c", "a, b e c", "a、b、c"."""
    if language == "zh":
        return "、".join(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + say("and", language) + items[-1]
