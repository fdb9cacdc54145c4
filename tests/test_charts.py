"""Charts of computed tables: the PNG itself (a line with gaps for a series, bars for a
breakdown, Chinese labels drawn as glyphs, no warning spam), and the chat adapters sending it
against the fake Bot API and the fake Web API: Telegram's photo with the table as its caption
(or the table as text after it when too long), Slack's external upload into the thread, the
answer still going out as text when a chart fails or charts are off.

The adapters are driven with a test answerer returning an Answer that holds a Table, so these
tests do not depend on which questions the planner turns into tables.
"""

from __future__ import annotations

import asyncio
import io
import itertools
import json
import logging
import re
import struct
import warnings
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_sdk.web.async_client import AsyncWebClient

from adapters import charts
from adapters.charts import (
    LINE_COLOUR,
    chart_for,
    chart_table,
    font_families,
    render_chart,
)
from adapters.slack.application import build_bolt_app, web_client
from adapters.slack.questions import SlackPort
from adapters.slack.services import SlackServices
from adapters.telegram.application import ALLOWED_UPDATES, Limits, build_application
from adapters.telegram.render import CAPTION_LIMIT, table_caption, title_caption, utf16_len
from adapters.telegram.services import TelegramServices
from core.catalog.presentation import present
from core.chat.callback_token import CallbackSigner, derive_key
from core.chat.chat_turn import ChatTurns
from core.contracts.types import Answer, Citation, Line, Request, Route, Source, Table
from tests.acme import load_acme
from tests.fake_slack import BOT_TOKEN, BOT_USER, FakeSlack
from tests.fake_telegram import TOKEN, FakeTelegram
from tests.slack_harness import event_callback, mention_event
from tests.telegram_harness import BotProcess

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
USER, CHAT, GROUP = 501, 501, -100777


# -- tables and answers --------------------------------------------------------------------


def series_table(n: int = 5, *, missing: tuple[int, ...] = (), notes: tuple[str, ...] = (),
                 title: str = "Orbis China revenue, FY2021–FY2025") -> Table:
    points = tuple((f"FY{2021 + i}", None if i in missing else 700.0 + 45.5 * i)
                   for i in range(n))
    rows = tuple((label, "–" if v is None else f"{v:,.1f}") for label, v in points)
    return Table(kind="series", title=title, columns=("Period", "Revenue (€M)"), rows=rows,
                 points=points, unit="€M", notes=notes)


def breakdown_table(labels: tuple[str, ...] = ("Orbis China", "Orbis Italia", "Orbis HK"),
                    title: str = "Revenue by entity, FY2024") -> Table:
    points = tuple((label, 900.0 - 210.5 * i) for i, label in enumerate(labels))
    return Table(kind="breakdown", title=title, columns=("Entity", "Revenue (€M)"),
                 rows=tuple((label, f"{v:,.1f}") for label, v in points), points=points,
                 unit="€M")


_turns = itertools.count(1)


def table_answer(table: Table, *, intro: str = "Orbis China revenue by fiscal year:") -> Answer:
    """An answer as the planner builds one for a series: a sentence, the table, a source."""
    source = Source("orbis_fy2024_annual_report.pdf", "page=11")
    return Answer(
        turn_id=f"turn-{next(_turns)}", route=Route.STRUCTURED, served_by="planner",
        text=intro, language="en", succeeded=True, sources=[source],
        segments=[Line("fact", intro), table],
        citations=[Citation(1, source, "Orbis FY2024 Annual Report, p. 11")],
    )


# -- PNG reading -------------------------------------------------------------------------


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == PNG_SIGNATURE
    width, height = struct.unpack(">II", data[16:24])  # the IHDR chunk comes first
    return width, height


def assert_sane_png(data: bytes) -> None:
    assert data[:8] == PNG_SIGNATURE
    width, height = png_size(data)
    assert 600 <= width <= 2000 and 300 <= height <= 1200
    assert 5_000 < len(data) < 1_000_000  # a real picture, small enough to upload at once


