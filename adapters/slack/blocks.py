"""Block Kit for answers and prompts. What the parts are is `core.catalog.presentation`'s decision;
this module only chooses Slack markup and respects Slack's size limits."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.catalog.presentation import (
    MAX_OPTIONS,
    OptionGroup,
    Presentation,
    passage_text,
    split_text,
    table_grid,
)
from core.chat.callback_token import CallbackSigner
from core.contracts.types import Passage, Table

SECTION_CHARS = 3000  # a section's text
CONTEXT_CHARS = 2000  # one context element's text
CONTEXT_ELEMENTS = 10
MAX_BLOCKS = 50  # per message
BUTTON_CHARS = 75  # Slack's own limit; labels are already cut shorter by core.catalog.presentation
FALLBACK_CHARS = 3000  # the notification text; the blocks carry the full answer
OPTION_ACTION = "ricorda_option"  # action ids: ricorda_option_0, ricorda_option_1, ...
OPTIONS_BLOCK = "ricorda_options"
PURGE_CONFIRM, PURGE_CANCEL = "ricorda_purge_confirm", "ricorda_purge_cancel"
CHOICE_ACTION = "ricorda_choice"  # a choice the dispatcher asks for: ricorda_choice_0, ...

Block = dict[str, Any]


@dataclass(frozen=True)
class SlackMessage:
    text: str  # fallback for notifications and clients without Block Kit: escaped mrkdwn
    blocks: list[Block]


def escape(text: str) -> str:
    """Slack's three control characters; anything else in mrkdwn is shown as typed."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def answer_messages(shown: Presentation, *, signer: CallbackSigner,
                    turn_id: str) -> list[SlackMessage]:
    """The answer as one message (several only when it outgrows 50 blocks): body sections,
    a context block of sources, the footer, and the option buttons under the last part."""
    blocks = body_blocks(shown)
    if shown.sources:
        listing = escape("\n".join(shown.sources))
        head = f"*{escape(shown.sources_label)}*\n"
        pieces = split_text(head + listing, CONTEXT_CHARS)
        for start in range(0, len(pieces), CONTEXT_ELEMENTS):
            blocks.append({"type": "context", "elements": [
                {"type": "mrkdwn", "text": p} for p in pieces[start:start + CONTEXT_ELEMENTS]]})
    if shown.footer:
        blocks.append({"type": "context", "elements": [
            {"type": "mrkdwn", "text": f"_{escape(shown.footer)}_"}]})
    if shown.groups:
        blocks += option_blocks(signer, turn_id, shown.groups)
    else:
        buttons = option_buttons(signer, turn_id, shown.options)
        if buttons:
            blocks.append(buttons)
    if not blocks:
        return []
    # the fallback is mrkdwn too (notifications, clients without blocks): escaped like them
    fallback = escape(shown.body[:FALLBACK_CHARS] or (shown.sources[0] if shown.sources else "…"))
    return [SlackMessage(fallback, blocks[i:i + MAX_BLOCKS])
            for i in range(0, len(blocks), MAX_BLOCKS)]


def body_blocks(shown: Presentation) -> list[Block]:
    """Sentences as sections, notices in italics, "Why:" in bold, each passage with its
    section heading as a context line above the quote; every piece escaped."""
    blocks: list[Block] = []
    for kind, item in shown.blocks():
        if isinstance(item, Passage):
            if item.heading:
                blocks.append({"type": "context", "elements": [
                    {"type": "mrkdwn", "text": f"_{escape(item.heading)}_", "verbatim": True}]})
            text = escape(passage_text(item))
        elif isinstance(item, Table):
            blocks.append(_section(f"*{escape(item.title)}*"))
            blocks += [_section(f"```{piece}```")
                       for piece in split_text(escape(table_grid(item)), SECTION_CHARS - 6)]
            text = "\n".join(f"_{escape(note)}_" for note in item.notes)
            if not text:
                continue
        elif kind == "heading":
            text = f"*{escape(item)}*"
        elif kind == "emphasis":
            text = "\n".join(f"_{escape(line)}_" for line in item.splitlines() if line.strip())
        else:
            text = escape(item)
        blocks += [_section(piece) for piece in split_text(text, SECTION_CHARS)]
    return blocks


