"""Values and names as a colleague writes them: the glossary's [units] and labels, in en/it/zh,
exact to the last digit; glossary mistakes in them named with file, line and key."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from bot.kb.ingest import ingest_paths
from bot.settings.model import load_settings
from bot.wiring.build import App, build_app
from core.contracts.errors import ConfigError
from core.contracts.types import Request
from core.knowledge.glossary import parse_glossary
from tests.acme import ACME

DEMO = Path(__file__).resolve().parents[1] / "bot" / "demo"
GOOD = (ACME / "glossary.toml").read_text(encoding="utf-8")
UNITS = """
[units.USD_M]
en = "${value}M"
it = "{value} M$"
zh = { format = "{value}亿美元", shift = -2 }
"""


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> App:
    app = build_app(load_settings(data_dir=tmp_path_factory.mktemp("units"), embedder="hashing"))
    summary = ingest_paths(app, [DEMO / "glossary.toml", DEMO / "facts.csv"])
    assert not summary.problems
    yield app
    app.close()


def ask(app: App, question: str) -> str:
    return app.core.pipeline.answer(Request(question, reference_date=None)).text


@pytest.mark.parametrize(
    ("question", "shown"),
    [
        ("What was Orbis China revenue in FY2024?", "Orbis China revenue, FY2024: €560.4M"),
        ("Qual è il fatturato di Orbis Italia nel 2024?", "Ricavi Orbis Italia, FY2024: 318,9 M€"),
        ("Orbis香港2024年营收是多少？", "Orbis香港2024财年营收：1.521亿欧元"),
        ("What was the gross margin of Orbis Italia in 2024?", "gross margin, FY2024: 45.3%"),
        ("Margine lordo di Orbis Italia nel 2024?", "Margine lordo Orbis Italia, FY2024: 45,3%"),
        ("Orbis China revenue in 2025 vs 2024", "Change FY2025 vs FY2024: -€82.2M (-14.7%)"),
    ],
)
def test_demo_answers_read_like_a_colleague_wrote_them(
    demo: App, question: str, shown: str
) -> None:
    text = ask(demo, question)
    assert shown in text
    assert "EUR_M" not in text and " PCT" not in text


def test_json_keeps_the_unit_code_and_the_exact_value(demo: App) -> None:
    ans = demo.core.pipeline.answer(Request("What was Orbis China revenue in FY2024?"))
    [fact] = ans.to_dict()["facts"]
    assert fact["unit"] == "EUR_M" and fact["value_exact"] == "560.4"


def test_a_shift_moves_the_point_and_keeps_every_digit() -> None:
    g = parse_glossary(GOOD + UNITS)
    assert g.show_value(Decimal("1320"), "USD_M", "zh") == "13.2亿美元"
    assert g.show_value(Decimal("12345678.123456789"), "USD_M", "zh") == "123,456.78123456789亿美元"
    assert g.show_value(Decimal("1320.5"), "USD_M", "it") == "1.320,5 M$"
    assert g.show_value(Decimal("-3.25"), "USD_M", "en") == "-$3.25M"
    assert g.show_value(Decimal("535"), "FTE", "it") == "535 FTE"  # undescribed: the code


def test_a_language_the_unit_does_not_name_uses_english() -> None:
    g = parse_glossary(GOOD + '\n[units.PCT]\nen = "{value}%"\n')
    assert g.show_value(Decimal("40.8"), "PCT", "it") == "40,8%"


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ('\n[units.USD_M]\nen = "$M"\n', "key 'units.USD_M.en': the form must contain {value}"),
        ('\n[units.USD_M]\nfr = "{value} M$"\n', "key 'units.USD_M.fr': unknown language"),
        (
            '\n[units.USD_M]\nzh = { format = "{value}亿", shift = 1.5 }\n',
            "key 'units.USD_M.zh': shift must be a whole number",
        ),
        ('\n[units.USD_M]\nen = { fmt = "{value}" }\n', "unknown key 'fmt'"),
        ("\n[units]\nUSD_M = 3\n", "key 'units.USD_M'"),
    ],
)
def test_unit_mistakes_are_named(extra: str, expected: str) -> None:
    with pytest.raises(ConfigError, match="line") as err:
        parse_glossary(GOOD + extra, source="glossary.toml")
    assert expected in str(err.value)


def test_labels_give_the_display_name_per_language() -> None:
    text = GOOD.replace('unit = "USD_M"', 'unit = "USD_M"\nlabels = { it = "Ricavi" }', 1)
    g = parse_glossary(text)
    assert g.label("metric", "REVENUE", "it") == "Ricavi"
    assert g.label("metric", "REVENUE", "en") == g.metrics["REVENUE"].names[0]
    bad = GOOD.replace('unit = "USD_M"', 'unit = "USD_M"\nlabels = { de = "Umsatz" }', 1)
    with pytest.raises(ConfigError, match="labels"):
        parse_glossary(bad)
