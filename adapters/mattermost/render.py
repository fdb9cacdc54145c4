"""Mattermost markdown for what core.catalog.presentation decided to show, and the buttons under
it. All text is escaped: markdown shows as typed, and an "@" never mentions anyone (a document
saying "@channel" must not ping a channel). A button's context (kept by the server, posted back
to the callback URL) holds its signed token and its channel, signed too (endpoint.py).
"""

from __future__ import annotations

import re
from typing import Any

from core.catalog.presentation import (
    Presentation,
    pack_greedy,
    passage_text,
    split_text,
    table_grid,
)
from core.chat.callback_token import CallbackSigner
from core.contracts.types import Passage, Table

MESSAGE_CHARS = 16_000  # a post holds 16,383 characters
CHANNEL = "c"  # the signed kind of a button's channel
_MARKDOWN = re.compile(r"([\\*_`~\[\]()#<>|!])")


def escape(text: str) -> str:
    return _MARKDOWN.sub(r"\\\1", text).replace("@", "@\u200b")


def code(text: str) -> str:
    return "```\n" + text.replace("```", "'''") + "\n```"


def answer_posts(shown: Presentation) -> list[str]:
    """The answer as markdown posts of at most MESSAGE_CHARS, in order."""
    parts: list[str] = []
    for kind, item in shown.blocks():
        if isinstance(item, Passage):
            if item.heading:
                parts.append(f"_{escape(item.heading)}_")
            parts.append("> " + escape(passage_text(item)).replace("\n", "\n> "))
        elif isinstance(item, Table):
            parts += [f"**{escape(item.title)}**", code(table_grid(item)),
                      *(f"_{escape(note)}_" for note in item.notes)]
        elif kind == "heading":
            parts.append(f"**{escape(str(item))}**")
        elif kind == "emphasis":
            parts.append(f"_{escape(str(item))}_")
        elif item:
            parts.append(escape(str(item)))
    if shown.sources:
        parts.append(f"**{escape(shown.sources_label)}**\n" + escape("\n".join(shown.sources)))
    if shown.footer:
        parts.append(f"_{escape(shown.footer)}_")
    pieces = [p for part in parts for p in split_text(part, MESSAGE_CHARS)]
    return pack_greedy(pieces, "\n\n", MESSAGE_CHARS) or ["…"]


def buttons(groups: list[tuple[str, list[tuple[str, str]]]], *, signer: CallbackSigner,
            channel: str, root: str, url: str) -> dict[str, Any]:
    """Each (header, [(label, token)]) group as a message attachment with one button per
    option, whose context the server posts back to `url` when it is clicked."""
    where = signer.sign(CHANNEL, channel)
    return {"attachments": [{"text": escape(header), "actions": [
        {"id": f"g{g}b{i}", "name": label, "type": "button",
         "integration": {"url": url, "context": {"token": token, "channel": where, "root": root}}}
        for i, (label, token) in enumerate(group)]} for g, (header, group) in enumerate(groups)]}
