"""What a person reads: the real bot on the demo knowledge base, against the fake Bot API and
the fake Web API, for the main answer kinds in English, Italian and Chinese.

Each case asserts the rendered message, as the platform would show it: values in the reader's
units, sources as titles and pages, no internal codes, no serving footer, options under a
header per slot. docs/replies.md's transcripts are these conversations.
"""

from __future__ import annotations

import html
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from adapters.slack.blocks import unescape
from tests.fake_slack import FakeSlack
from tests.fake_telegram import FakeTelegram
from tests.slack_harness import text_of

DEMO = Path(__file__).resolve().parents[1] / "bot" / "demo"
INTERNAL = re.compile(r"EUR_M|K_ORDERS|\bPCT\b|page=|table=|row=|section=|\.pdf|\.md\b|"
                      r"planner ·|L0a ·|L0b ·|L1 ·")

# (question, what the reader must see, what they must not) per answer kind and language
CASES = [
    ("found-en", "What was Orbis Italia revenue in FY2024?",
     ["Orbis Italia revenue, FY2024: €318.9M", "Orbis FY2024 Annual Report, p. 11"], []),
    ("found-it", "Qual è stato il fatturato di Orbis Italia nel 2024?",
     ["Ricavi Orbis Italia, FY2024: 318,9 M€", "fonte: Orbis FY2024 Annual Report, pag. 11"],
     ["Revenue"]),
    ("found-zh", "2024年意大利区营收是多少？",
     ["2024财年营收：3.189亿欧元", "Orbis FY2024 Annual Report，第11页"], []),
    ("not-found-en", "What was Orbis Hong Kong revenue in FY2019?",
     ["I have no figure for Orbis Hong Kong revenue, FY2019"], ["€"]),
    ("not-found-it", "Qual è stato il fatturato di Orbis Hong Kong nel 2019?",
     ["Non ho un dato per Ricavi Orbis Hong Kong, FY2019"], ["€"]),
    ("not-found-zh", "2019年香港区营收是多少？", ["事实表中没有", "2019财年营收的数据"], ["欧元"]),
    ("refused-en", "What was Vortex revenue in 2024?",
     ["That is outside what I can answer"], ["Vortex"]),
    ("refused-it", "Quanto ha fatturato Vortex nel 2024?",
     ["fuori da ciò a cui posso rispondere"], ["Vortex"]),
    ("refused-zh", "Vortex的营收是多少？", ["这超出了我可以回答的范围"], ["Vortex"]),
    ("metric-asked-en", "How did Orbis China do in 2024?",
     ["Which figure do you mean?"], []),
    ("metric-asked-it", "Come è andata Orbis Cina nel 2024?", ["Quale dato intendi?"], []),
    ("metric-asked-zh", "中国区2024年表现如何？", ["您指的是哪个指标？"], []),
    ("difference-en", "What was China revenue in FY2024 and FY2025?",
     ["€560.4M", "€478.2M", "-€82.2M (-14.7%)"], []),
    ("difference-it", "Fatturato della Cina nel 2024 e nel 2025?",
     ["560,4 M€", "478,2 M€", "-82,2 M€ (-14,7%)"], []),
    ("difference-zh", "中国区2024年和2025年的营收是多少？",
     ["5.604亿欧元", "4.782亿欧元", "-0.822亿欧元（-14.7%）"], []),
    ("narrative-en", "Why did China revenue fall in 2025?",
     ["Why:", "“", "Sources", "[1] "], ["Orbis Italia ha registrato"]),
    ("narrative-it", "Perché il fatturato in Cina è calato nel 2025?",
     ["Perché", "“", "Fonti", "[1] "], []),
    ("composite-en", "How did China revenue change from FY2024 to FY2025 and why?",
     ["-€82.2M (-14.7%)", "Why:", "[1] "], []),
    ("composite-it", "Come sono cambiati i ricavi della Cina dal 2024 al 2025 e perché?",
     ["-82,2 M€ (-14,7%)", "Perché", "[1] "], []),
    ("composite-zh", "中国区营收为什么在2025年下降？",
     ["4.782亿欧元", "归因分析", "来源", "[1] "], []),
]


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo knowledge base, ingested as `ricorda demo` does."""
    from bot.kb.ingest import ingest_paths
    from bot.settings.model import load_settings
    from bot.wiring.build import build_app

    root = tmp_path_factory.mktemp("transcripts")
    shutil.copytree(DEMO, root / "demo")
    app = build_app(load_settings(data_dir=root / "data", embedder="hashing"))
    try:
        summary = ingest_paths(app, [root / "demo" / "glossary.toml", root / "demo" / "facts.csv",
                                     root / "demo" / "docs"])
        assert not summary.problems, summary.problems
    finally:
        app.close()
    return root / "data"


# -- Telegram -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def telegram(data_dir: Path) -> Iterator[FakeTelegram]:
    from tests.telegram_harness import BotProcess

    fake = FakeTelegram().start()
    bot = BotProcess(data_dir, fake, RICORDA_SHOW_FOOTER="false").start()
    yield fake
    bot.stop()
    fake.stop()


def _telegram_ask(fake: FakeTelegram, chat: int, text: str, language: str = "en"
                  ) -> dict[str, Any]:
    before = len(fake.sent(chat))
    fake.inject(fake.text(chat, chat, text, language=language))
    return fake.wait_for(lambda: fake.sent(chat)[before:], timeout=60)[0]


def _seen(markup: str) -> str:
    """The HTML message as the reader sees it: tags gone, entities read."""
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


@pytest.mark.parametrize(("name", "question", "present", "absent"), CASES,
                         ids=[c[0] for c in CASES])
def test_telegram_reads_like_a_colleague(telegram: FakeTelegram, name: str, question: str,
                                         present: list[str], absent: list[str]) -> None:
    chat = 5000 + [c[0] for c in CASES].index(name)
    message = _telegram_ask(telegram, chat, question)
    seen = _seen(message["text"])
    for part in present:
        assert part in seen, seen
    for part in absent:
        assert part not in seen, seen
    assert not INTERNAL.search(seen), seen


def test_telegram_options_come_under_a_header_per_slot(telegram: FakeTelegram) -> None:
    message = _telegram_ask(telegram, 5100, "What was revenue?")
    seen = _seen(message["text"])
    assert "Assumed: Orbis Group (default entity)" in seen
    rows = message["_params"]["reply_markup"]["inline_keyboard"]
    labels = [[b["text"] for b in row] for row in rows]
    headers = [row[0] for row in labels if len(row) == 1 and row[0].endswith(":")]
    assert headers == ["Company or unit:", "Period:"]
    assert ["Orbis China", "Orbis Italia"] in labels
    assert not any("Orbis Labs" in label for row in labels for label in row)  # restricted


@pytest.mark.parametrize(("language", "words"), [
    ("en", "Ask me a question"), ("it", "Fammi una domanda"), ("zh", "请提问")])
def test_telegram_help_follows_the_users_language(telegram: FakeTelegram, language: str,
                                                  words: str) -> None:
    chat = 5101 + ["en", "it", "zh"].index(language)
    message = _telegram_ask(telegram, chat, "/help", language=language)
    assert words in _seen(message["text"])


@pytest.mark.parametrize(("language", "heading"), [
    ("en", "fast paths (most used first)"), ("it", "percorsi rapidi (i più usati prima)"),
    ("zh", "快速路径")])
def test_telegram_admin_listing_is_monospace_in_the_admins_language(
        telegram: FakeTelegram, language: str, heading: str) -> None:
    from tests.telegram_harness import ADMIN

    _telegram_ask(telegram, ADMIN, "What was Orbis Italia revenue in FY2024?")
    message = _telegram_ask(telegram, ADMIN, "/fastpaths", language=language)
    assert message["text"].startswith("<pre>")
    assert heading in _seen(message["text"])


# -- Slack ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def slack(data_dir: Path) -> Iterator[tuple[Any, FakeSlack]]:
    from tests.slack_harness import BotProcess

    fake = FakeSlack().start()
    bot = BotProcess(data_dir, fake, RICORDA_SHOW_FOOTER="false").start()
    yield bot, fake
    bot.stop()
    fake.stop()


def _slack_seen(message: dict[str, Any]) -> str:
    """What the reader sees: every text and button label, Slack's escapes read."""
    return unescape(text_of(message, buttons=True))


