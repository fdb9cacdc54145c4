"""The Slack adapter's pure parts: Block Kit limits and escaping, addressing, configuration."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from pydantic import SecretStr

from adapters.slack.addressing import is_noise, question_text, reply_thread
from adapters.slack.blocks import (
    BUTTON_CHARS,
    MAX_BLOCKS,
    SECTION_CHARS,
    answer_messages,
    escape,
    purge_prompt,
    text_message,
)
from bot.serve.slack import listen_address, slack_mode
from bot.settings.checks import check_settings
from bot.settings.model import load_settings
from core.catalog.presentation import Presentation
from core.chat.callback_token import CallbackSigner
from core.chat.dispatch import Inbound
from core.contracts.errors import ConfigError

SIGNER = CallbackSigner(b"k" * 32)


def _shown(body: str, **kw: object) -> Presentation:
    return Presentation(body=body, sources_label="Sources", **kw)  # type: ignore[arg-type]


def test_answer_text_cannot_inject_mentions_or_links() -> None:
    messages = answer_messages(_shown("<!channel> & <http://evil|click>"), signer=SIGNER,
                               turn_id="t1")
    text = messages[0].blocks[0]["text"]["text"]
    assert text == "&lt;!channel&gt; &amp; &lt;http://evil|click&gt;"
    assert escape("a<b>c&d") == "a&lt;b&gt;c&amp;d"


HOSTILE = "<!channel> <!here> <@U0BOSS> <#C0ALL> <mailto:a@b.c|x> <http://evil|click> R&D"


@pytest.mark.parametrize(
    "message",
    [
        lambda: answer_messages(_shown(HOSTILE), signer=SIGNER, turn_id="t1")[0],
        lambda: answer_messages(_shown("", sources=[HOSTILE]), signer=SIGNER, turn_id="t1")[0],
        lambda: text_message(HOSTILE),
        lambda: text_message(HOSTILE, monospace=True),
        lambda: purge_prompt(HOSTILE, ("p:U1:1:mac", "x:U1:1:mac"), confirm="OK", cancel="No"),
    ],
    ids=["answer", "sources only", "text", "listing", "purge prompt"],
)
def test_no_control_sequence_reaches_the_fallback_text(message) -> None:
    """The `text` field is what notifications and the channel list show: a document saying
    <!channel> must not ping the channel from there either."""
    shown = message()
    assert "<" not in shown.text and ">" not in shown.text
    assert "R&amp;D" in shown.text and "&amp;amp;" not in shown.text  # one & stays one &


def test_long_answer_respects_slack_limits_and_buttons_go_last() -> None:
    body = "\n\n".join(f"paragraph {i} " + "x" * 900 for i in range(200))
    messages = answer_messages(
        _shown(body, sources=["[1] a.pdf (p=1)"], footer="planner · 1.0 ms",
               options=["ACME China " + "y" * 100, "FY2024"]),
        signer=SIGNER, turn_id="t1")
    assert len(messages) > 1
    blocks = [b for m in messages for b in m.blocks]
    assert all(len(m.blocks) <= MAX_BLOCKS for m in messages)
    assert all(len(b["text"]["text"]) <= SECTION_CHARS for b in blocks if b["type"] == "section")
    assert [b["type"] for b in messages[-1].blocks][-3:] == ["context", "context", "actions"]
    first, second = messages[-1].blocks[-1]["elements"]
    assert len(first["text"]["text"]) == BUTTON_CHARS
    assert SIGNER.decode_option(second["value"]) == ("t1", 1)
    assert "paragraph 199" in "".join(b["text"]["text"] for b in blocks if b["type"] == "section")


def test_noise_and_question_text() -> None:
    assert is_noise({"type": "message", "subtype": "message_changed"})
    assert is_noise({"type": "app_mention", "bot_id": "B1", "text": "hi"})
    assert not is_noise({"type": "message", "user": "U1", "text": "hi"})
    assert not is_noise({"type": "reaction_added", "user": "U1"})
    text = "<@UBOT> revenue &amp; margin for <https://x.test|ACME China>? <@UBOT|ricorda>"
    assert question_text(text, bot_user_id="UBOT") == "revenue & margin for ACME China?"


def test_answers_go_to_the_question_thread_except_plain_dms() -> None:
    assert reply_thread({"ts": "1.1", "channel_type": "channel"}) == "1.1"
    assert reply_thread({"ts": "1.2", "thread_ts": "1.0"}) == "1.0"
    assert reply_thread({"ts": "1.3", "channel_type": "im"}) is None
    assert reply_thread({"ts": "1.4", "thread_ts": "1.0", "channel_type": "im"}) == "1.0"


def parse(typed: str | None) -> tuple[str, str]:
    event = Inbound.command_in("slack:C1", "U1", typed)
    return event.command, event.text


def test_commands_read_alike_on_every_platform() -> None:
    """Slack's "purge all", Teams' "/purge all", Telegram's "/purge@ricorda_bot all"."""
    assert parse(None) == ("help", "") and parse("/") == ("help", "")
    assert parse("  PURGE   all ") == ("purge", "all")
    assert parse("ask What was revenue?") == ("ask", "What was revenue?")
    assert parse("/purge all") == parse("/purge@ricorda_bot all") == ("purge", "all")


def _app(tmp_path: Path, **kw: object) -> SimpleNamespace:
    """What the Slack runner reads: the settings, checked as every command checks them."""
    checked = check_settings(load_settings(data_dir=tmp_path, **kw))
    return SimpleNamespace(settings=checked.settings, checked=checked)


def test_settings_are_checked_before_anything_starts(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("RICORDA_SLACK_APP_TOKEN", "RICORDA_SLACK_SIGNING_SECRET",
                 "RICORDA_SLACK_BOT_TOKEN", "RICORDA_SLACK_PORT", "RICORDA_SLACK_HOST"):
        monkeypatch.delenv(name, raising=False)
    token = SecretStr("xoxb-1")
    with pytest.raises(ConfigError, match="SIGNING_SECRET"):
        _app(tmp_path, slack_bot_token=token)
    with pytest.raises(ConfigError, match="xapp-"):
        _app(tmp_path, slack_bot_token=token, slack_app_token=SecretStr("xoxb-2"))
    socket = _app(tmp_path, slack_bot_token=token, slack_app_token=SecretStr("xapp-1"))
    assert slack_mode(socket) == "socket"  # type: ignore[arg-type]
    http = _app(tmp_path, slack_bot_token=token, slack_signing_secret=SecretStr("s"))
    assert slack_mode(http) == "http"  # type: ignore[arg-type]
    assert listen_address(http) == ("0.0.0.0", 3000)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="RICORDA_SLACK_PORT"):  # when the settings are checked
        _app(tmp_path, slack_bot_token=token, slack_signing_secret=SecretStr("s"),
             slack_port=70000)
    monkeypatch.setenv("RICORDA_SLACK_PORT", "nope")
    with pytest.raises(ConfigError, match="RICORDA_SLACK_PORT"):
        load_settings(data_dir=tmp_path)


def test_the_conversation_is_the_thread_or_the_dm() -> None:
    from adapters.slack.addressing import conversation_key

    assert conversation_key("C1", "1700.0001") == "slack:C1:thread:1700.0001"
    assert conversation_key("D1", None) == ""  # a DM without a thread: the chat itself
