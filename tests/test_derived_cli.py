"""Derived metrics end to end: `ricorda demo`, then `ricorda ask` in a subprocess, as a user
would ask them of the bundled Orbis knowledge base."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.test_cli import ricorda

REF = "2026-06-15"
FIRST_RELEASE_FACT_KEYS = {
    "status", "value", "value_exact", "unit", "metric_code", "entity", "period_type", "period",
    "channel", "source",
}


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("derived") / "data"
    assert "demo knowledge base loaded" in ricorda(data, "demo", "--no-chat").stdout
    return data


def ask(data: Path, question: str, *extra: str) -> dict[str, Any]:
    out = ricorda(data, "ask", question, "--json", "--reference-date", REF, *extra).stdout
    return json.loads(out)  # type: ignore[no-any-return]


def test_english_margin_with_both_inputs_in_json(demo: Path) -> None:
    answer = ask(demo, "What is the EBITDA margin of Orbis Italia in 2024?")
    assert answer["route"] == "structured"
    assert answer["text"].startswith(
        "Orbis Italia EBITDA margin, FY2024: 15.6% (EBITDA €49.8M ÷ revenue €318.9M; sources: "
        "Orbis FY2024 Annual Report, p. 19"
    )
    assert "45.3" not in answer["text"]  # not the gross margin
    [fact] = answer["facts"]
    assert set(fact) >= FIRST_RELEASE_FACT_KEYS  # fields added, none renamed
    assert fact["status"] == "found" and fact["metric_code"] == "EBITDA_MARGIN"
    assert fact["value_exact"].startswith("15.616180620884289746") and fact["unit"] == "PCT"
    assert fact["value_shown"] == "15.6" and fact["derived"] is True
    inputs = [(i["metric_code"], i["value_exact"], i["source"]["locator"]) for i in fact["inputs"]]
    assert inputs == [
        ("EBITDA", "49.8", "page=19,table=2,row=2"),
        ("REVENUE", "318.9", "page=11,table=2,row=2"),
    ]
    assert answer["lines"] == [{"kind": "derived", "text": answer["text"]}]
    assert len(answer["sources"]) == 2


def test_italian_revenue_per_employee_as_text(demo: Path) -> None:
    out = ricorda(
        demo, "ask", "Quali sono i ricavi per dipendente della Cina nel 2025?",
        "--reference-date", REF,
    ).stdout
    assert out.startswith(
        "Ricavi per dipendente Orbis Cina, FY2025: 274,0 mila € per dipendente (ricavi 478,2 M€ "
        "÷ dipendenti 1.745 FTE; fonti: Orbis FY2025 Annual Report, pag. 12"
    ), out


def test_chinese_and_a_missing_input(demo: Path) -> None:
    zh = ask(demo, "Orbis意大利2024年EBITDA利润率是多少？")
    assert zh["text"].startswith("Orbis意大利2024财年EBITDA利润率：15.6%（")
    assert zh["language"] == "zh"
    missing = ask(demo, "What was the EBITDA margin of Orbis China in FY2023?")
    assert missing["text"] == (
        "I can't compute Orbis China EBITDA margin, FY2023: the fact table has no EBITDA figure "
        "for it."
    )
    fact = missing["facts"][0]
    assert fact["status"] == "not_found" and fact["missing"] == ["EBITDA"]
    assert "value" not in fact


def test_restricted_unit_only_for_a_cleared_chat(demo: Path) -> None:
    question = "What is the EBITDA margin of Orbis Labs in 2024?"
    refused = ask(demo, question)
    assert refused["route"] == "refused" and refused["facts"] == []
    assert refused["text"] == ask(demo, "What is the EBITDA of Orbis Labs in 2024?")["text"]
    cleared = ask(demo, question, "--chat", "telegram:9001")
    assert cleared["facts"][0]["value_shown"] == "-23.4"


def test_repeat_served_from_the_cache_says_the_same(demo: Path) -> None:
    question = "What is the EBITDA margin of Orbis Hong Kong in 2025?"
    first, again = ask(demo, question), ask(demo, question)
    assert again["served_by"] == "L0a" and again["text"] == first["text"]
    assert first["text"].startswith("Orbis Hong Kong EBITDA margin, FY2025: 12.2%")
