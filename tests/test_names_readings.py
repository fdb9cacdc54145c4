"""Issue 40 (names, units, language) end to end through `ricorda ingest` and `ask --json`, on
two small companies that are not the demo (tests/kbs): "Ledger Tools", whose metric names are
the row labels of its balance sheet and cash-flow statement, and "Kestrel", a retailer whose
sales channel "Stores" shares a word with its metric "Store count".

1. A metric named in other words (order, plurals, qualifiers, a close phrase) is read as it,
   and the reading is stated; two that fit alike are offered as buttons.
2. A metric the glossary does not have is never answered with another ("EBITDA margin").
3. A channel's name inside a metric's ("how many stores …") reads the metric; `check` warns.
4. "in millions", "in milioni", "以万元计" … scale the answer, never the stored figure.
5. The reply is in the question's language, weighed on the whole question; a tie keeps the
   chat's language.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_cli import ricorda

KBS = Path(__file__).resolve().parent / "kbs"
REF = "2025-06-15"


def _load(tmp: pytest.TempPathFactory, name: str) -> Path:
    data = tmp.mktemp(name) / "data"
    ricorda(data, "ingest", str(KBS / name / "glossary.toml"), str(KBS / name / "facts.csv"))
    return data


@pytest.fixture(scope="module")
def ledger(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _load(tmp_path_factory, "ledger")


@pytest.fixture(scope="module")
def kestrel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _load(tmp_path_factory, "kestrel")


def ask(data: Path, question: str, *extra: str) -> dict:  # type: ignore[type-arg]
    out = ricorda(data, "ask", question, "--json", "--reference-date", REF, *extra).stdout
    return json.loads(out)


def found(answer: dict) -> list[tuple[str, str]]:  # type: ignore[type-arg]
    return [(f["metric_code"], f["value_exact"]) for f in answer["facts"]
            if f["status"] == "found"]


def notices(answer: dict, kind: str) -> list[str]:  # type: ignore[type-arg]
    return [n["text"] for n in answer["notices"] if isinstance(n, dict) and n["kind"] == kind]


# -- 1. a metric in other words, read and said so ---------------------------------------------

@pytest.mark.parametrize(
    ("question", "expected", "notice"),
    [
        ("office furniture at cost in 2024", ("FF_AT_COST", "2011.0"),
         "Read 'office furniture' as Furniture and fixtures, at cost"),
        ("cash spent on investing in 2024", ("INVESTING_CF", "-15320.5"),
         "Read 'cash spent on investing' as Net cash used in investing activities"),
        ("deferred revenue, current portion in 2024", ("DEFERRED_REV_CURRENT", "3987.25"),
         "Read 'deferred revenue, current portion' as Current portion of deferred revenue"),
        ("ricavi differiti correnti nel 2024", ("DEFERRED_REV_CURRENT", "3987.25"),
         "Ho letto 'ricavi differiti correnti' come Quota corrente dei ricavi differiti"),
        ("2024年office furniture at cost是多少", ("FF_AT_COST", "2011.0"),
         "已将“office furniture at cost”理解为家具及固定装置（按成本）"),
    ],
)
def test_a_metric_in_other_words_is_read_as_it_and_said_so(
    ledger: Path, question: str, expected: tuple[str, str], notice: str
) -> None:
    answer = ask(ledger, question)
    assert found(answer) == [expected], answer["text"]
    assert notices(answer, "read_as") == [notice]
    assert answer["text"].startswith(notice)


def test_a_name_two_metrics_fit_alike_is_asked_with_a_button_each(ledger: Path) -> None:
    answer = ask(ledger, "net cash in 2024")
    assert found(answer) == [] and answer["route"] == "clarify"
    assert [o["value"] for o in answer["options"]] == ["INVESTING_CF", "OPERATING_CF"]
    assert notices(answer, "no_figure") == []  # both are figures it has: it asks, no more


def test_the_exact_name_needs_no_reading(ledger: Path) -> None:
    answer = ask(ledger, "Furniture and fixtures, at cost in 2024")
    assert found(answer) == [("FF_AT_COST", "2011.0")] and notices(answer, "read_as") == []


# -- 2. never a substitute metric -------------------------------------------------------------

@pytest.mark.parametrize(
    ("kb", "question", "notice"),
    [
        ("ledger", "EBITDA margin in 2024", "I have no figure for EBITDA margin."),
        ("ledger", "margine EBITDA nel 2024", "Non ho dati su margine EBITDA."),
        ("ledger", "2024年的EBITDA margin是多少", "我没有EBITDA margin的数据。"),
        ("kestrel", "what was the EBITDA margin in FY2024?", "I have no figure for EBITDA margin."),
    ],
)
def test_a_metric_the_glossary_lacks_is_never_answered_with_another(
    request: pytest.FixtureRequest, kb: str, question: str, notice: str
) -> None:
    answer = ask(request.getfixturevalue(kb), question)
    assert found(answer) == [], answer["text"]  # neither EBITDA nor the gross margin
    assert notices(answer, "no_figure") == [notice]
    assert {"EBITDA", "GROSS_MARGIN"} <= {o["value"] for o in answer["options"]}


# -- 3. a channel's name inside a metric's ----------------------------------------------------

@pytest.mark.parametrize(
    ("question", "notice"),
    [
        ("how many stores did Kestrel have in FY2024?", "Read 'stores' as Store count"),
        ("quanti negozi aveva Kestrel nel FY2024?", "Ho letto 'negozi' come Numero di negozi"),
        ("Kestrel门店有多少家 FY2024", "已将“门店”理解为门店数量"),
    ],
)
def test_how_many_stores_reads_the_store_count(kestrel: Path, question: str, notice: str) -> None:
    answer = ask(kestrel, question)
    assert found(answer) == [("STORE_COUNT", "231")], answer["text"]
    assert notices(answer, "read_as") == [notice]


def test_stores_beside_a_metric_is_still_the_channel(kestrel: Path) -> None:
    answer = ask(kestrel, "sales in stores in FY2024")
    assert [(f["metric_code"], f["channel"], f["value_exact"]) for f in answer["facts"]] == [
        ("SALES", "STORES", "611.6")]


def test_check_warns_when_a_channel_name_is_a_metric_word(tmp_path: Path) -> None:
    out = ricorda(tmp_path, "check", str(KBS / "kestrel" / "glossary.toml")).stdout
    warning = next(line for line in out.splitlines() if "channels.STORES" in line)
    assert "Store count" in warning and "reads it as Store count" in warning
    demo = Path(__file__).resolve().parents[1] / "bot" / "demo" / "glossary.toml"
    assert "is also in the metric" not in ricorda(tmp_path, "check", str(demo)).stdout


# -- 4. the scale asked for -------------------------------------------------------------------

@pytest.mark.parametrize(
    ("kb", "question", "shown", "scale", "notice"),
    [
        ("kestrel", "marketing spend in millions in FY2024", "€21.3755M", "1e6",
         "Figures shown in millions, as asked."),
        ("kestrel", "spesa di marketing in milioni nel FY2024", "21,3755 M€", "1e6",
         "Valori espressi in milioni, come richiesto."),
        ("kestrel", "FY2024营销费用是多少，以万元计", "2,137.55万EUR", "1e4",
         "数值按要求以万显示。"),
        ("ledger", "revenue in billions in 2024", "0.20145 billion USD", "1e9",
         "Figures shown in billions, as asked."),
        ("ledger", "ricavi in miliardi nel 2024", "0,20145 miliardi USD", "1e9",
         "Valori espressi in miliardi, come richiesto."),
        ("ledger", "2024年营收是多少，以亿计", "2.0145亿USD", "1e8", "数值按要求以亿显示。"),
    ],
)
def test_the_scale_asked_for_is_the_scale_shown(
    request: pytest.FixtureRequest, kb: str, question: str, shown: str, scale: str,
    notice: str,
) -> None:
    answer = ask(request.getfixturevalue(kb), question)
    assert shown in answer["text"], answer["text"]
    fact = answer["facts"][0]
    assert fact["shown_scale"] == scale  # said in the facts; the stored figure unchanged:
    assert fact["value_exact"] in ("21375.5", "201450.0")
    assert notices(answer, "scale") == [notice]


# -- 5. the reply's language ------------------------------------------------------------------

@pytest.mark.parametrize(
    ("question", "language"),
    [
        ("Qual è stato il revenue dell'Italia nel 2024?", "it"),
        ("what was the fatturato of Italy in 2024?", "en"),  # grammar decides, not names
        ("waht was revnue of china 2024", "en"),
        ("waht was fatturato Cina 2024", "en"),  # one misspelt English word, Italian names
        ("gross margin e revenue nel 2024", "it"),  # Italian grammar, English names
    ],
)
def test_the_reply_is_in_the_questions_language(ledger: Path, question: str,
                                                language: str) -> None:
    assert ask(ledger, question)["language"] == language


@pytest.mark.parametrize(
    ("first", "language"),
    [("Qual è stato il fatturato della Cina nel 2024?", "it"), ("2024年中国的营收是多少", "zh"),
     ("what was the revenue of China in 2024?", "en")],
)
def test_a_question_saying_no_language_keeps_the_chats(ledger: Path, first: str,
                                                       language: str) -> None:
    chat = f"console:lang-{language}"
    assert ask(ledger, first, "--chat", chat)["language"] == language
    assert ask(ledger, "EBITDA 2024", "--chat", chat)["language"] == language
