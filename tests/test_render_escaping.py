"""Escaping from the structure: every answer kind through every renderer, with hostile text in
every part (a question echoed back, a fact's label, a document's title, a passage, a heading, a
table cell, an option, a notice).

Telegram HTML must parse under Telegram's rules (known tags, balanced, only its four named
entities, no bare `<`, `>` or `&`); no Slack control sequence (`<!channel>`, `<@U…>`, `<#C…>`,
`<mailto:…>`, `<http…|…>`) may reach any Slack field, the notification `text` included; and an
`&` stays one `&` for the reader (escaped once, never twice).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.console import render_answer
from adapters.slack.blocks import answer_messages as slack_messages
from adapters.telegram.keyboards import options_keyboard
from adapters.telegram.render import answer_messages as telegram_messages
from core.catalog.presentation import present
from core.chat.callback_token import CallbackSigner
from core.contracts.types import (
    Answer,
    Citation,
    Line,
    Option,
    Passage,
    Route,
    Source,
    Table,
)

SIGNER = CallbackSigner(b"k" * 32)
SLACK_CONTROLS = ["<!channel>", "<!here>", "<!everyone>", "<@U0BOSS>", "<#C0ALL>",
                  "<mailto:a@b.c|mail>", "<http://evil.example|click>", "<https://x.y>"]
HTML_BITS = ["<b>", "</i>", "<a href='x'>", "&amp;", "&", "&lt;", "<", ">", "R&D", "\"", "'"]
hostile = st.lists(
    st.one_of(
        st.sampled_from(SLACK_CONTROLS + HTML_BITS),
        st.text(alphabet=st.sampled_from("ab 中文€%*_~`|!@#:/<>&\n"), min_size=1, max_size=12),
    ),
    min_size=1, max_size=5,
).map(lambda parts: " ".join(parts).strip() or "x")

KINDS = ["fact", "not_found", "unrecognized", "difference", "assumed", "narrow", "notice",
         "message", "degraded", "tool"]
TELEGRAM_TAGS = {"b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "code", "pre",
                 "blockquote", "a", "tg-spoiler", "span"}
_HTML_TOKEN = re.compile(r"(<[^<>]*>|&(?:lt|gt|amp|quot|#\d+|#x[0-9a-fA-F]+);)")
_SLACK_TOKEN = re.compile(r"&(?:amp|lt|gt);")


def _answer(text: str, kind: str, route: Route) -> Answer:
    """One answer carrying `text` in every part a renderer shows."""
    table = Table("series", text, ("Period", text), (("FY2024", text), (text, "€1M")),
                  points=(("FY2024", 1.0),), notes=(text,))
    segments = [Line("notice", text), Line(kind, text), Line("attribution", text),
                Passage(text, (1,), heading=text), Passage(text, (1, 2), quoted=False), table]
    citations = [Citation(1, Source(text, text), text), Citation(2, Source("a.pdf"), text)]
    options = [Option(text, "entity", "X"), Option(text, "period", "FY2024"),
               Option(text, "metric", "REVENUE")]
    return Answer(turn_id="t1", route=route, served_by="planner", text=text,
                  segments=segments, citations=citations, options=options, notices=[text])


def _telegram_ok(markup: str) -> str:
    """Checks `markup` against Telegram's HTML rules; returns what the reader sees."""
    stack: list[str] = []
    seen = []
    for i, token in enumerate(_HTML_TOKEN.split(markup)):
        if i % 2 == 0:
            assert not set(token) & set("<>&"), f"bare markup character in {token!r}"
            seen.append(token)
        elif token.startswith("<"):
            name = re.match(r"</?\s*([a-z-]+)", token)
            assert name and name.group(1) in TELEGRAM_TAGS, token
            if token.startswith("</"):
                assert stack and stack.pop() == name.group(1), f"unbalanced {token}"
            else:
                stack.append(name.group(1))
        else:
            seen.append(html.unescape(token))
    assert not stack, f"unclosed {stack}"
    return "".join(seen)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            if key not in ("value", "action_id", "block_id"):  # signed tokens and ids
                yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _slack_ok(field: str) -> str:
    """No raw `<` or `>` and no `&` but Slack's three escapes; returns what the reader sees."""
    assert "<" not in field and ">" not in field, field
    assert "&" not in _SLACK_TOKEN.sub("", field), field
    return field.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=hostile, kind=st.sampled_from(KINDS), route=st.sampled_from(list(Route)))
def test_every_answer_kind_renders_safely_on_every_platform(text: str, kind: str,
                                                            route: Route) -> None:
    answer = _answer(text, kind, route)
    shown = present(answer, show_footer=True)
    first_line = text.splitlines()[0].strip()

    seen = "".join(_telegram_ok(m) for m in telegram_messages(shown))
    assert first_line in seen  # shown once-escaped: "&" reads "&", never "&amp;"
    keyboard = options_keyboard(SIGNER, answer.turn_id, shown.groups)
    assert keyboard is not None
    assert sum(len(row) for row in keyboard.inline_keyboard) == len(answer.options) + 3

    for message in slack_messages(shown, signer=SIGNER, turn_id=answer.turn_id):
        readable = [_slack_ok(message.text)]
        readable += [_slack_ok(s) for s in _strings(message.blocks)]
        assert any(first_line in r for r in readable)

    printed = render_answer(answer)
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", printed)


def test_an_ampersand_stays_one_ampersand() -> None:
    answer = _answer("R&D spend & <growth>", "fact", Route.STRUCTURED)
    shown = present(answer)
    assert "R&amp;D spend &amp; &lt;growth&gt;" in telegram_messages(shown)[0]
    assert "&amp;amp;" not in telegram_messages(shown)[0]
    (message,) = slack_messages(shown, signer=SIGNER, turn_id="t1")
    assert "R&amp;D spend &amp; &lt;growth&gt;" in message.text
    assert all("&amp;amp;" not in s for s in _strings(message.blocks))
