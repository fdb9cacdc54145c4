"""Series, breakdowns, rankings and comparisons (issue 17) on the demo knowledge base.

The intent table pins what each wording asks for in en/it/zh, including what must not change
(a single period stays one lookup, "why" stays a narrative question, "2024 and 2025" stays two
periods). The answer tests check every number against the demo facts, the arithmetic to the
last digit, clearance, and `ricorda ask` (plain and --json) end to end.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
from decimal import Decimal
from pathlib import Path

import pytest

from core.contracts.types import Fact, Period, PeriodType, Request, Source, Table
from core.knowledge.glossary import load_glossary
from core.knowledge.names import NameIndex
from core.pipeline.pipeline import Pipeline
from core.planning.answering import Answerer
from core.question.intent import RuleIntentParser
from tests.acme import MemoryFacts
from tests.test_cli import ricorda

DEMO = Path(__file__).resolve().parents[1] / "bot" / "demo"
REF = dt.date(2026, 12, 2)  # last complete fiscal year: FY2025
CLEARED, UNCLEARED = "telegram:9001", "telegram:5"
FY = [f"FY{y}" for y in range(2021, 2026)]


@pytest.fixture(scope="module")
def glossary():  # type: ignore[no-untyped-def]
    return load_glossary(DEMO / "glossary.toml")


@pytest.fixture(scope="module")
def parser(glossary) -> RuleIntentParser:  # type: ignore[no-untyped-def]
    return RuleIntentParser(NameIndex(glossary))


def demo_facts() -> list[Fact]:
    with (DEMO / "facts.csv").open(encoding="utf-8", newline="") as fh:
        return [
            Fact(r["metric"], r["entity"], Period(PeriodType(r["period_type"]), r["period"]),
                 r["channel"], Decimal(r["value"]), r["unit"],
                 Source(r["source_doc"], r["source_locator"]))
            for r in csv.DictReader(fh)
        ]


@pytest.fixture(scope="module")
def answerer(glossary) -> Answerer:  # type: ignore[no-untyped-def]
    return Answerer(glossary=glossary, facts=MemoryFacts(demo_facts()), today=lambda: REF)


def ask(answerer: Answerer, text: str, chat: str = UNCLEARED):  # type: ignore[no-untyped-def]
    return Pipeline(answerer).answer(Request(text, chat=chat, reference_date=REF))


def table_of(ans) -> Table:  # type: ignore[no-untyped-def]
    tables = [s for s in ans.segments if isinstance(s, Table)]
    assert len(tables) == 1, ans.text
    return tables[0]


Q25 = ["2025Q1", "2025Q2", "2025Q3", "2025Q4"]
M25 = [f"2025-{m:02d}" for m in range(1, 13)]
# (text, kind or None, periods (codes) or None to skip, dimension, measure)
INTENTS: list[tuple[str, str | None, list[str] | None, str, str]] = [
    # ranges and series, en
    ("China revenue from FY2021 to FY2025", "series", FY, "", ""),
    ("China revenue trend 2021-2025", "series", FY, "", ""),
    ("China revenue 2021–2025", "series", FY, "", ""),
    ("China revenue 2021-25", "series", FY, "", ""),
    ("China revenue between 2021 and 2025", "series", FY, "", ""),
    ("China revenue FY21-FY25", "series", FY, "", ""),
    ("Italy revenue over the last 3 years", "series", FY[2:], "", ""),
    ("Revenue for the past two years", "series", FY[3:], "", ""),
    ("China revenue last 4 quarters", "series", ["2025Q4", "2026Q1", "2026Q2", "2026Q3"], "",
     ""),
    ("China revenue 2025 quarter by quarter", "series", Q25, "", ""),
    ("Quarterly China revenue in 2025", "series", Q25, "", ""),
    ("China revenue monthly in 2025", "series", M25, "", ""),
    ("China revenue month by month 2025", "series", M25, "", ""),
    ("China revenue trend", "series", FY, "", ""),
    ("China revenue trend in 2025", "series", Q25, "", ""),
    ("Revenue from Q1 2025 to Q4 2025", "series", Q25, "", ""),
    # it
    ("Ricavi Cina dal 2021 al 2025", "series", FY, "", ""),
    ("Fatturato Italia negli ultimi tre anni", "series", FY[2:], "", ""),
    ("Fatturato Cina tra il 2021 e il 2025", "series", FY, "", ""),
    ("Andamento del fatturato della Cina", "series", FY, "", ""),
    ("Fatturato Cina 2025 trimestre per trimestre", "series", Q25, "", ""),
    ("Fatturato mensile Cina 2025", "series", M25, "", ""),
    # zh
    ("近三年中国区营收", "series", FY[2:], "", ""),
    ("2021年至2025年中国区营收", "series", FY, "", ""),
    ("从2021年到2025年中国区营收", "series", FY, "", ""),
    ("中国区营收趋势", "series", FY, "", ""),
    ("2025年中国区每季度营收", "series", Q25, "", ""),
    ("2025年中国区每月营收", "series", M25, "", ""),
    ("过去五年集团营收", "series", FY, "", ""),
    # breakdowns
    ("Show me revenue by entity for FY2024", "breakdown", ["FY2024"], "entity", ""),
    ("Revenue per unit 2025", "breakdown", ["FY2025"], "entity", ""),
    ("Revenue by channel in 2025", "breakdown", ["FY2025"], "channel", ""),
    ("China revenue by channel FY2024", "breakdown", ["FY2024"], "channel", ""),
    ("Fatturato per canale 2025", "breakdown", ["FY2025"], "channel", ""),
    ("Ricavi per società nel 2024", "breakdown", ["FY2024"], "entity", ""),
    ("2024年各地区营收", "breakdown", ["FY2024"], "entity", ""),
    ("2025年按渠道营收", "breakdown", ["FY2025"], "channel", ""),
    ("Revenue by entity for FY2024 and FY2025", "breakdown", ["FY2024", "FY2025"], "entity", ""),
    ("Revenue by entity 2021-2025", "breakdown", FY, "entity", ""),
    ("Fatturato per canale negli ultimi tre anni", "breakdown", FY[2:], "channel", ""),
    # rankings and comparisons
    ("Which unit grew fastest in 2025?", "ranking", ["FY2025"], "entity", "growth"),
    ("highest gross margin in FY2024", "ranking", ["FY2024"], "entity", "value"),
    ("top channel by revenue", "ranking", [], "channel", "value"),
    ("Which unit had the lowest revenue in 2025?", "ranking", ["FY2025"], "entity", "value"),
    ("Quale unità è cresciuta di più nel 2025?", "ranking", ["FY2025"], "entity", "growth"),
    ("Margine lordo più alto nel 2024", "ranking", ["FY2024"], "entity", "value"),
    ("2025年哪个地区营收增长最快？", "ranking", ["FY2025"], "entity", "growth"),
    ("2024年毛利率最高的是哪个部门？", "ranking", ["FY2024"], "entity", "value"),
    ("Which of Italy and China grew fastest in 2025?", "ranking", ["FY2025"], "entity",
     "growth"),
    ("Italy vs China revenue 2025", "comparison", ["FY2025"], "entity", ""),
    ("Fatturato Italia rispetto a Cina 2025", "comparison", ["FY2025"], "entity", ""),
    ("2025年意大利区与中国区营收对比", "comparison", ["FY2025"], "entity", ""),
    ("Online vs retail revenue in China 2025", "comparison", ["FY2025"], "channel", ""),
    # what must not change
    ("What was Orbis China revenue in FY2024?", None, ["FY2024"], "", ""),
    ("Qual è stato il fatturato di Orbis Cina nel 2024?", None, ["FY2024"], "", ""),
    ("2024年中国区营收是多少？", None, ["FY2024"], "", ""),
    ("China revenue 2024 and 2025", None, ["FY2024", "FY2025"], "", ""),
    ("Fatturato Cina 2024 e 2025", None, ["FY2024", "FY2025"], "", ""),
    ("Why did revenue fall?", None, [], "", ""),
    # several metrics by entity: a column per metric, one period; over a range a column per
    # metric and period is too wide, and it stays what it was: the series of each metric
    ("Revenue and EBITDA by entity in FY2024", "breakdown", ["FY2024"], "entity", ""),
    ("Fatturato ed EBITDA per canale nel 2025", "breakdown", ["FY2025"], "channel", ""),
    ("Revenue and EBITDA by entity 2023-2025", "series", None, "", ""),
    # a range with no metric is a series of the metric it will get (asked for, or carried);
    # a "why" over a range stays a "why"
    ("Orbis China from FY2022 to FY2024", "series", ["FY2022", "FY2023", "FY2024"], "", ""),
    ("Why did it fall from 2022 to 2024?", None, None, "", ""),
    ("Why did China revenue fall from 2021 to 2025?", None, ["FY2021", "FY2025"], "", ""),
    ("Perché il fatturato in Cina è calato?", None, [], "", ""),
    ("中国区营收为什么下降？", None, [], "", ""),
    ("What is the online channel trend?", None, [], "", ""),
    ("China revenue Q3 2025", None, ["2025Q3"], "", ""),
    ("Orbis China top line FY2024", None, ["FY2024"], "", ""),
]


def test_enough_intent_cases() -> None:
    assert len(INTENTS) >= 40


@pytest.mark.parametrize(("text", "kind", "periods", "dimension", "measure"), INTENTS,
                         ids=[c[0] for c in INTENTS])
def test_intent(parser, text, kind, periods, dimension, measure) -> None:  # type: ignore[no-untyped-def]
    intent = parser.parse(text, REF)
    analysis = intent.analysis
    assert (analysis.kind if analysis else None) == kind, text
    if periods is not None:
        assert [p.code for p in intent.periods] == periods
    if kind is not None:
        assert analysis is not None and intent.route.value == "structured"
        if dimension:
            assert analysis.dimension == dimension
        if measure:
            assert analysis.measure == measure


def test_why_stays_narrative_and_trend_does_not(parser) -> None:  # type: ignore[no-untyped-def]
    assert parser.parse("Why did revenue fall?", REF).route.value == "composite"
    assert parser.parse("Why did China revenue fall from 2021 to 2025?", REF).narrative_cue
    trend = parser.parse("China revenue trend 2021-2025", REF)
    assert trend.route.value == "structured" and not trend.narrative_cue


# --------------------------------------------------------------------------- answers


def test_series_every_value_change_and_source(answerer) -> None:  # type: ignore[no-untyped-def]
    ans = ask(answerer, "China revenue from FY2021 to FY2025")
    t = table_of(ans)
    assert t.kind == "series" and t.title == "Orbis China revenue, FY2021–FY2025"
    assert t.columns == ("Period", "Revenue", "Change", "% change", "Source")
    assert t.rows == (
        ("FY2021", "€455.0M", "", "", "[1]"),
        ("FY2022", "€488.6M", "+€33.6M", "+7.4%", "[2]"),
        ("FY2023", "€520.0M", "+€31.4M", "+6.4%", "[3]"),
        ("FY2024", "€560.4M", "+€40.4M", "+7.8%", "[4]"),
        ("FY2025", "€478.2M", "-€82.2M", "-14.7%", "[5]"),
    )
    assert ans.citations[0].title == "Orbis FY2021 Annual Report, p. 8, table 2, row 1"
    assert len(ans.citations) == 5 and t.notes == ()
    assert t.points[-1] == ("FY2025", 478.2) and t.unit == "€M"
    assert ans.plan["steps"][0]["tool"] == "series_table" and ans.succeeded
    assert ans.assumptions == []


def test_a_column_per_entity_channel_or_metric(answerer) -> None:  # type: ignore[no-untyped-def]
    channels = table_of(ask(answerer, "China online and retail revenue from FY2023 to FY2025"))
    assert channels.columns == ("Period", "Online", "Retail", "Source")
    assert channels.rows[-1] == ("FY2025", "€181.7M", "€296.5M", "[5][6]")
    metrics = table_of(ask(answerer, "Revenue and EBITDA of Italy 2023-2025"))
    assert metrics.title == "Orbis Italia, FY2023–FY2025"
    assert metrics.rows[0] == ("FY2023", "€301.5M", "–", "[1]")
    assert metrics.notes == ("No figure for EBITDA FY2023.",)
    zh = table_of(ask(answerer, "2023年至2025年中国区和意大利区营收"))
    assert zh.columns[1:3] == ("中国区", "Orbis意大利") and len(zh.rows) == 3


def test_missing_periods_are_listed_once(answerer) -> None:  # type: ignore[no-untyped-def]
    t = table_of(ask(answerer, "Hong Kong revenue 2019-2025"))
    assert t.notes == ("No figure for FY2019 and FY2020.",)
    assert [r[0] for r in t.rows] == FY
    assert t.points[:3] == (("FY2019", None), ("FY2020", None), ("FY2021", 121.9))
    assert t.rows[0][2] == ""  # the first period with a figure has nothing to change from


def test_no_figure_at_all_is_one_sentence(answerer) -> None:  # type: ignore[no-untyped-def]
    ans = ask(answerer, "China revenue 2010-2012")
    assert ans.text == "I have no figure for Orbis China revenue, FY2010–FY2012 in the fact table."
    assert [f.status.value for f in ans.facts] == ["not_found"] * 3 and ans.citations == []
    zh = ask(answerer, "2010年各地区营收")
    assert zh.text.startswith("事实表中没有") and not any(isinstance(s, Table) for s in zh.segments)


def test_change_after_a_gap_is_not_computed_across_it(answerer) -> None:  # type: ignore[no-untyped-def]
    t = table_of(ask(answerer, "Orbis Labs revenue from FY2021 to FY2025", chat=CLEARED))
    assert t.notes == ("No figure for FY2021.",)
    assert t.rows[0] == ("FY2022", "€4.2M", "", "", "[1]")
    assert t.rows[1][2:4] == ("+€3.9M", "+92.9%")


def test_italian_and_chinese_series(answerer) -> None:  # type: ignore[no-untyped-def]
    it = table_of(ask(answerer, "Fatturato Italia negli ultimi tre anni"))
    assert it.title == "Ricavi Orbis Italia, FY2023–FY2025"
    assert it.rows[-1] == ("FY2025", "352,6 M€", "+33,7 M€", "+10,6%", "[3]")
    zh = table_of(ask(answerer, "近三年中国区营收"))
    assert zh.columns[0] == "期间" and zh.rows[-1][1] == "4.782亿欧元"


def test_quarters_and_months_of_a_year(answerer) -> None:  # type: ignore[no-untyped-def]
    q = table_of(ask(answerer, "China revenue 2025 quarter by quarter"))
    assert [r[1] for r in q.rows] == ["€130.1M", "€122.2M", "€108.4M", "€117.5M"]
    m = table_of(ask(answerer, "China revenue monthly in 2025"))
    assert len(m.rows) == 12 and m.notes == ()
    values = [Decimal(r[1].strip("€M")) for r in m.rows]
    assert sum(values) == Decimal("478.2")  # the months add up to the reported year


def test_a_rate_changes_by_points(answerer) -> None:  # type: ignore[no-untyped-def]
    t = table_of(ask(answerer, "Italy gross margin from 2023 to 2025"))
    changes = [r[2] for r in t.rows[1:]]
    assert all(c.endswith(" pp") for c in changes) and all(r[3] == "" for r in t.rows)


def test_long_decimals_are_exact(glossary) -> None:  # type: ignore[no-untyped-def]
    src = Source("x.pdf", "page=1")
    facts = [
        Fact("REVENUE", "ORBIS_CN", Period(PeriodType.FY, "2024"), "TOTAL",
             Decimal("12345678901234567.89"), "EUR_M", src),
        Fact("REVENUE", "ORBIS_CN", Period(PeriodType.FY, "2025"), "TOTAL",
             Decimal("12345678901234568.01"), "EUR_M", src),
    ]
    a = Answerer(glossary=glossary, facts=MemoryFacts(facts), today=lambda: REF)
    t = table_of(ask(a, "China revenue 2024-2025"))
    assert t.rows[1][1] == "€12,345,678,901,234,568.01M"
    assert t.rows[1][2] == "+€0.12M" and t.rows[1][3] == "+0.0%"


def test_breakdown_with_total_and_shares(answerer) -> None:  # type: ignore[no-untyped-def]
    ans = ask(answerer, "Show me revenue by entity for FY2024")
    t = table_of(ans)
    # the group total would give Orbis Labs (restricted) by difference: this uncleared chat
    # does not get it (issue 33); the visible units' sum is a row named by them, never the
    # group's, and shares are of that sum
    assert t.rows == (
        ("Orbis China", "€560.4M", "54.3%", "[1]"),
        ("Orbis Italia", "€318.9M", "30.9%", "[2]"),
        ("Orbis Hong Kong", "€152.1M", "14.7%", "[3]"),
        ("Orbis China, Orbis Italia and Orbis Hong Kong together", "€1,031.4M", "100%", "[1–3]"),
    )
    assert "Orbis Group's figure isn't shown in this chat" in ans.text
    assert "Assumed" not in ans.text  # the group is the total, not an assumption


def test_breakdown_over_periods_has_a_column_each(answerer) -> None:  # type: ignore[no-untyped-def]
    t = table_of(ask(answerer, "Revenue by entity 2021-2025"))
    assert t.columns == ("Entity", *FY, "Source")
    assert t.rows[0] == ("Orbis China", "€455.0M", "€488.6M", "€520.0M", "€560.4M", "€478.2M",
                         "[1–5]")
    assert t.rows[-1][0] == "Orbis China, Orbis Italia and Orbis Hong Kong together"
    assert t.notes == ()
    it = table_of(ask(answerer, "Fatturato per canale negli ultimi tre anni"))
    assert it.rows[0] == ("Online", "–", "337,3 M€", "286,9 M€", "[1–6]")  # the units summed
    assert it.notes == ("Nessun dato per Online FY2023 e negozi FY2023.",)


def test_no_shares_where_members_exceed_the_total(answerer) -> None:  # type: ignore[no-untyped-def]
    ans = ask(answerer, "EBITDA by entity 2025")  # group EBITDA is after group costs
    t = table_of(ans)
    # no share, and no sum of the units under any name: it would not be the group's EBITDA;
    # the group's own stored figure is shown as stored: it is not the sum of its units (Labs
    # included), so it reveals none of them (docs/disclosure.md, per cell)
    assert t.columns == ("Entity", "EBITDA", "Source") and len(t.rows) == 4
    assert t.rows[-1][:2] == ("Orbis Group", "€120.3M")
    assert "together" not in ans.text and "133.2" not in ans.text


def test_restricted_member_only_for_a_cleared_chat(answerer) -> None:  # type: ignore[no-untyped-def]
    public = ask(answerer, "Show me revenue by entity for FY2024")
    assert "Labs" not in public.text and "12.4" not in public.text
    assert not any(f.entity == "ORBIS_LABS" for f in public.facts)
    cleared = ask(answerer, "Show me revenue by entity for FY2024", chat=CLEARED)
    assert ("Orbis Labs", "€12.4M", "1.2%", "[4]") in table_of(cleared).rows


def test_channel_breakdown_states_the_entity_it_assumed(answerer) -> None:  # type: ignore[no-untyped-def]
    ans = ask(answerer, "Fatturato per canale 2025")
    t = table_of(ans)
    assert t.rows[-1] == ("Totale", "989,5 M€", "100%", "[7–9]")  # the visible units'
    assert "(Orbis Cina, Orbis Italia e Orbis Hong Kong insieme) per canale" in t.title
    assert "Ho assunto: Orbis Group (entità predefinita)." in ans.text


def test_growth_ranking(answerer) -> None:  # type: ignore[no-untyped-def]
    ans = ask(answerer, "Which unit grew fastest in 2025?")
    t = table_of(ans)
    assert [r[0] for r in t.rows] == ["1. Orbis Italia", "2. Orbis Hong Kong", "3. Orbis China"]
    assert t.rows[0] == ("1. Orbis Italia", "+10.6%", "€318.9M", "€352.6M", "[1][2]")
    assert t.columns == ("Entity", "Growth", "FY2024", "FY2025", "Source")
    assert ans.text.startswith("First: Orbis Italia, +10.6%.")
    assert "Assumed: Revenue (not named in the question)." in ans.text


def test_value_ranking_and_lowest(answerer) -> None:  # type: ignore[no-untyped-def]
    t = table_of(ask(answerer, "highest gross margin in FY2024"))
    assert [r[0] for r in t.rows] == ["1. Orbis Italia", "2. Orbis Hong Kong", "3. Orbis China"]
    low = ask(answerer, "Which unit had the lowest revenue in 2025?")
    assert low.text.startswith("Lowest: Orbis Hong Kong, €158.7M.")


def test_ranking_among_the_named_units(answerer) -> None:  # type: ignore[no-untyped-def]
    q = "Quale tra Italia e Hong Kong ha il margine lordo più alto nel 2024?"
    t = table_of(ask(answerer, q))
    assert [r[:2] for r in t.rows] == [("1. Orbis Italia", "45,3%"),
                                       ("2. Orbis Hong Kong", "43,0%")]


def test_chinese_ranking(answerer) -> None:  # type: ignore[no-untyped-def]
    ans = ask(answerer, "2025年哪个地区营收增长最快？")
    assert ans.text.startswith("排名第一：Orbis意大利，+10.6%。")


def test_comparison(answerer) -> None:  # type: ignore[no-untyped-def]
    t = table_of(ask(answerer, "Italy vs China revenue 2025"))
    assert t.rows == (
        ("Orbis Italia", "€352.6M", "", "[1]"),
        ("Orbis China", "€478.2M", "+€125.6M +35.6%", "[2]"),
    )


def test_single_period_stays_one_lookup(answerer) -> None:  # type: ignore[no-untyped-def]
    ans = ask(answerer, "What was Orbis China revenue in FY2024?")
    assert ans.plan["steps"][0]["tool"] == "query_metric" and len(ans.plan["steps"]) == 1
    assert not any(isinstance(s, Table) for s in ans.segments)
    assert ans.text.startswith("Orbis China revenue, FY2024: €560.4M")


# --------------------------------------------------------------------------- end to end


@pytest.fixture(scope="module")
def demo_kb(tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    data = tmp_path_factory.mktemp("demo") / "data"
    ricorda(data, "ingest", str(DEMO / "glossary.toml"), str(DEMO / "facts.csv"))
    return data


def test_cli_series_in_english_and_json(demo_kb: Path) -> None:
    ref = ("--reference-date", REF.isoformat())
    plain = ricorda(demo_kb, "ask", "China revenue from FY2021 to FY2025", *ref).stdout
    assert "FY2025  €478.2M  -€82.2M    -14.7%" in plain
    assert "Orbis FY2021 Annual Report" in plain
    out = json.loads(ricorda(demo_kb, "ask", "China revenue trend 2021-2025", "--json",
                             *ref).stdout)
    (table,) = out["tables"]
    assert table["kind"] == "series" and len(table["rows"]) == 5
    assert table["series"][0] == {"label": "FY2021", "value": 455.0}
    assert out["route"] == "structured" and out["passages"] == []  # no "Why:" quotes
    assert len(out["facts"]) == 5 and all(f["status"] == "found" for f in out["facts"])
    assert len(out["citations"]) == 5


def test_cli_breakdown_and_ranking_in_italian(demo_kb: Path) -> None:
    ref = ("--reference-date", REF.isoformat())
    out = json.loads(ricorda(demo_kb, "ask", "Fatturato per canale 2025", "--json", *ref).stdout)
    (table,) = out["tables"]
    assert table["kind"] == "breakdown" and table["rows"][0][:3] == ["Online", "286,9 M€",
                                                                     "29,0%"]
    plain = ricorda(demo_kb, "ask", "Quale unità è cresciuta di più nel 2025?", *ref).stdout
    assert "Al primo posto: Orbis Italia, +10,6%." in plain and "Labs" not in plain


def margin(facts: list[Fact], entity: str, year: str) -> str:
    """EBITDA / revenue x 100, one decimal: the glossary's EBITDA margin, worked out here."""
    value = {f.metric: f.value for f in facts
             if f.entity == entity and f.period.value == year and f.channel == "TOTAL"}
    return f"{(value['EBITDA'] / value['REVENUE'] * 100).quantize(Decimal('0.1'))}%"