def line_columns(data: bytes) -> list[int]:
    """The x pixel columns where the series line's colour appears."""
    image = Image.open(io.BytesIO(data)).convert("RGB")
    target = tuple(int(LINE_COLOUR[i:i + 2], 16) for i in (1, 3, 5))
    pixels = image.load()
    assert pixels is not None
    return [x for x in range(image.width)
            if any(sum(abs(a - b) for a, b in zip(pixels[x, y], target, strict=True)) < 30
                   for y in range(0, image.height, 1))]


def holes(columns: list[int], *, wider_than: int) -> int:
    """How many gaps wider than `wider_than` pixels split the columns."""
    return sum(1 for a, b in itertools.pairwise(columns) if b - a > wider_than)


# -- render_chart ------------------------------------------------------------------------


def test_a_series_is_a_png_line_chart_of_sane_size() -> None:
    data = render_chart(series_table(20))
    assert_sane_png(data)
    assert holes(line_columns(data), wider_than=3) == 0  # one unbroken line


def test_a_missing_period_is_a_gap_in_the_line_never_a_zero() -> None:
    whole = render_chart(series_table(8))
    gapped = render_chart(series_table(8, missing=(3, 4)))
    assert holes(line_columns(whole), wider_than=3) == 0
    assert holes(line_columns(gapped), wider_than=30) == 1  # two runs of line, apart
    # a zero in their place would have joined the two runs through the bottom of the chart
    zeros = series_table(8)
    zeros = Table(kind="series", title=zeros.title, columns=zeros.columns, rows=zeros.rows,
                  points=tuple((label, 0.0 if i in (3, 4) else v)
                               for i, (label, v) in enumerate(zeros.points)), unit="€M")
    assert holes(line_columns(render_chart(zeros)), wider_than=3) == 0


def test_a_breakdown_is_a_bar_chart_with_negative_and_missing_values() -> None:
    table = Table(kind="ranking", title="Revenue growth FY2025 vs FY2024",
                  columns=("Entity", "Growth %"), rows=(),
                  points=(("Orbis China", 12.5), ("Orbis HK", None), ("Orbis Italia", -3.2),
                          ("US$ unit", 4.0)),  # "$" is text, not the start of a formula
                  unit="%")
    data = render_chart(table)
    assert_sane_png(data)
    assert line_columns(data) == []  # bars, not a line
    assert data != render_chart(breakdown_table())


def test_the_caption_is_escaped_html_and_a_long_title_is_cut_to_fit() -> None:
    table = series_table(3, title="R&D <spend> of Orbis", notes=("No figure for <FY2022>.",))
    caption = table_caption(table)
    assert caption.startswith("<b>R&amp;D &lt;spend&gt; of Orbis</b>\n<pre>")
    assert caption.endswith("<i>No figure for &lt;FY2022&gt;.</i>")
    long_title = title_caption(series_table(3, title="Revenue 收入 " * 200))
    assert long_title.startswith("<b>Revenue 收入") and long_title.endswith("</b>")
    assert utf16_len(long_title) <= CAPTION_LIMIT


def test_a_table_with_nothing_to_plot_has_no_chart() -> None:
    empty = series_table(3, missing=(0, 1, 2))
    single = series_table(3, missing=(0, 1))
    with pytest.raises(ValueError):
        render_chart(empty)
    assert chart_table(table_answer(empty)) is None
    assert chart_table(table_answer(single)) is None  # one number: the table says it all
    assert chart_table(table_answer(series_table(2))) is not None
    no_table = table_answer(series_table(2))
    no_table.segments = [Line("fact", "Orbis China revenue in FY2024 was €812.4M.")]
    assert chart_table(no_table) is None


def test_chinese_labels_render_without_warnings(caplog: pytest.LogCaptureFixture) -> None:
    """Whatever fonts the machine has: no warning per glyph, at most one log line saying
    Chinese glyphs are missing."""
    caplog.set_level(logging.INFO)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            assert_sane_png(render_chart(breakdown_table(("中国", "意大利", "香港"),
                                                         title="2024年各地区收入")))
            assert_sane_png(render_chart(series_table(5, title="中国收入 2021–2025")))
    assert [str(w.message) for w in caught] == []
    assert [r for r in caplog.records if r.name.startswith("matplotlib")
            and r.levelno >= logging.WARNING] == []
    assert len([r for r in caplog.records if r.name == "ricorda.charts"]) <= 1


