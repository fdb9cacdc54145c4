"""Adaptive Card markup for what core.catalog.presentation decided to show. Text goes into
TextBlocks with markdown's characters escaped (a question's "*" shows as typed). Options are
Action.Submit buttons whose `value` carries the signed token (`OPTION` key), never the question.
"""

from __future__ import annotations

import base64
import json
import logging
import re
from typing import Any

from adapters.charts import compact_png
from core.catalog.presentation import Presentation, passage_text, split_text, table_text
from core.chat.callback_token import CallbackSigner
from core.contracts.types import Passage, Table

log = logging.getLogger("ricorda.teams")
MAX_CARD_BYTES = 27_000  # Teams refuses a bot message over ~28 KB (413), attachments included
TEXT_CHARS = 4000
OPTION, PURGE = "ricorda_option", "ricorda_purge"  # keys of a tapped button's `value`
VERSION = "1.5"
_MARKDOWN = re.compile(r"([\\*_`\[\]])")
Card = dict[str, Any]


def escape(text: str) -> str:
    """Markdown's emphasis, code and link characters shown as typed."""
    return _MARKDOWN.sub(r"\\\1", text)


def _text(text: str, **style: Any) -> dict[str, Any]:
    return {"type": "TextBlock", "text": escape(text), "wrap": True, **style}


def card(body: list[dict[str, Any]], actions: list[dict[str, Any]] | None = None) -> Card:
    content: Card = {"type": "AdaptiveCard", "version": VERSION, "body": body}
    if actions:
        content["actions"] = actions
    return content


def submit(title: str, key: str, token: str) -> dict[str, Any]:
    return {"type": "Action.Submit", "title": title, "data": {key: token}}


def answer_cards(shown: Presentation, *, signer: CallbackSigner, turn_id: str) -> list[Card]:
    """Body blocks by kind, sources, footer, option groups, in as many cards as Teams' size
    limit needs (a long text split between TextBlocks); the options under the last."""
    body: list[dict[str, Any]] = []
    for kind, block in shown.blocks():
        if kind == "table" and isinstance(block, Table):
            body += _texts(table_text(block), fontType="Monospace")
        elif kind == "passage" and isinstance(block, Passage):
            body += _texts(passage_text(block), isSubtle=True)
        else:
            body += _texts(str(block), isSubtle=kind == "emphasis",
                           **({"weight": "Bolder"} if kind == "heading" else {}))
    if shown.sources:
        body.append(_text(shown.sources_label, weight="Bolder", spacing="Medium"))
        body += [_text(source, size="Small") for source in shown.sources]
    if shown.footer:
        body.append(_text(shown.footer, size="Small", isSubtle=True))
    options: list[dict[str, Any]] = []
    for group in shown.groups:
        options.append(_text(group.header, weight="Bolder", spacing="Medium"))
        options.append({"type": "ActionSet", "actions": [
            submit(label, OPTION, signer.encode_option(turn_id, i)) for i, label in group.options
        ]})
    cards: list[list[dict[str, Any]]] = [[]]
    for element in [*body, *options]:
        if cards[-1] and not fits(card([*cards[-1], element])):
            cards.append([])
        cards[-1].append(element)
    return [card(blocks) for blocks in cards]


def chart_card(png: bytes, title: str) -> Card | None:
    """The chart as an image card of its own; None when even compacted it is over Teams'
    size limit (the answer then goes without it)."""
    url = "data:image/png;base64," + base64.b64encode(compact_png(png)).decode("ascii")
    content = card([{"type": "Image", "url": url, "altText": title or "chart"}])
    if not fits(content):
        log.warning("chart over Teams' message size even compacted: left out")
        return None
    return content


def fits(content: Card) -> bool:
    return len(json.dumps(content)) <= MAX_CARD_BYTES


def _texts(text: str, **style: Any) -> list[dict[str, Any]]:
    """TextBlocks small enough for a card each (a CJK character is six bytes of JSON)."""
    return [_text(piece, **style) for piece in split_text(text, TEXT_CHARS)] or [_text("")]


def text_card(text: str, *, monospace: bool = False) -> Card:
    """A note or an admin listing (a table: monospace)."""
    return card([_text(text, fontType="Monospace") if monospace else _text(text)])


def purge_card(text: str, buttons: tuple[tuple[str, str], ...]) -> Card:
    """The purge-all prompt: Confirm / Cancel with the tokens core issued for this admin."""
    return card([_text(text)], [submit(label, PURGE, token) for label, token in buttons])