def test_a_derived_metric_by_entity_is_computed_cell_by_cell(answerer) -> None:  # type: ignore[no-untyped-def]
    """A table of a derived metric used to end in an error (KeyError: 'EBITDA_MARGIN'): each
    cell is now computed from its two inputs, cites both, and has no share (a ratio's members
    never add up to the group's)."""
    facts = demo_facts()
    ans = ask(answerer, "EBITDA margin by entity in FY2024")
    t = table_of(ans)
    assert t.columns == ("Entity", "EBITDA margin", "Source")
    codes = ("ORBIS_CN", "ORBIS_IT", "ORBIS_HK")
    # the group's margin rests on its revenue, withheld (it would give Labs by difference)
    assert [r[1] for r in t.rows] == [margin(facts, c, "2024") for c in codes]
    assert [r[2] for r in t.rows] == ["[1][2]", "[3][4]", "[5][6]"]
    assert "Orbis Group's figure isn't shown in this chat" in ans.text
    assert len(ans.citations) == 6 and "Labs" not in ans.text
    derived = [f.to_dict() for f in ans.facts]
    assert all(d["derived"] and len(d["inputs"]) == 2 for d in derived)
    cleared = table_of(ask(answerer, "EBITDA margin by entity in FY2024", chat=CLEARED))
    assert any("Labs" in r[0] for r in cleared.rows)