def option_blocks(signer: CallbackSigner, turn_id: str,
                  groups: tuple[OptionGroup, ...]) -> list[Block]:
    """Each group of options under its header ("Period:"), the buttons naming only
    (turn, index), signed."""
    blocks: list[Block] = []
    for group in groups:
        blocks.append({"type": "context", "elements": [
            {"type": "mrkdwn", "text": f"*{escape(group.header)}*", "verbatim": True}]})
        blocks.append({"type": "actions", "block_id": f"{OPTIONS_BLOCK}_{group.slot}",
                       "elements": [_button(signer, turn_id, i, label)
                                    for i, label in group.options]})
    return blocks


def _button(signer: CallbackSigner, turn_id: str, index: int, label: str) -> Block:
    return {"type": "button", "action_id": f"{OPTION_ACTION}_{index}",
            "text": {"type": "plain_text", "text": button_label(label), "emoji": True},
            "value": signer.encode_option(turn_id, index)}


def option_buttons(signer: CallbackSigner, turn_id: str, labels: list[str]) -> Block | None:
    """One button per option; the value names only (turn, index), signed."""
    if not labels:
        return None
    return {"type": "actions", "block_id": OPTIONS_BLOCK, "elements": [
        _button(signer, turn_id, i, label) for i, label in enumerate(labels[:MAX_OPTIONS])
    ]}


def text_message(text: str, *, monospace: bool = False) -> SlackMessage:
    """A plain reply (help, admin listings); listings are tables, so monospace."""
    body = escape(text)
    pieces = split_text(body, SECTION_CHARS - 6) if monospace else split_text(
        body, SECTION_CHARS)
    blocks = [_section(f"```{p}```" if monospace else p) for p in pieces]
    return SlackMessage(escape(text[:FALLBACK_CHARS]), blocks[:MAX_BLOCKS])


def purge_prompt(prompt: str, tokens: tuple[str, str], *, confirm: str,
                 cancel: str) -> SlackMessage:
    """Confirm / Cancel, with the signed tokens core.chat.chat_turn issued for this admin."""
    return SlackMessage(escape(prompt), [_section(escape(prompt)), {
        "type": "actions", "block_id": "ricorda_purge", "elements": [
            {"type": "button", "action_id": PURGE_CONFIRM, "style": "danger",
             "text": {"type": "plain_text", "text": button_label(confirm)},
             "value": tokens[0]},
            {"type": "button", "action_id": PURGE_CANCEL,
             "text": {"type": "plain_text", "text": button_label(cancel)},
             "value": tokens[1]},
        ]}])


def choice_prompt(prompt: str, buttons: Sequence[tuple[str, str]]) -> SlackMessage:
    """A question with (label, signed token) buttons core gave (the reasons after a ✗)."""
    return SlackMessage(escape(prompt), [_section(escape(prompt)), {
        "type": "actions", "block_id": "ricorda_choice", "elements": [
            {"type": "button", "action_id": f"{CHOICE_ACTION}_{i}",
             "text": {"type": "plain_text", "text": button_label(label)}, "value": token}
            for i, (label, token) in enumerate(buttons)]}])


def unescape(text: str) -> str:
    """What `escape` made, back: a posted field as its reader sees it."""
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def button_label(label: str) -> str:
    """A button's text escaped like every other field (a glossary name "<!here>" pings
    nobody) and cut so that the escaped text fits Slack's 75 characters."""
    while len(escape(label)) > BUTTON_CHARS:
        label = label[:-1]
    return escape(label)


def _section(text: str) -> Block:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text, "verbatim": True}}