def test_without_a_chinese_font_the_log_says_so_once(monkeypatch: pytest.MonkeyPatch,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    """A machine with no font for Chinese: charts still come, boxes for the glyphs, one log
    line (not one warning per glyph per chart)."""
    monkeypatch.setattr(charts, "CJK_FAMILIES", ())
    monkeypatch.setattr(charts, "_CJK_FILE_HINTS", ())
    monkeypatch.setattr(charts, "_warned_no_cjk", False)
    charts.font_families.cache_clear()
    caplog.set_level(logging.INFO)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for _ in range(3):
                assert_sane_png(render_chart(breakdown_table(("中国", "香港"), title="收入")))
        assert font_families() == ("DejaVu Sans",)
    finally:
        charts.font_families.cache_clear()
    assert [str(w.message) for w in caught] == []
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(said) == 1 and "no font with Chinese glyphs" in said[0]


@pytest.mark.skipif(len(font_families()) < 2,
                    reason="no font with Chinese glyphs installed (fonts-wqy-microhei)")
def test_chinese_labels_are_drawn_as_glyphs_not_boxes() -> None:
    """Two different Chinese labels of the same length give different pictures: missing
    glyphs would both be the same empty box."""
    china = render_chart(breakdown_table(("中国", "意大利"), title="Revenue"))
    hong_kong = render_chart(breakdown_table(("香港", "意大利"), title="Revenue"))
    assert china != hong_kong


def test_a_failing_chart_is_logged_and_gives_no_chart(
        caplog: pytest.LogCaptureFixture) -> None:
    def broken(table: Table) -> bytes:
        raise RuntimeError("matplotlib exploded")

    answer = table_answer(series_table(5))
    assert asyncio.run(chart_for(answer, broken)) is None
    assert "chart for turn" in caplog.text and "matplotlib exploded" in caplog.text
    assert asyncio.run(chart_for(answer, None)) is None  # charts off
    table, png = asyncio.run(chart_for(answer, render_chart)) or (None, b"")
    assert table is answer.segments[1]
    assert_sane_png(png)


# -- Telegram, against the fake Bot API ------------------------------------------------------


class MemoryTurns:
    """The turn/message map, in a dict."""

    def __init__(self) -> None:
        self.messages: dict[tuple[str, str, str], str] = {}

    def get_turn(self, turn_id: str) -> None:
        return None

    def map_message(self, platform: str, chat: str, message_id: str | int,
                    turn_id: str) -> None:
        self.messages[(platform, chat, str(message_id))] = turn_id

    def turn_for_message(self, platform: str, chat: str, message_id: str | int) -> str | None:
        return self.messages.get((platform, chat, str(message_id)))


class Verdicts:
    def __init__(self) -> None:
        self.recorded: list[tuple[str, str, str]] = []

    def record(self, turn_id: str, user: str, verdict: str, *, via: str) -> None:
        self.recorded.append((turn_id, user, verdict))

    def withdraw(self, turn_id: str, user: str) -> None:
        self.recorded = [r for r in self.recorded if r[:2] != (turn_id, user)]


class Answerer:
    """The `ask` seam: answers every question with the next prepared answer."""

    def __init__(self, *answers: Answer) -> None:
        self.answers = list(answers)
        self.given: list[Answer] = []
        self.questions: list[Request] = []

    def __call__(self, request: Request) -> Answer:
        self.questions.append(request)
        answer = self.answers.pop(0)
        self.given.append(answer)
        return answer


def services_kwargs(ask: Answerer, *, chart: Any = render_chart) -> dict[str, Any]:
    return {"ask": ask, "feedback": Verdicts(), "admin": None, "turns": MemoryTurns(),
            "signer": CallbackSigner(derive_key(None, TOKEN)), "chart": chart}


@pytest.fixture
def telegram() -> Iterator[FakeTelegram]:
    fake = FakeTelegram().start()
    yield fake
    fake.stop()


def run_telegram(fake: FakeTelegram, services: TelegramServices,
                 scenario: Callable[[], Awaitable[None]]) -> None:
    """The real Telegram application, polling the fake, while `scenario` runs."""

    async def main() -> None:
        app = build_application(services, token=TOKEN, api_url=fake.url,
                                limits=Limits(overall_per_second=None, group_per_minute=None))
        async with app:
            await app.start()
            assert app.updater is not None
            await app.updater.start_polling(poll_interval=0.0, timeout=1,
                                            allowed_updates=list(ALLOWED_UPDATES))
            try:
                await scenario()
            finally:
                await app.updater.stop()
                await app.stop()

    try:
        asyncio.run(main())
    finally:
        services.close()


async def until(fake: FakeTelegram | FakeSlack, predicate: Callable[[], Any]) -> Any:
    return await asyncio.to_thread(fake.wait_for, predicate, 20)


def test_telegram_sends_the_chart_with_the_table_as_caption_then_the_rest(
        telegram: FakeTelegram) -> None:
    table = series_table(5, missing=(1,), notes=("No figure for FY2022.",))
    ask = Answerer(table_answer(table))
    services = TelegramServices(**services_kwargs(ask))
    feedback = services.feedback

    async def scenario() -> None:
        question = telegram.text(GROUP, USER, "/ask China revenue from FY2021 to FY2025")
        telegram.inject(question)
        await until(telegram, lambda: telegram.sent(GROUP))
        (photo,) = telegram.photos(GROUP)
        assert_sane_png(photo["_image"])
        assert photo["_filename"].endswith(".png")
        caption = photo["caption"]
        assert caption.startswith("<b>Orbis China revenue, FY2021–FY2025</b>")
        assert "<pre>" in caption and "FY2023" in caption and "No figure for FY2022." in caption
        # the photo answers the question; the text follows without repeating the table
        assert photo["_params"]["reply_parameters"]["message_id"] == question["message"][
            "message_id"]
        (text,) = telegram.sent(GROUP)
        assert text["message_id"] > photo["message_id"]
        assert "Orbis China revenue by fiscal year:" in text["text"]
        assert "Orbis FY2024 Annual Report, p. 11" in text["text"]
        assert "FY2023" not in text["text"] and "<pre>" not in text["text"]
        # a reaction on the photo is feedback on the answer, like one on its text
        await until(telegram, lambda: services.turns.turn_for_message(
            "telegram", f"telegram:{GROUP}", text["message_id"]))
        telegram.inject(telegram.reaction(GROUP, USER, photo["message_id"], ["👍"]))
        await until(telegram, lambda: feedback.recorded)
        assert feedback.recorded == [(ask.given[0].turn_id, f"telegram:{USER}", "positive")]

    run_telegram(telegram, services, scenario)


def test_telegram_long_table_goes_as_text_after_a_photo_titled_caption(
        telegram: FakeTelegram) -> None:
    table = Table(kind="breakdown", title="Revenue by channel and entity, FY2024",
                  columns=("Entity", "Channel", "Revenue (€M)", "Share"),
                  rows=tuple((f"Orbis unit number {i}", "online and retail", f"{100 + i}.0",
                              f"{i}.5%") for i in range(30)),
                  points=tuple((f"Orbis unit number {i}", 100.0 + i) for i in range(30)),
                  unit="€M")
    ask = Answerer(table_answer(table, intro="Revenue by entity in FY2024:"))
    services = TelegramServices(**services_kwargs(ask))

    async def scenario() -> None:
        telegram.inject(telegram.text(CHAT, USER, "revenue by entity for FY2024"))
        await until(telegram, lambda: telegram.sent(CHAT) and services.turns.messages)
        (photo,) = telegram.photos(CHAT)
        assert_sane_png(photo["_image"])
        assert photo["caption"] == "<b>Revenue by channel and entity, FY2024</b>"
        texts = "\n".join(m["text"] for m in telegram.sent(CHAT))
        assert "Orbis unit number 29" in texts and "<pre>" in texts  # the whole table as text
        assert all(m["message_id"] > photo["message_id"] for m in telegram.sent(CHAT))
        assert utf16_len(photo["caption"]) <= CAPTION_LIMIT
        # every message of the answer maps to its turn: the photo and each text part
        turns = services.turns
        shown = [photo, *telegram.sent(CHAT)]
        assert {turns.turn_for_message("telegram", f"telegram:{CHAT}", m["message_id"])
                for m in shown} == {ask.given[0].turn_id}

    run_telegram(telegram, services, scenario)


def test_telegram_answers_as_text_when_the_photo_is_refused_or_the_chart_fails(
        telegram: FakeTelegram) -> None:
    def broken(table: Table) -> bytes:
        raise RuntimeError("no canvas today")

    ask = Answerer(table_answer(series_table(4)), table_answer(series_table(4)))
    refused = TelegramServices(**services_kwargs(ask))

    async def photo_refused() -> None:
        telegram.refuse("sendPhoto", "Bad Request: IMAGE_PROCESS_FAILED")
        telegram.inject(telegram.text(CHAT, USER, "China revenue trend"))
        await until(telegram, lambda: telegram.sent(CHAT))
        assert telegram.photos(CHAT) == [] and len(telegram.calls("sendPhoto")) == 1
        (text,) = telegram.sent(CHAT)
        assert "<pre>" in text["text"] and "FY2024" in text["text"]  # the table, as text

    run_telegram(telegram, refused, photo_refused)

    failing = TelegramServices(**services_kwargs(ask, chart=broken))

    async def chart_fails() -> None:
        telegram.inject(telegram.text(CHAT + 1, USER, "China revenue trend"))
        await until(telegram, lambda: telegram.sent(CHAT + 1))
        assert telegram.photos(CHAT + 1) == []
        assert "<pre>" in telegram.sent(CHAT + 1)[0]["text"]

    run_telegram(telegram, failing, chart_fails)
    assert len(telegram.calls("sendPhoto")) == 1  # nothing more was tried


def test_telegram_without_charts_sends_the_table_as_text_only(telegram: FakeTelegram) -> None:
    ask = Answerer(table_answer(series_table(5)))
    services = TelegramServices(**services_kwargs(ask, chart=None))

    async def scenario() -> None:
        telegram.inject(telegram.text(CHAT, USER, "China revenue from FY2021 to FY2025"))
        await until(telegram, lambda: telegram.sent(CHAT))
        assert telegram.calls("sendPhoto") == []
        assert "<pre>" in telegram.sent(CHAT)[0]["text"]

    run_telegram(telegram, services, scenario)


# -- Slack, against the fake Web API ---------------------------------------------------------


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    fake = FakeSlack().start()
    yield fake
    fake.stop()


def slack_answer(fake: FakeSlack, services: SlackServices, answer: Answer, channel: str,
                 thread_ts: str | None) -> list[str]:
    async def main() -> list[str]:
        client = AsyncWebClient(token=BOT_TOKEN, base_url=fake.api_url)
        port = SlackPort(services, client, channel, "U0000999", thread=thread_ts)
        turns = ChatTurns(services, "slack", draw=lambda a: chart_for(a, services.chart))
        sent = await turns.deliver(answer, present(answer, show_footer=services.show_footer),
                                   port)
        await turns.link(f"slack:{channel}", sent, answer.turn_id)
        return sent

    try:
        return asyncio.run(main())
    finally:
        services.close()


def test_slack_uploads_the_chart_into_the_thread_then_posts_the_answer(
        slack: FakeSlack) -> None:
    answer = table_answer(breakdown_table())
    services = SlackServices(**services_kwargs(Answerer()))
    posted = slack_answer(slack, services, answer, "C0CHART", "1700000000.000001")
    (upload,) = slack.files("C0CHART")
    assert_sane_png(upload["data"])
    assert upload["filename"] == "chart.png" and upload["title"] == "Revenue by entity, FY2024"
    assert upload["thread_ts"] == "1700000000.000001"
    names = [c.method for c in slack.calls()]
    assert names.index("files.getUploadURLExternal") < names.index(
        "files.completeUploadExternal") < names.index("chat.postMessage")
    (message,) = slack.posted("C0CHART")
    assert message["thread_ts"] == "1700000000.000001"
    assert "Orbis Italia" in str(message["blocks"])  # the table is still there as text
    # the file's message and the answer both map to the turn: a reaction on either counts
    assert posted == [upload["ts"], message["ts"]]
    assert {services.turns.turn_for_message("slack", "slack:C0CHART", ts)
            for ts in posted} == {answer.turn_id}


def test_slack_mention_gets_the_chart_in_its_thread_and_a_reaction_on_it_counts(
        slack: FakeSlack) -> None:
    """Through bolt, as Slack delivers it: a mention, the chart uploaded into the mention's
    thread, the answer after it; a 👍 on the chart is feedback on the answer."""
    ask = Answerer(table_answer(series_table(5, missing=(2,))))
    services = SlackServices(**services_kwargs(ask))
    client = web_client(BOT_TOKEN, base_url=slack.api_url)
    bolt = build_bolt_app(services, client=client, signing_secret=None)
    mention = mention_event("C0ASK", "UASKER1", "China revenue from FY2021 to FY2025")

    async def deliver(event: dict[str, Any]) -> None:
        body = json.dumps(event_callback(event))
        await bolt.async_dispatch(AsyncBoltRequest(
            body=body, headers={"content-type": "application/json"}, mode="socket_mode"))

    async def scenario() -> None:
        await deliver(mention)
        await until(slack, lambda: slack.posted("C0ASK") and services.turns.messages)
        (upload,) = slack.files("C0ASK")
        assert_sane_png(upload["data"])
        assert upload["thread_ts"] == mention["ts"]
        (message,) = slack.posted("C0ASK")
        assert message["thread_ts"] == mention["ts"] and "FY2025" in str(message["blocks"])
        assert ask.questions[0].text == "China revenue from FY2021 to FY2025"
        await deliver({"type": "reaction_added", "user": "UASKER1", "reaction": "+1",
                       "item_user": BOT_USER,
                       "item": {"type": "message", "channel": "C0ASK", "ts": upload["ts"]},
                       "event_ts": upload["ts"]})
        await until(slack, lambda: services.feedback.recorded)
        assert services.feedback.recorded == [(ask.given[0].turn_id, "slack:UASKER1",
                                               "positive")]

    try:
        asyncio.run(scenario())
    finally:
        services.close()


def test_slack_answers_as_text_when_the_upload_is_refused(slack: FakeSlack,
                                                          caplog: pytest.LogCaptureFixture
                                                          ) -> None:
    slack.refuse("files.completeUploadExternal", "missing_scope")
    services = SlackServices(**services_kwargs(Answerer()))
    try:
        posted = slack_answer(slack, services, table_answer(series_table(5)), "C0NOPE", None)
    finally:
        slack.refuse("files.completeUploadExternal", None)
    assert slack.files() == []
    (message,) = slack.posted("C0NOPE")
    assert posted == [message["ts"]]
    assert "FY2025" in str(message["blocks"])
    assert "chart upload to C0NOPE refused: missing_scope" in caplog.text


def test_slack_without_charts_uploads_nothing(slack: FakeSlack) -> None:
    services = SlackServices(**services_kwargs(Answerer(), chart=None))
    slack_answer(slack, services, table_answer(series_table(5)), "C0OFF", None)
    assert [c.method for c in slack.calls()] == ["chat.postMessage"]


# -- the setting, in `ricorda serve` --------------------------------------------------------


@pytest.mark.parametrize("charts", ["true", "false"])
def test_serve_warms_charts_up_unless_they_are_off(telegram: FakeTelegram, tmp_path: Path,
                                                   charts: str) -> None:
    bot = BotProcess(load_acme(tmp_path), telegram, RICORDA_CHARTS=charts).start()
    try:
        ready = telegram.wait_for(lambda: re.search(r"ready: .*", bot.output()), timeout=30)
    finally:
        bot.stop()
    assert ("charts" in ready[0]) == (charts == "true")
    assert "Traceback" not in bot.output()
