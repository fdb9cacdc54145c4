"""Telegram adapter pieces that need no server: HTML rendering and splitting, addressing,
the typing indicator, the Bot API URL."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from telegram import Message

from adapters.telegram.addressing import conversation_key, question_for_bot
from adapters.telegram.application import api_urls
from adapters.telegram.render import MESSAGE_LIMIT, answer_messages, utf16_len
from adapters.typing_action import typing_while
from core.catalog.presentation import Presentation

BOT_ID, BOT_NAME = 4242, "ricorda_bot"


def _balanced(html: str) -> bool:
    stack: list[str] = []
    for closing, tag in re.findall(r"<(/?)(\w+)[^>]*>", html):
        if closing:
            if not stack or stack.pop() != tag:
                return False
        else:
            stack.append(tag)
    return not stack


def test_answer_html_is_escaped_with_sources_block_and_footer() -> None:
    shown = Presentation(body="R&D < 5% of <b>sales</b>", sources_label="Sources",
                         sources=["[1] a&b.pdf (page=2)"], footer="L0a · 3.1 ms")
    (html,) = answer_messages(shown)
    assert html.startswith("R&amp;D &lt; 5% of &lt;b&gt;sales&lt;/b&gt;")
    assert "<blockquote><b>Sources</b>\n[1] a&amp;b.pdf (page=2)</blockquote>" in html
    assert html.endswith("<i>L0a · 3.1 ms</i>")


def test_long_answers_split_on_paragraphs_without_breaking_tags_or_entities() -> None:
    paragraphs = [f"Paragraph {i}: " + "growth & margin 📈 " * 40 for i in range(12)]
    sources = [f"[{i}] report_{i}.pdf (page={i})" for i in range(1, 300)]
    shown = Presentation(body="\n\n".join(paragraphs), sources_label="Sources",
                         sources=sources, footer="planner · 812.0 ms")
    messages = answer_messages(shown)
    assert len(messages) > 2
    assert all(utf16_len(m) <= MESSAGE_LIMIT for m in messages)
    assert all(_balanced(m) for m in messages)
    assert all(not re.search(r"&[a-z]*$", m) for m in messages)  # no entity cut in half
    assert messages[0].startswith("Paragraph 0:")
    assert all(p.startswith("Paragraph") for m in messages[:2] for p in m.split("\n\n"))
    assert messages[-1].endswith("<i>planner · 812.0 ms</i>")
    shown_sources = "".join(messages).count("report_")
    assert shown_sources == len(sources)


def _message(text: str, *, chat_type: str = "private", entities: list[dict[str, Any]] | None =
             None, reply_from: int | None = None) -> Message:
    data: dict[str, Any] = {
        "message_id": 1, "date": 0, "text": text,
        "chat": {"id": 5 if chat_type == "private" else -5, "type": chat_type},
        "from": {"id": 5, "is_bot": False, "first_name": "u"},
        "entities": entities or [],
    }
    if reply_from is not None:
        data["reply_to_message"] = {"message_id": 0, "date": 0, "chat": data["chat"],
                                    "from": {"id": reply_from, "is_bot": True, "first_name": "b"}}
    return Message.de_json(data, None)


def _mention(offset: int, name: str = BOT_NAME) -> list[dict[str, Any]]:
    return [{"type": "mention", "offset": offset, "length": len(name) + 1}]


@pytest.mark.parametrize(
    ("message", "question"),
    [
        (_message("What was revenue?"), "What was revenue?"),
        (_message("   "), None),
        (_message("What was revenue?", chat_type="supergroup"), None),
        (_message(f"@{BOT_NAME} What was revenue?", chat_type="group", entities=_mention(0)),
         "What was revenue?"),
        (_message(f"📈 @{BOT_NAME} revenue?", chat_type="group", entities=_mention(3)),
         "📈 revenue?"),  # offsets are UTF-16: the emoji counts twice
        (_message("@someone revenue?", chat_type="group", entities=_mention(0, "someone")), None),
        (_message("and for China?", chat_type="group", reply_from=BOT_ID), "and for China?"),
        (_message("and for China?", chat_type="group", reply_from=99), None),
    ],
)
def test_who_the_bot_answers(message: Message, question: str | None) -> None:
    assert question_for_bot(message, bot_id=BOT_ID, bot_username=BOT_NAME) == question


def test_typing_shows_only_when_the_answer_is_not_instant() -> None:
    async def scenario(work: float) -> int:
        sent: list[int] = []

        async def send() -> None:
            sent.append(1)

        async with typing_while(send, delay=0.05, every=0.05):
            await asyncio.sleep(work)
        return len(sent)

    assert asyncio.run(scenario(0.0)) == 0
    assert asyncio.run(scenario(0.18)) >= 2  # shown, then repeated while work goes on


@pytest.mark.parametrize(
    ("setting", "base", "files"),
    [
        (None, "https://api.telegram.org/bot", "https://api.telegram.org/file/bot"),
        ("http://127.0.0.1:8081/", "http://127.0.0.1:8081/bot", "http://127.0.0.1:8081/file/bot"),
        ("http://h:1/bot", "http://h:1/bot", "http://h:1/file/bot"),
    ],
)
def test_bot_api_url(setting: str | None, base: str, files: str) -> None:
    assert api_urls(setting) == (base, files)


def test_the_conversation_is_the_private_chat_or_the_group_member() -> None:
    assert conversation_key(_message("and Italy?")) == ""  # the chat itself
    assert conversation_key(_message("and Italy?", chat_type="supergroup")) == (
        "telegram:-5:user:5")
    topic = Message.de_json({
        "message_id": 2, "date": 0, "text": "and Italy?", "message_thread_id": 9,
        "is_topic_message": True, "chat": {"id": -5, "type": "supergroup", "is_forum": True},
        "from": {"id": 5, "is_bot": False, "first_name": "u"}}, None)
    assert conversation_key(topic) == "telegram:-5:user:5:topic:9"