@pytest.mark.parametrize(("name", "question", "present", "absent"), CASES,
                         ids=[c[0] for c in CASES])
def test_slack_reads_like_a_colleague(slack: tuple[Any, FakeSlack], name: str, question: str,
                                      present: list[str], absent: list[str]) -> None:
    bot, fake = slack
    channel = f"C5{[c[0] for c in CASES].index(name):07d}"
    before = len(fake.posted(channel))
    assert bot.sender.mention(channel, "U0000501", question).status_code == 200
    message = fake.wait_for(lambda: fake.posted(channel)[before:], timeout=60)[0]
    seen = _slack_seen(message)
    for part in present:
        assert part in seen, seen
    for part in absent:
        assert part not in seen, seen
    assert not INTERNAL.search(seen), seen
    assert "<" not in message["text"]  # the notification text is escaped too


def test_slack_options_come_under_a_header_per_slot(slack: tuple[Any, FakeSlack]) -> None:
    bot, fake = slack
    channel = "C5100000"
    assert bot.sender.mention(channel, "U0000502", "Qual è stato il fatturato?").status_code == 200
    message = fake.wait_for(lambda: fake.posted(channel), timeout=60)[0]
    blocks = message["blocks"]
    kinds = [b["type"] for b in blocks]
    headers = [blocks[i]["elements"][0]["text"] for i, kind in enumerate(kinds)
               if kind == "context" and i + 1 < len(blocks) and kinds[i + 1] == "actions"]
    assert headers == ["*Società o unità:*", "*Periodo:*"]
    assert "Ho assunto: Orbis Group (entità predefinita)" in _slack_seen(message)


