"""The platform-neutral interaction layer Telegram and Slack share: presentation, button
tokens, option taps, reaction verdicts, admin commands."""

from __future__ import annotations

import datetime as dt
import logging

import pytest

from adapters.slack import words as slack_words
from adapters.slack.words import how_to_ask as slack_how_to_ask
from adapters.telegram import words as telegram_words
from adapters.telegram.words import how_to_ask as telegram_how_to_ask
from core.catalog.lookup import say
from core.catalog.presentation import present, split_text
from core.chat.admin_commands import needs_confirmation, run_admin_command
from core.chat.callback_token import MAX_BYTES, CallbackSigner, derive_key
from core.chat.chat_replies import help_text, language_for
from core.chat.option_tap import tap_request
from core.chat.reactions import NEGATIVE, POSITIVE, ReactionVerdicts
from core.contracts.ports import TurnRecord
from core.contracts.types import Answer, Citation, Line, Option, Passage, Route, Source

# -- presentation ---------------------------------------------------------------------------


def _answer(text: str, **kw: object) -> Answer:
    return Answer(turn_id="t1", route=Route.NARRATIVE, served_by="L0a", text=text,
                  latency_ms=3.14, **kw)  # type: ignore[arg-type]


def test_the_sources_block_is_made_from_the_citations_with_their_numbers() -> None:
    """No text is parsed: the passage keeps its [n] markers and the block lists the answer's
    citations, titled, in their order."""
    synthesis = Passage("Sales fell on weak demand [2] and pricing [1].", (2, 1), quoted=False)
    citations = [Citation(1, Source("a.md", "para=1"), "A, para. 1"),
                 Citation(2, Source("b.pdf", "page=3"), "B, p. 3")]
    shown = present(_answer("ignored by renderers", segments=[synthesis], citations=citations),
                    show_footer=True)
    assert shown.body == "Sales fell on weak demand [2] and pricing [1]."
    assert shown.sources == ["[1] A, para. 1", "[2] B, p. 3"]
    assert shown.sources_label == "Sources"
    assert shown.footer == "L0a · 3.1 ms"


def test_chat_users_see_no_serving_level_unless_the_operator_turns_it_on(
    monkeypatch: pytest.MonkeyPatch, tmp_path: object
) -> None:
    from bot.settings.model import load_settings

    for name in ("RICORDA_SHOW_FOOTER", "RICORDA_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no ./.env
    default = load_settings(data_dir=tmp_path)
    assert present(_answer("1,320"), show_footer=default.show_footer).footer is None
    monkeypatch.setenv("RICORDA_SHOW_FOOTER", "true")
    shown = present(_answer("1,320"), show_footer=load_settings(data_dir=tmp_path).show_footer)
    assert shown.footer == "L0a · 3.1 ms"


def test_a_fact_cites_its_source_inline_and_is_not_listed_again() -> None:
    line = Line("fact", "Revenue: 1,320 USD_M (source: Deck, slide 2)")
    shown = present(_answer(line.text, segments=[line], sources=[Source("deck.pptx", "slide=2")]))
    assert shown.body == line.text and shown.sources == []


def test_footer_off_and_option_labels_in_order() -> None:
    options = [Option("ACME China", "entity", "ACME_CN"), Option("FY2024", "period", "FY2024")]
    shown = present(_answer("Which?", options=options), show_footer=False)
    assert shown.footer is None
    assert shown.options == ["ACME China", "FY2024"]


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        ("short", 10, ["short"]),
        ("para one\n\npara two", 10, ["para one", "para two"]),
        ("aaaa\nbbbb\n\ncc", 9, ["aaaa\nbbbb", "cc"]),  # paragraphs first
        ("line one\nline two", 9, ["line one", "line two"]),  # then lines
        ("word word word", 9, ["word word", "word"]),  # then words
        ("abcdefghij", 4, ["abcd", "efgh", "ij"]),  # then anywhere
        ("", 5, []),
    ],
)
def test_split_text(text: str, limit: int, expected: list[str]) -> None:
    assert split_text(text, limit) == expected


def test_split_text_never_exceeds_the_limit_under_a_custom_measure() -> None:
    text = "\n\n".join(["<&>" * 50, "x" * 300, "word " * 100])
    pieces = split_text(text, 64, size=lambda s: len(s.replace("&", "&amp;")))
    assert all(len(p.replace("&", "&amp;")) <= 64 for p in pieces)
    assert "".join(pieces).replace(" ", "").replace("\n", "") == text.replace(" ", "").replace(
        "\n", "")


# -- callback tokens ------------------------------------------------------------------------

SIGNER = CallbackSigner(derive_key(None, "123:token"))


def test_option_token_round_trips_within_64_bytes() -> None:
    data = SIGNER.encode_option("0123456789abcdef", 23)
    assert len(data.encode()) <= MAX_BYTES
    assert SIGNER.decode_option(data) == ("0123456789abcdef", 23)


