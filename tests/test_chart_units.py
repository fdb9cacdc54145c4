"""Charts in the unit they show (issue 33): every chart kind, in en, it and zh, drawn from the
demo's answers and read back from the figure matplotlib drew: the plotted values are the
table's values in the unit the axis label reads (亿欧元 plots 5.604 for €560.4M), bars start at
zero, and a breakdown over several periods draws every period. A ranking over periods ("in
which year was China revenue highest?") is drawn like a ranking of units."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

import pytest

from adapters.charts import draw
from core.contracts.types import Request, Table
from core.knowledge.glossary import load_glossary
from core.pipeline.pipeline import Pipeline
from core.planning.answering import Answerer
from storage.fact_files import read_fact_file
from tests.acme import MemoryFacts

DEMO = Path(__file__).resolve().parents[1] / "bot" / "demo"
REF = dt.date(2026, 3, 1)
QUESTIONS = {  # (kind, language): question; the stored values are in EUR_M
    ("series", "en"): "China revenue from FY2021 to FY2025",
    ("series", "it"): "Fatturato Cina dal 2021 al 2025",
    ("series", "zh"): "中国区2021年到2025年的营收",
    ("breakdown", "en"): "revenue by entity FY2021-FY2025",
    ("breakdown", "it"): "Fatturato per entità dal 2021 al 2025",
    ("breakdown", "zh"): "2021年到2025年按主体的营收",
    ("ranking", "en"): "Which unit had the highest revenue in 2024?",
    ("ranking", "zh"): "2024年哪个子公司营收最高",
    # rankings over periods (core.figures.period_rank) draw their bars in the axis unit too
    ("period-ranking", "en"): "In which year was China revenue highest?",
    ("period-ranking", "it"): "In quale anno il fatturato della Cina è stato più alto?",
    ("period-ranking", "zh"): "中国区哪一年营收最高",
}
AXIS = {"en": "€M", "it": "M€", "zh": "亿欧元"}
SHIFT = {"en": 0, "it": 0, "zh": -2}


@pytest.fixture(scope="module")
def answerer() -> Answerer:
    facts = read_fact_file(DEMO / "facts.csv", known_metrics=None, known_entities=None,
                           known_channels=None).facts
    return Answerer(glossary=load_glossary(DEMO / "glossary.toml"), facts=MemoryFacts(facts),
                    today=lambda: REF)


def drawn(table: Table) -> tuple[list[float], str]:
    """The values matplotlib drew (line points, bar lengths) and the value axis's label."""
    from matplotlib.figure import Figure

    fig = Figure()
    draw(fig, table)
    ax = fig.axes[0]
    if table.kind == "series":
        ys = [float(y) for line in ax.get_lines() if line.get_marker() == "o"
              for y in line.get_ydata()]
        return ys, ax.get_ylabel()
    for bar in ax.patches:
        assert bar.get_x() == 0  # every bar starts at zero
    return [float(bar.get_width()) for bar in ax.patches], ax.get_xlabel()


@pytest.mark.parametrize(("kind", "lang"), list(QUESTIONS), ids=[f"{k}-{lang}" for k, lang
                                                                   in QUESTIONS])
def test_every_chart_plots_its_tables_values_in_the_unit_of_its_axis(
        answerer: Answerer, kind: str, lang: str) -> None:
    ans = Pipeline(answerer).answer(Request(QUESTIONS[(kind, lang)], chat="telegram:5",
                                  reference_date=REF))
    (table,) = [s for s in ans.segments if isinstance(s, Table)]
    assert table.kind == kind.removeprefix("period-") and table.unit == AXIS[lang]
    values, axis = drawn(table)
    assert axis == AXIS[lang]
    expected = [p for _, p in table.points if p is not None]
    assert sorted(values) == pytest.approx(sorted(expected))  # (grouped bars: by period)
    stored = {f.fact.value for f in ans.facts if f.fact is not None}
    # each plotted value is a stored figure moved into the axis unit, exactly
    assert {Decimal(str(v)).scaleb(-SHIFT[lang]) for v in expected} <= {
        s.normalize() for s in stored} | {Decimal(str(float(s))) for s in stored}
    if kind == "breakdown":  # five years of three visible units: every period drawn
        assert len(table.points) == 15 and len(set(table.groups)) == 5