def test_a_derived_metric_series_changes_by_points_and_names_the_gaps(answerer) -> None:  # type: ignore[no-untyped-def]
    facts = demo_facts()
    t = table_of(ask(answerer, "Orbis China EBITDA margin from FY2023 to FY2025"))
    assert t.title.startswith("Orbis China EBITDA margin")
    assert [r[0] for r in t.rows] == ["FY2024", "FY2025"]
    assert t.rows[0][1] == margin(facts, "ORBIS_CN", "2024")
    assert t.rows[1][1] == margin(facts, "ORBIS_CN", "2025")
    shown = [Decimal(r[1].rstrip("%")) for r in t.rows]
    assert t.rows[1][2] == f"{shown[1] - shown[0]:+} pp"
    assert t.notes == ("No figure for FY2023.",)


def test_a_ranking_of_a_derived_metric(answerer) -> None:  # type: ignore[no-untyped-def]
    facts = demo_facts()
    t = table_of(ask(answerer, "Which unit had the highest EBITDA margin in FY2024?"))
    ranked = sorted(("ORBIS_CN", "ORBIS_IT", "ORBIS_HK"),
                    key=lambda c: Decimal(margin(facts, c, "2024").rstrip("%")), reverse=True)
    assert [r[1] for r in t.rows] == [margin(facts, c, "2024") for c in ranked]
    assert t.rows[0][0] == "1. Orbis Italia"


