"""Arithmetic answers end to end: `ricorda ask ... --json` in a subprocess on the demo knowledge
base, one question per kind and language (issue 23, item 3). Each checks the headline derived
fact of the shared JSON contract (facts[0]: derived, formula.op, value_exact, inputs with their
sources) and the sentence a user reads, formula and citations included."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_cli import ricorda

DEMO = Path(__file__).resolve().parents[1] / "bot" / "demo"
REF = ("--reference-date", "2026-12-02")


@pytest.fixture(scope="module")
def demo_kb(tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    data = tmp_path_factory.mktemp("arith") / "data"
    ricorda(data, "ingest", str(DEMO / "glossary.toml"), str(DEMO / "facts.csv"))
    return data


CLEARED = "console:admin"


def ask(kb: Path, question: str, chat: str = "console:local") -> dict:  # type: ignore[type-arg]
    """`ask --json`; `console:admin` is cleared for restricted data in the demo glossary (the
    group's stored totals: the arithmetic itself), any other chat is not."""
    return json.loads(ricorda(kb, "ask", question, "--json", "--chat", chat,  # type: ignore[no-any-return]
                              *REF).stdout)


# (question, formula.op, value_exact, text the answer starts with)
CASES = [
    ("total EBITDA FY2023–FY2025", "sum", "386.8",
     "Orbis Group EBITDA, total FY2023–FY2025: €386.8M (= FY2023 €128.9M [1]"),
    ("Qual è l'EBITDA totale dal 2023 al 2025?", "sum", "386.8",
     "EBITDA Orbis Group, totale FY2023–FY2025: 386,8 M€ (= FY2023 128,9 M€ [1]"),
    ("2023到2025年EBITDA合计", "sum", "386.8",
     "Orbis集团息税折旧摊销前利润2023财年至2025财年合计：3.868亿欧元"),
    ("combined revenue of Italy and Hong Kong in FY2025", "sum", "511.3",
     "Revenue, Orbis Italia and Orbis Hong Kong combined, FY2025: €511.3M"),
    ("ricavi di Italia e Hong Kong insieme nel 2025", "sum", "511.3",
     "Ricavi, Orbis Italia e Orbis Hong Kong insieme, FY2025: 511,3 M€"),
    ("2025年意大利和香港的营收合计", "sum", "511.3", "Orbis意大利、Orbis香港2025财年营收合计"),
    ("average headcount 2024-2025", "average", "4347.5",
     "Orbis Group headcount, average FY2024–FY2025: 4,347.5 FTE"),
    ("qual è stato l'organico medio dal 2024 al 2025?", "average", "4347.5",
     "Dipendenti Orbis Group, media FY2024–FY2025: 4.347,5 FTE"),
    ("2024到2025年平均员工人数", "average", "4347.5", "Orbis集团员工人数2024财年至2025财年平均"),
    ("EBITDA growth for Italy last year", "growth", "22.89156626506024096385542168674699",
     "Orbis Italia EBITDA growth, FY2025 vs FY2024: +22.9% (= (€61.2M [1] − €49.8M [2])"),
    # (a growth or share of the group's revenue: withheld in an uncleared chat, below)
    ("净利润同比", "growth", "-24.09288824383164005805515239477504",
     "Orbis集团净利润2025财年较2024财年增长率：-24.1%"),
    ("did China grow faster than Italy in FY2024", "growth_comparison", None,
     "Yes: Orbis China grew faster than Orbis Italia in FY2024 (+7.8% vs +5.8%)."),
    ("la Cina è cresciuta più dell'Italia nel 2024?", "growth_comparison", None,
     "Sì: Orbis Cina è cresciuta più di Orbis Italia nel FY2024 (+7,8% contro +5,8%)."),
    ("2024年中国区营收比意大利增长得快吗？", "growth_comparison", None,
     "是的：2024财年中国区的增长快于Orbis意大利（+7.8%对+5.8%）。"),
]


@pytest.mark.parametrize(("question", "op", "exact", "start"), CASES, ids=[c[0] for c in CASES])
def test_arithmetic_through_the_cli(demo_kb: Path, question: str, op: str, exact: str | None,
                                    start: str) -> None:
    out = ask(demo_kb, question, CLEARED)
    assert out["route"] == "structured"
    assert out["text"].startswith(start), out["text"]
    fact = out["facts"][0]
    assert fact["status"] == "found" and fact["derived"] is True
    assert fact["formula"]["op"] == op
    if exact is not None:
        assert fact["value_exact"].startswith(exact)
    assert fact["inputs"] and all(_cited(i) for i in fact["inputs"])
    assert out["citations"]  # every input numbered under the answer
    assert "Labs" not in out["text"] and "实验室" not in out["text"]


def _cited(fact: dict) -> bool:  # type: ignore[type-arg]
    """A stored input carries its source; a computed one (a growth rate) its own inputs'."""
    if fact.get("derived"):
        return bool(fact["inputs"]) and all(_cited(i) for i in fact["inputs"])
    return bool(fact["source"]["doc"])


RANKINGS = [
    ("which unit has the fewest employees", "Lowest: Orbis Hong Kong, 535 FTE."),
    ("chi ha meno dipendenti?", "All'ultimo posto: Orbis Hong Kong, 535 FTE."),
    ("哪个子公司员工最少", "排名最后：Orbis香港，535 FTE。"),
    ("in which year was net income highest?",
     "Orbis Group net income was highest in FY2024: €68.9M [1]."),
    ("in che anno l'utile netto è stato più alto?",
     "Valore più alto di Utile netto Orbis Group: FY2024, 68,9 M€ [1]."),
    ("哪一年净利润最高", "Orbis集团净利润最高的期间：2024财年，0.689亿欧元 [1]。"),
]


@pytest.mark.parametrize(("question", "start"), RANKINGS, ids=[c[0] for c in RANKINGS])
def test_rankings_through_the_cli(demo_kb: Path, question: str, start: str) -> None:
    # units ranked in an uncleared chat (Labs not a member); the group's years in a cleared one
    out = ask(demo_kb, question, CLEARED if "Group" in start or "集团" in start else
              "console:local")
    assert out["text"].startswith(start), out["text"]
    (table,) = out["tables"]
    assert table["kind"] == "ranking" and out["citations"]
    assert "Labs" not in out["text"]


def test_a_missing_input_through_the_cli(demo_kb: Path) -> None:
    out = ask(demo_kb, "total EBITDA FY2021–FY2023", CLEARED)
    fact = out["facts"][0]
    assert (fact["status"], fact["reason"]) == ("not_found", "missing_input")
    assert [m["period"] for m in fact["missing"]] == ["2021", "2022"]
    assert "FY2021 and FY2022" in out["text"] and "€" not in out["text"]


def test_a_repeat_is_served_by_its_cached_plan_with_the_same_figures(demo_kb: Path) -> None:
    first = ask(demo_kb, "combined revenue of Italy and Hong Kong in FY2024")
    second = ask(demo_kb, "combined revenue of Italy and Hong Kong in FY2024")
    assert (first["served_by"], second["served_by"]) == ("planner", "L0a")
    assert second["facts"] == first["facts"] and second["text"] == first["text"]


# ------------------------------------------------ results over a withheld total (issue 33)
# In an uncleared chat the group total is withheld (docs/disclosure.md); a growth, share, sum or
# ratio computed from it is withheld too, said in the reader's language, with no figure.
SAID = {"en": "not shown in this chat", "it": "non mostrato in questa chat",
        "zh": "本对话不显示"}
PROTECTED = [
    ("en", "Orbis Group revenue growth FY2024", "growth"),
    ("it", "crescita dei ricavi 2024", "growth"),
    ("zh", "集团2024年营收同比", "growth"),
    ("en", "how much of group revenue is Hong Kong in 2024", "share"),
    ("it", "che quota dei ricavi del gruppo fa l'Italia nel 2024", "share"),
    ("zh", "2024年香港占集团营收的比例", "share"),
    ("en", "total group revenue 2023-2024", "sum"),
    ("it", "Qual è il totale dei ricavi dal 2023 al 2024?", "sum"),
    ("zh", "集团2023到2024年营收合计", "sum"),
    ("en", "Orbis Group EBITDA margin FY2024", "ratio"),
    ("it", "margine EBITDA del gruppo nel 2024", "ratio"),
    ("zh", "集团2024年EBITDA利润率", "ratio"),
]


@pytest.mark.parametrize(("lang", "question", "op"), PROTECTED, ids=[c[1] for c in PROTECTED])
def test_a_result_over_a_withheld_total_is_withheld(demo_kb: Path, lang: str, question: str,
                                                    op: str) -> None:
    out = ask(demo_kb, question)
    assert SAID[lang] in out["text"], out["text"]
    assert not [f for f in out["facts"] if f["status"] == "found"
                and f.get("entity") == "ORBIS_GROUP"], out["facts"]
    held = [f for f in out["facts"] if f.get("reason") == "withheld"]
    assert held and all(f["disclosure"]["withheld"] is True for f in held)
    assert "Labs" not in out["text"] and "实验室" not in out["text"]
