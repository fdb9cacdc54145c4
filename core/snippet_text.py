"""How document snippets are cut for quoting and fenced when they go into a prompt.

Snippet text comes from documents anyone may have written, so to a model it is data, never
instructions: it is placed inside tags, and any tag-like text inside it that could close the
fence early (`</snippet>`) is defused first.
"""

from __future__ import annotations

import re

_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|(?<=[。！？；])|\n+")
_FENCE_TAGS = re.compile(r"<(\s*/?\s*)(snippet|passage)", re.IGNORECASE)


def trim_at_sentence(text: str, limit: int = 300) -> str:
    """`text` cut to about `limit` characters, at a sentence end when one is not too early.

    Falls back to the last space (or a hard cut for scripts without spaces), marked with "…".
    """
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    window = text[: limit + 1]
    ends = [m.start() for m in _SENTENCE_END.finditer(window) if m.start() >= limit // 3]
    if ends:
        return window[: ends[-1]].rstrip()
    space = window.rfind(" ", limit // 2)
    cut = space if space > 0 else limit
    return window[:cut].rstrip(" ,;:") + "…"


def quote_snippet(tag: str, number: str, text: str, limit: int) -> str:
    """One snippet as fenced prompt data: `<tag n="number">text</tag>`, defused and trimmed."""
    body = _FENCE_TAGS.sub(r"‹\1\2", trim_at_sentence(text, limit))
    return f'<{tag} n="{number}">\n{body}\n</{tag}>'