def test_several_metrics_by_entity_make_a_column_each(answerer) -> None:  # type: ignore[no-untyped-def]
    """"Revenue and EBITDA by entity" used to answer the group's two figures with a default-
    entity assumption, the "by entity" ignored."""
    facts = {(f.metric, f.entity): f.value for f in demo_facts()
             if f.period.value == "2024" and f.channel == "TOTAL"}
    ans = ask(answerer, "Revenue and EBITDA by entity in FY2024")
    t = table_of(ans)
    assert t.title == "Revenue and EBITDA by entity, FY2024"
    assert t.columns == ("Entity", "Revenue", "EBITDA", "Source")
    codes = ("ORBIS_CN", "ORBIS_IT", "ORBIS_HK")
    for metric in ("REVENUE", "EBITDA"):  # one row, one set of units: the disclosed ones
        facts[(metric, "SUM")] = sum((facts[(metric, c)] for c in codes), Decimal(0))
    # the visible units' row: their revenue; not their EBITDA, as the group's EBITDA is not
    # the sum of its units' (group costs), and never the group's own figure under their names
    assert [(r[1], r[2]) for r in t.rows] == [
        *((f"€{facts[('REVENUE', c)]:,}M", f"€{facts[('EBITDA', c)]:,}M") for c in codes),
        (f"€{facts[('REVENUE', 'SUM')]:,}M", "–")]
    assert t.rows[-1][0] == "Orbis China, Orbis Italia and Orbis Hong Kong together"
    assert t.rows[0][3] == "[1][2]" and len(ans.citations) == 6
    assert t.points == ()  # two units in one table: no chart
    assert "Assumed" not in ans.text and "Labs" not in ans.text


def test_several_metrics_by_channel_name_the_missing_cells(answerer) -> None:  # type: ignore[no-untyped-def]
    t = table_of(ask(answerer, "China revenue and EBITDA by channel in 2025"))
    assert t.title == "Orbis China revenue and EBITDA by channel, FY2025"
    assert [r[0] for r in t.rows] == ["Online", "Retail", "Total"]
    assert t.rows[0][2] == "–" and t.rows[-1][2] == "€52.6M"
    assert t.notes == ("No figure for Online EBITDA and Retail EBITDA.",)