# -- analysis: ranges with their chart, breakdowns, rankings, derived metrics -----------------

ANALYSIS = [
    ("range-en", "China revenue from FY2021 to FY2025", True,
     ["FY2021", "€455.0M", "FY2025", "€478.2M", "-€82.2M", "-14.7%"]),
    ("range-it", "Fatturato della Cina dal 2021 al 2025", True,
     ["FY2021", "455,0 M€", "-82,2 M€", "-14,7%"]),
    ("breakdown-it", "Fatturato per società nel 2024", True,
     # the group total would give Orbis Labs (restricted) by difference: withheld, and the
     # visible units' sum named by them (issue 33: withhold, never rename)
     ["Orbis Cina", "560,4 M€", "54,3%", "Orbis Italia e Orbis Hong Kong insieme",
      "1.031,4 M€", "Il dato di Orbis Group non è mostrato in questa chat"]),
    ("breakdown-zh", "2024年各地区营收", True, ["5.604亿欧元", "54.3%", "10.314亿欧元",
                                               "Orbis香港合计", "本对话不显示Orbis集团的数据"]),
    ("ranking-en", "Which unit grew fastest in 2025?", True,
     ["First: Orbis Italia, +10.6%.", "1. Orbis Italia", "€352.6M", "3. Orbis China"]),
    ("derived-it", "Qual è il margine EBITDA di Orbis Italia nel 2024?", False,
     ["Margine EBITDA Orbis Italia, FY2024: 15,6%", "EBITDA 49,8 M€ ÷ ricavi 318,9 M€"]),
    ("derived-en", "What is the EBITDA margin of Orbis Italia in 2024?", False,
     ["Orbis Italia EBITDA margin, FY2024: 15.6%", "÷ revenue €318.9M"]),
]


@pytest.mark.parametrize(("name", "question", "chart", "present"), ANALYSIS,
                         ids=[c[0] for c in ANALYSIS])
def test_telegram_analysis_comes_as_a_table_with_its_chart(
        telegram: FakeTelegram, name: str, question: str, chart: bool,
        present: list[str]) -> None:
    """A table answer: the chart as a photo whose caption is the table, then the rest of the
    answer (sources) as text; a single derived figure is one text message, no chart."""
    chat = 5200 + [c[0] for c in ANALYSIS].index(name)
    before = len(telegram.sent(chat))
    telegram.inject(telegram.text(chat, chat, question))
    text = telegram.wait_for(lambda: telegram.sent(chat)[before:], timeout=60)[0]
    photos = telegram.photos(chat)
    seen = _seen(text["text"])
    if chart:
        (photo,) = photos
        assert photo["_image"].startswith(b"\x89PNG") and len(photo["_image"]) > 10_000
        seen = _seen(photo["caption"]) + "\n" + seen
        assert photo["message_id"] < text["message_id"]  # the chart first, then the text
    else:
        assert photos == []
    for part in present:
        assert part in seen, seen
    assert not INTERNAL.search(seen), seen


@pytest.mark.parametrize(("name", "question", "chart", "present"),
                         [c for c in ANALYSIS if c[0] in ("range-en", "breakdown-zh",
                                                          "derived-it")],
                         ids=["range-en", "breakdown-zh", "derived-it"])
def test_slack_analysis_comes_as_a_table_with_its_chart(
        slack: tuple[Any, FakeSlack], name: str, question: str, chart: bool,
        present: list[str]) -> None:
    bot, fake = slack
    channel = f"C52{[c[0] for c in ANALYSIS].index(name):06d}"
    assert bot.sender.mention(channel, "U0000503", question).status_code == 200
    message = fake.wait_for(lambda: fake.posted(channel), timeout=60)[0]
    seen = _slack_seen(message)
    for part in present:
        assert part in seen, seen
    files = fake.files(channel)
    if chart:
        (upload,) = files
        assert upload["data"].startswith(b"\x89PNG") and upload["thread_ts"]
    else:
        assert files == []
    assert not INTERNAL.search(seen), seen