@pytest.mark.parametrize(
    "tamper",
    [
        lambda d: d.replace(":23:", ":2:"),  # another option
        lambda d: d.replace("0123", "9999"),  # another turn
        lambda d: d[:-1] + ("A" if d[-1] != "A" else "B"),  # mac changed
        lambda d: d.rsplit(":", 1)[0],  # mac dropped
        lambda d: "",
        lambda d: "garbage",
        lambda d: "x" * 100,
    ],
)
def test_forged_or_garbled_tokens_decode_to_nothing(tamper: object) -> None:
    data = SIGNER.encode_option("0123456789abcdef", 23)
    assert SIGNER.decode_option(tamper(data)) is None  # type: ignore[operator]


def test_a_token_from_another_key_or_kind_is_rejected() -> None:
    other = CallbackSigner(derive_key("configured secret", "123:token"))
    data = other.encode_option("0123456789abcdef", 1)
    assert SIGNER.decode_option(data) is None
    assert SIGNER.decode_option(SIGNER.sign("p", "77", "1700000000")) is None


def test_key_derivation_prefers_the_configured_secret_and_is_stable() -> None:
    assert derive_key("s", "tok") == b"s"
    assert derive_key(None, "tok") == derive_key(None, "tok") != derive_key(None, "tok2")


def test_oversized_data_is_refused_at_signing() -> None:
    with pytest.raises(ValueError):
        SIGNER.encode_option("t" * 60, 1)


# -- option taps ----------------------------------------------------------------------------


def _turn(**kw: object) -> TurnRecord:
    base: dict[str, object] = dict(
        id="t1", chat="telegram:5", user="telegram:5", question="What was revenue?",
        language="en", route="structured", served_by="planner", plan={}, answer_text="",
        options=[{"label": "ACME China", "slot": "entity", "value": "ACME_CN"},
                 {"label": "FY2024", "slot": "period", "value": "FY2024"}],
        fixed_slots={"period": "FY2023"}, latency_ms=1.0, reference_date="2026-06-15")
    base.update(kw)
    return TurnRecord(**base)  # type: ignore[arg-type]


def test_a_tap_reasks_with_the_slot_fixed_on_top_of_earlier_ones() -> None:
    request = tap_request(_turn(), 0, chat="telegram:5", user="telegram:9")
    assert request is not None
    assert request.text == "What was revenue?"
    assert request.fixed_slots == {"period": "FY2023", "entity": "ACME_CN"}
    assert request.parent_turn == "t1" and request.user == "telegram:9"
    assert request.reference_date == dt.date(2026, 6, 15)


def test_a_later_tap_replaces_the_same_slot() -> None:
    request = tap_request(_turn(), 1, chat="telegram:5", user="u")
    assert request is not None and request.fixed_slots == {"period": "FY2024"}


@pytest.mark.parametrize(
    ("turn", "index", "chat"),
    [
        (None, 0, "telegram:5"),  # unknown turn
        (_turn(), 2, "telegram:5"),  # no such option
        (_turn(), -1, "telegram:5"),
        (_turn(), 0, "telegram:6"),  # a button shown in another chat
        (_turn(options=[{"label": "x"}]), 0, "telegram:5"),  # malformed stored option
    ],
)
def test_unknown_taps_expire(turn: TurnRecord | None, index: int, chat: str) -> None:
    assert tap_request(turn, index, chat=chat, user="u") is None


# -- reactions ------------------------------------------------------------------------------

# the sets each adapter's services give the table (adapters/<platform>/words.py)
V = (ReactionVerdicts().own_reactions("telegram", telegram_words.POSITIVE, telegram_words.NEGATIVE)
     .own_reactions("slack", slack_words.POSITIVE, slack_words.NEGATIVE))


def test_core_knows_no_platforms_reactions_and_an_operators_choice_stands() -> None:
    assert ReactionVerdicts().for_reaction("telegram", "👍") is None
    chosen = ReactionVerdicts.configured("telegram", positive=["🐳"], negative=["🦈"])
    kept = chosen.own_reactions("telegram", telegram_words.POSITIVE, telegram_words.NEGATIVE)
    assert kept.for_reaction("telegram", "🐳") == POSITIVE
    assert kept.for_reaction("telegram", "👍") is None


@pytest.mark.parametrize(
    ("platform", "reaction", "verdict"),
    [
        ("telegram", "👍", POSITIVE), ("telegram", "❤", POSITIVE), ("telegram", "❤️", POSITIVE),
        ("telegram", "👍🏽", POSITIVE), ("telegram", "🎉", POSITIVE), ("telegram", "🏆", POSITIVE),
        ("telegram", "👎", NEGATIVE), ("telegram", "💩", NEGATIVE), ("telegram", "😡", NEGATIVE),
        ("telegram", "❤️‍🔥", None), ("telegram", "🐳", None), ("telegram", "+1", None),
        ("slack", "+1", POSITIVE), ("slack", "+1::skin-tone-3", POSITIVE),
        ("slack", "white_check_mark", POSITIVE), ("slack", "x", NEGATIVE),
        ("slack", "-1", NEGATIVE), ("slack", "👍", None), ("discord", "👍", None),
    ],
)
def test_reaction_verdicts(platform: str, reaction: str, verdict: str | None) -> None:
    assert V.for_reaction(platform, reaction) == verdict


