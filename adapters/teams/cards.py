"""Adaptive Card markup for what core.chat.presentation decided to show.

Text goes into TextBlocks as plain text: Teams reads a TextBlock's markdown, so the characters
that start markdown are escaped and a question's "*" or "_" shows as typed. Narrowing options
are Action.Submit buttons under their slot's header; the tap comes back as a message activity
whose `value` carries the signed token (`OPTION` key), never the question itself.
"""

from __future__ import annotations

import base64
import io
import json
import logging
import re
from typing import Any

from core.chat.callback_token import CallbackSigner
from core.chat.presentation import Presentation, passage_text, table_text
from core.contracts.types import Passage, Table

log = logging.getLogger("ricorda.teams")
MAX_CARD_BYTES = 27_000  # Teams refuses a bot message over ~28 KB (413), attachments included
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


def answer_card(shown: Presentation, *, signer: CallbackSigner, turn_id: str,
                chart: bytes | None = None) -> Card:
    """Body blocks by kind, the chart under its table, sources, footer, option groups."""
    body: list[dict[str, Any]] = []
    for kind, block in shown.blocks():
        if kind == "table" and isinstance(block, Table):
            body.append(_text(table_text(block), fontType="Monospace"))
        elif kind == "passage" and isinstance(block, Passage):
            body.append(_text(passage_text(block), isSubtle=True))
        elif kind == "heading":
            body.append(_text(str(block), weight="Bolder"))
        else:
            body.append(_text(str(block), isSubtle=kind == "emphasis"))
    if chart is not None:
        url = "data:image/png;base64," + base64.b64encode(compact_png(chart)).decode("ascii")
        body.append({"type": "Image", "url": url, "altText": "chart"})
    if shown.sources:
        body.append(_text(shown.sources_label, weight="Bolder", spacing="Medium"))
        body += [_text(source, size="Small") for source in shown.sources]
    if shown.footer:
        body.append(_text(shown.footer, size="Small", isSubtle=True))
    for group in shown.groups:
        body.append(_text(group.header, weight="Bolder", spacing="Medium"))
        body.append({"type": "ActionSet", "actions": [
            submit(label, OPTION, signer.encode_option(turn_id, i)) for i, label in group.options
        ]})
    content = card(body)
    if chart is not None and len(json.dumps(content)) > MAX_CARD_BYTES:
        log.warning("answer card with its chart exceeds Teams' message size: chart left out")
        content["body"] = [b for b in body if b.get("type") != "Image"]
    return content


def compact_png(png: bytes) -> bytes:
    """The chart in 32 colours (a chart has fewer): about a fifth of matplotlib's PNG, so it
    fits in a card under Teams' message size limit."""
    from PIL import Image

    out = io.BytesIO()
    with Image.open(io.BytesIO(png)) as image:
        image.convert("RGB").quantize(colors=32).save(out, "PNG", optimize=True)
    return out.getvalue()


def text_card(text: str, *, monospace: bool = False) -> Card:
    """A note or an admin listing (a table: monospace)."""
    return card([_text(text, fontType="Monospace") if monospace else _text(text)])


def purge_card(text: str, buttons: tuple[tuple[str, str], ...]) -> Card:
    """The purge-all prompt: Confirm / Cancel with the tokens core issued for this admin."""
    return card([_text(text)], [submit(label, PURGE, token) for label, token in buttons])
