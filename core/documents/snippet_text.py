"""How document snippets are cut for quoting and fenced when they go into a prompt.

Snippet text comes from documents anyone may have written, so to a model it is data, never
instructions: it is placed inside tags, and any tag-like text inside it that could close the
fence early (`</snippet>`) is defused first.
"""

from __future__ import annotations

import re

_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|(?<=[。！？；])|\n+")
_FENCE_TAGS = re.compile(r"<(\s*/?\s*)(snippet|passage)", re.IGNORECASE)
# Characters that break a line, move the cursor or reorder text: controls (C0, DEL, C1), the
# Unicode line/paragraph separators and the bidirectional overrides and isolates.
_UNSAFE_IN_NAME = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def display_name(text: str) -> str:
    """A document name or locator as one visible line: every control character is spelled as
    an escape (`\\n`, `\\x1b`), so a file named "a.md\\n[2] forged.pdf" cannot add a line
    to a sources block, and an escape sequence in a name cannot drive a terminal."""
    if not _UNSAFE_IN_NAME.search(text):
        return text
    return _UNSAFE_IN_NAME.sub(lambda m: _escape(m.group()), text)


def _escape(ch: str) -> str:
    return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(ch) or (
        f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}"
    )


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