@pytest.mark.parametrize(
    ("text", "verdict"),
    [("✓", POSITIVE), (" ✅ ", POSITIVE), ("✗", NEGATIVE), ("❌", NEGATIVE),
     ("✓ thanks", None), ("ok", None), ("", None), (None, None)],
)
def test_reply_verdicts(text: str | None, verdict: str | None) -> None:
    assert V.for_reply(text) == verdict


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ([], ["👍"], (POSITIVE, False)),
        (["👍"], ["👍", "👎"], (NEGATIVE, False)),  # the newly added one wins
        (["👎"], ["🐳"], (None, True)),  # meaningful reaction removed: withdraw
        ([], ["🐳"], (None, False)),  # nothing to say
        (["🐳"], [], (None, False)),
    ],
)
def test_reaction_changes(
    old: list[str], new: list[str], expected: tuple[str | None, bool]
) -> None:
    assert V.for_reaction_change("telegram", old, new) == expected


def test_reaction_sets_are_configurable_and_must_not_overlap() -> None:
    custom = ReactionVerdicts.configured("telegram", positive=["🐳"], base=V)
    assert custom.for_reaction("telegram", "🐳") == POSITIVE
    assert custom.for_reaction("telegram", "👍") is None
    assert custom.for_reaction("telegram", "👎") == NEGATIVE
    with pytest.raises(ValueError):
        ReactionVerdicts.configured("telegram", positive=["👎"], base=V)


# -- admin commands -------------------------------------------------------------------------


class FakeAdmin:
    def __init__(self) -> None:
        self.purged: list[str] = []

    def fastpaths_text(self, n: int = 20, *, cleared: bool = False,
                       language: str = "en") -> str:
        return f"fastpaths {n}"

    def purge(self, target: str, *, language: str = "en") -> str:
        self.purged.append(target)
        return f"purged {target}" if language == "en" else f"{language}: purged {target}"

    def autopaths_text(self, *, cleared: bool = False, language: str = "en") -> str:
        return "autopaths"

    def stats_text(self, last_n: int = 500, *, cleared: bool = False,
                   language: str = "en") -> str:
        return "stats"


@pytest.mark.parametrize(
    ("name", "args", "reply"),
    [
        ("fastpaths", "", "fastpaths 20"), ("fastpaths", "5", "fastpaths 5"),
        ("fastpaths", "99999", "fastpaths 200"), ("fastpaths", "x", "fastpaths 20"),
        ("purge", "abc123", "purged abc123"), ("purge", "all", say("purge_all_prompt", "en")),
        ("autopaths", "", "autopaths"), ("stats", "", "stats"),
        ("shutdown", "", "unknown command /shutdown"),
    ],
)
def test_admin_commands(name: str, args: str, reply: str) -> None:
    assert run_admin_command(FakeAdmin(), name, args, user="telegram:1", is_admin=True) == reply


def test_purge_all_runs_only_when_confirmed() -> None:
    admin = FakeAdmin()
    run_admin_command(admin, "purge", "all", user="telegram:1", is_admin=True)
    assert admin.purged == []
    assert needs_confirmation("purge", " ALL ") and not needs_confirmation("purge", "abc")
    run_admin_command(admin, "purge", "all", user="telegram:1", is_admin=True, confirmed=True)
    assert admin.purged == ["all"]


def test_non_admins_are_refused_politely_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    admin = FakeAdmin()
    with caplog.at_level(logging.INFO, logger="ricorda.admin"):
        text = run_admin_command(admin, "purge", "all", user="telegram:9", is_admin=False,
                                 confirmed=True)
    assert text.startswith("Sorry, only ricorda admins")
    assert admin.purged == []
    assert "telegram:9" in caplog.text and "allowed=False" in caplog.text


# -- chat replies ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("locale", "language"),
    [("it", "it"), ("it-IT", "it"), ("zh-hans", "zh"), ("en-GB", "en"), ("de", "en"), (None, "en")],
)
def test_platform_locales_map_to_bot_languages(locale: str | None, language: str) -> None:
    assert language_for(locale) == language


def test_help_is_localised_and_says_how_to_ask_on_its_platform() -> None:
    assert "domanda" in help_text("it", telegram_how_to_ask("it"))
    assert "/ask" in help_text("zh", telegram_how_to_ask("zh"))
    slack = help_text("en", slack_how_to_ask("en"))
    assert "/ricorda ask" in slack and "/ask <" not in slack and "👍" not in slack


def test_admin_replies_follow_the_readers_language() -> None:
    """Refusals, the purge prompt and the reply of the operation itself are in the language
    of the admin reading them."""
    admin = FakeAdmin()
    refused = run_admin_command(admin, "stats", "", user="telegram:9", is_admin=False,
                                language="it")
    assert refused == "Spiacente, solo gli amministratori di ricorda possono usare /stats."
    prompt = run_admin_command(admin, "purge", "all", user="telegram:1", is_admin=True,
                               language="zh")
    assert prompt.startswith("这会清除所有缓存的计划")
    done = run_admin_command(admin, "purge", "abc", user="telegram:1", is_admin=True,
                             language="it")
    assert done == "it: purged abc"
