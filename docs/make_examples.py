"""The example replies on the platform pages, drawn from the adapters' own output: the demo
knowledge base answers one question, then Telegram's HTML (adapters/telegram/render.py), Slack's
Block Kit (adapters/slack/blocks.py) and Teams' Adaptive Card (adapters/teams/cards.py) for that
answer are drawn as each chat shows them (text and chart; a sketch, not the clients' pixels),
with the chart itself (adapters/charts.py) beside them.

    python docs/make_examples.py          # writes docs/images/*.png (committed)
"""

from __future__ import annotations

import asyncio
import base64
import datetime as dt
import html
import io
import re
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
OUT = REPO / "docs" / "images"
QUESTION = "China revenue from FY2021 to FY2025"
WIDTH, PAD, LINE = 760, 24, 20
COLOURS = {"telegram": "#2AABEE", "slack": "#4A154B", "teams": "#5B5FC7"}


def demo_answer():
    from bot.kb.ingest import ingest_paths
    from bot.settings.model import load_settings
    from bot.wiring.build import build_app
    from core.contracts.types import Request

    demo = REPO / "bot" / "demo"
    app = build_app(load_settings(data_dir=Path(tempfile.mkdtemp()) / "data", embedder="hashing"))
    try:
        summary = ingest_paths(app, [demo / "glossary.toml", demo / "facts.csv", demo / "docs"])
        assert not summary.problems, summary.problems
        return app.core.answering.answer(Request(text=QUESTION, chat="console:docs", user="docs",
                                                 reference_date=dt.date(2026, 6, 15)))
    finally:
        app.close()


def telegram_lines(shown) -> list[str]:
    from adapters.telegram.render import answer_messages

    text = "\n".join(answer_messages(shown))
    return html.unescape(re.sub(r"<[^>]+>", "", text)).splitlines()


def slack_lines(shown, turn_id: str) -> list[str]:
    from adapters.slack.blocks import answer_messages, unescape
    from core.chat.callback_token import CallbackSigner

    lines: list[str] = []
    for message in answer_messages(shown, signer=CallbackSigner(b"docs" * 8), turn_id=turn_id):
        for block in message.blocks:
            texts = [block.get("text") or {}, *list(block.get("elements") or [])]
            for text in texts:
                if isinstance(text, dict) and text.get("type") == "mrkdwn":
                    lines += unescape(re.sub(r"[*_`]", "", text["text"])).splitlines()
    return lines


def teams_lines(shown, turn_id: str, chart: bytes) -> tuple[list[str], bytes | None]:
    from adapters.teams.cards import answer_card
    from core.chat.callback_token import CallbackSigner

    card = answer_card(shown, signer=CallbackSigner(b"docs" * 8), turn_id=turn_id, chart=chart)
    lines, image = [], None
    for block in card["body"]:
        if block["type"] == "TextBlock":
            lines += re.sub(r"\\(.)", r"\1", block["text"]).splitlines()
        elif block["type"] == "Image":
            image = base64.b64decode(block["url"].split(",", 1)[1])
    return lines, image


def draw(platform: str, lines: list[str], chart: bytes | None, *, chart_first: bool) -> bytes:
    """A header in the platform's colour, the question, then the reply as its lines and chart."""
    import matplotlib
    from PIL import Image, ImageDraw, ImageFont

    fonts = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
    mono = ImageFont.truetype(str(fonts / "DejaVuSansMono.ttf"), 14)
    bold = ImageFont.truetype(str(fonts / "DejaVuSans-Bold.ttf"), 16)
    picture = None
    if chart is not None:
        picture = Image.open(io.BytesIO(chart)).convert("RGB")
        picture = picture.resize((WIDTH - 2 * PAD, int(picture.height * (WIDTH - 2 * PAD)
                                                        / picture.width)))
    height = 60 + 50 + LINE * len(lines) + (picture.height + PAD if picture else 0) + 2 * PAD
    image = Image.new("RGB", (WIDTH, height), "white")
    pen = ImageDraw.Draw(image)
    pen.rectangle((0, 0, WIDTH, 44), fill=COLOURS[platform])
    pen.text((PAD, 12), f"ricorda on {platform.title()}", fill="white", font=bold)
    pen.text((PAD, 60), f"You: {QUESTION}", fill="#333333", font=bold)
    y = 100
    if picture is not None and chart_first:
        image.paste(picture, (PAD, y))
        y += picture.height + PAD
    for line in lines:
        pen.text((PAD, y), line, fill="#111111", font=mono)
        y += LINE
    if picture is not None and not chart_first:
        image.paste(picture, (PAD, y + PAD // 2))
    out = io.BytesIO()
    image.save(out, "PNG", optimize=True)
    return out.getvalue()


def main() -> None:
    from adapters.charts import chart_for, render_chart
    from core.catalog.presentation import present

    answer = demo_answer()
    shown = present(answer)
    made = asyncio.run(chart_for(answer, render_chart))
    assert made is not None, "the example question must have a chart"
    chart = made[1]
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "example-chart.png").write_bytes(chart)
    # Telegram sends the chart as a photo before the text; Slack uploads it into the thread
    # before the answer; Teams puts it in the card under the table
    (OUT / "telegram-reply.png").write_bytes(draw("telegram", telegram_lines(shown), chart,
                                                  chart_first=True))
    (OUT / "slack-reply.png").write_bytes(draw("slack", slack_lines(shown, answer.turn_id),
                                               chart, chart_first=True))
    lines, card_chart = teams_lines(shown, answer.turn_id, chart)
    (OUT / "teams-reply.png").write_bytes(draw("teams", lines, card_chart, chart_first=False))
    print(f"wrote {', '.join(sorted(p.name for p in OUT.glob('*.png')))} in {OUT}")


if __name__ == "__main__":
    main()
