"""Fiscal years that do not end in December, and periods as people write them, end to end
through `ricorda ask --json` on companies whose year ends on 30 June and on 31 March."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.acme import ACME
from tests.test_cli import ricorda

KIWI_GLOSSARY = """
[scope]
default_entity = "KIWI_GROUP"
fiscal_year_end = "06-30"

[metrics.REVENUE]
names = ["revenue", "sales", "ricavi", "fatturato", "营收", "收入"]
unit = "USD_M"

[metrics.INVENTORY]
names = ["inventories", "inventory", "magazzino", "rimanenze", "存货"]
unit = "USD_M"

[entities.KIWI_GROUP]
names = ["Kiwi Group", "Gruppo Kiwi", "Kiwi集团"]
"""
KIWI_FACTS = """metric,entity,period_type,period,channel,value,unit,source_doc,source_locator
REVENUE,KIWI_GROUP,FY,2023,TOTAL,880,USD_M,AR2023.pdf,page=3
REVENUE,KIWI_GROUP,FY,2024,TOTAL,940.5,USD_M,AR2024.pdf,page=3
REVENUE,KIWI_GROUP,FY,2025,TOTAL,1002,USD_M,AR2025.pdf,page=3
REVENUE,KIWI_GROUP,HY,2024H1,TOTAL,455,USD_M,HY2024.pdf,page=2
REVENUE,KIWI_GROUP,HY,2025H1,TOTAL,470,USD_M,HY2025.pdf,page=2
REVENUE,KIWI_GROUP,Q,2024Q3,TOTAL,231,USD_M,Q3FY24.pdf,page=1
REVENUE,KIWI_GROUP,Q,2025Q3,TOTAL,240,USD_M,Q3FY25.pdf,page=1
INVENTORY,KIWI_GROUP,FY,2024,TOTAL,120,USD_M,AR2024.pdf,page=9
INVENTORY,KIWI_GROUP,HY,2024H1,TOTAL,133,USD_M,HY2024.pdf,page=5
"""
# FY2025 (April 2024 - March 2025) is over on the reference date, but its report is not out
SAKURA_GLOSSARY = """
[scope]
default_entity = "SAKURA"
fiscal_year_end = "03-31"

[metrics.REVENUE]
names = ["revenue", "sales", "ricavi", "fatturato", "营收", "收入"]
unit = "JPY_BN"

[entities.SAKURA]
names = ["Sakura", "Sakura Holdings", "樱花"]
"""
SAKURA_FACTS = """metric,entity,period_type,period,channel,value,unit,source_doc,source_locator
REVENUE,SAKURA,FY,2023,TOTAL,310.2,JPY_BN,SR2023.pdf,page=4
REVENUE,SAKURA,FY,2024,TOTAL,325.75,JPY_BN,SR2024.pdf,page=4
REVENUE,SAKURA,Q,2024Q3,TOTAL,84.1,JPY_BN,Q3FY24.pdf,page=2
REVENUE,SAKURA,HY,2025H1,TOTAL,160.4,JPY_BN,HY2025.pdf,page=2
"""
KIWI_DAY = "2025-12-15"  # FY2026 runs; FY2025 (Jul 2024 - Jun 2025) is the last complete one
SAKURA_DAY = "2025-05-10"  # FY2026 runs; FY2025 is complete but has no figure yet


def _kb(tmp_path: Path, name: str, glossary: str, facts: str) -> Path:
    (tmp_path / f"{name}.toml").write_text(glossary, encoding="utf-8")
    (tmp_path / f"{name}.csv").write_text(facts, encoding="utf-8")
    data = tmp_path / "data"
    ricorda(data, "ingest", str(tmp_path / f"{name}.toml"), str(tmp_path / f"{name}.csv"))
    return data


@pytest.fixture
def kiwi(tmp_path: Path) -> Path:
    return _kb(tmp_path, "kiwi", KIWI_GLOSSARY, KIWI_FACTS)


@pytest.fixture
def sakura(tmp_path: Path) -> Path:
    return _kb(tmp_path, "sakura", SAKURA_GLOSSARY, SAKURA_FACTS)


@pytest.fixture
def acme(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    ricorda(data, "ingest", str(ACME / "glossary.toml"), str(ACME / "facts.csv"))
    return data


def ask(data: Path, question: str, day: str) -> dict:  # type: ignore[type-arg]
    out = ricorda(data, "ask", question, "--json", "--reference-date", day).stdout
    return json.loads(out)


def headline(answer: dict) -> tuple[str, str, str]:  # type: ignore[type-arg]
    """(period type, period, exact value) of the first fact, which must be found."""
    fact = answer["facts"][0]
    assert fact["status"] == "found", answer["text"]
    return fact["period_type"], fact["period"], fact["value_exact"]


# --------------------------------------------------------------------------- June year end


@pytest.mark.parametrize(
    ("question", "label"),
    [
        ("Kiwi Group revenue Q3 FY2024", "Q3 FY2024 (Jan–Mar 2024)"),
        ("ricavi Gruppo Kiwi Q3 FY2024", "Q3 FY2024 (gen–mar 2024)"),
        ("Kiwi集团2024财年第三季度营收", "2024财年第三季度（2024年1月–3月）"),
    ],
)
def test_a_fiscal_quarter_says_its_fiscal_year_and_months(
    kiwi: Path, question: str, label: str
) -> None:
    answer = ask(kiwi, question, KIWI_DAY)
    assert headline(answer) == ("Q", "2024Q3", "231")
    assert label in answer["text"]


@pytest.mark.parametrize(
    ("question", "label"),
    [
        ("Kiwi Group revenue H1 2025", "H1 FY2025 (Jul–Dec 2024)"),
        ("ricavi Gruppo Kiwi primo semestre 2025", "H1 FY2025 (lug–dic 2024)"),
        ("Kiwi集团2025年上半年营收", "2025财年上半年（2024年7月–12月）"),
    ],
)
def test_a_fiscal_half_says_its_fiscal_year_and_months(
    kiwi: Path, question: str, label: str
) -> None:
    answer = ask(kiwi, question, KIWI_DAY)
    assert headline(answer) == ("HY", "2025H1", "470")
    assert label in answer["text"]


@pytest.mark.parametrize(
    ("question", "period", "value"),
    [
        # read as FY2024 before: the year before the one asked, under the wrong label
        ("Kiwi Group revenue fiscal 2024-25", "2025", "1002"),
        ("ricavi Gruppo Kiwi esercizio 2024/25", "2025", "1002"),
        ("Kiwi Group revenue for the year ended 30 June 2024", "2024", "940.5"),
        ("Kiwi Group revenue for the twelve months to June 2024", "2024", "940.5"),
        ("ricavi Gruppo Kiwi nell'esercizio chiuso al 30 giugno 2024", "2024", "940.5"),
        ("截至2024年6月30日止年度Kiwi集团营收", "2024", "940.5"),
    ],
)
def test_the_common_names_of_a_split_fiscal_year(
    kiwi: Path, question: str, period: str, value: str
) -> None:
    answer = ask(kiwi, question, KIWI_DAY)
    assert headline(answer) == ("FY", period, value)
    assert not [a for a in answer["assumptions"] if a["slot"] == "period"], answer["text"]


@pytest.mark.parametrize(
    ("question", "shown"),
    [
        ("Kiwi Group inventories as at 31 December 2023", "H1 FY2024 (Jul–Dec 2023)"),
        ("Qual era il magazzino del Gruppo Kiwi al 31 dicembre 2023?", "H1 FY2024 (lug–dic 2023)"),
        ("截至2023年12月31日Kiwi集团的存货", "2024财年上半年（2023年7月–12月）"),
    ],
)
def test_a_point_in_time_is_the_period_ending_that_day(
    kiwi: Path, question: str, shown: str
) -> None:
    answer = ask(kiwi, question, KIWI_DAY)
    assert headline(answer) == ("HY", "2024H1", "133")
    assert shown in answer["text"]


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("Kiwi Group revenue H1", '"H1" names no year'),
        ("ricavi Gruppo Kiwi H1", "\"H1\" non indica l'anno"),
        ("Kiwi集团H1营收", "“H1”未指明年份"),
    ],
)
def test_a_half_named_without_a_year_is_the_latest_complete_one(
    kiwi: Path, question: str, said: str
) -> None:
    # on 15 December 2025 the running H1 (FY2026, Jul-Dec 2025) is not over: it was asked
    # for before, and had no figure
    answer = ask(kiwi, question, KIWI_DAY)
    assert headline(answer) == ("HY", "2025H1", "470")
    assert said in answer["text"]


def test_a_year_that_ends_on_another_day_is_not_guessed(kiwi: Path) -> None:
    answer = ask(kiwi, "Kiwi Group revenue for the year ended 31 March 2024", KIWI_DAY)
    assert all(f["status"] != "found" for f in answer["facts"]), answer["text"]
    assert "year ended 31 March 2024" in answer["text"]
    assert "The fiscal year ends on 30 June." in answer["text"]


# --------------------------------------------------------------------------- March year end


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("Sakura revenue for the last complete fiscal year",
         "FY2024 (Apr 2023–Mar 2024) (the latest fiscal year with a figure: "
         "FY2025 (Apr 2024–Mar 2025) has none yet)"),
        ("Sakura revenue", "FY2025 (Apr 2024–Mar 2025) has none yet"),
        ("ricavi Sakura dell'ultimo esercizio completo",
         "l'ultimo esercizio con un dato: FY2025 (apr 2024–mar 2025) non ne ha ancora"),
        ("樱花最近一个完整财年的营收", "有数据的最近财年：2025财年（2024年4月–2025年3月）尚无数据"),
    ],
)  # fmt: skip
def test_last_complete_year_without_a_figure_falls_back_to_the_latest_with_one(
    sakura: Path, question: str, said: str
) -> None:
    answer = ask(sakura, question, SAKURA_DAY)
    assert headline(answer) == ("FY", "2024", "325.75")
    assert said in answer["text"]
    period = [a for a in answer["assumptions"] if a["slot"] == "period"]
    assert period and "FY2025 has none yet" in period[0]["reason"]


def test_a_named_year_without_a_figure_is_not_replaced(sakura: Path) -> None:
    answer = ask(sakura, "Sakura revenue FY2025", SAKURA_DAY)
    assert answer["facts"][0]["status"] == "not_found"
    assert "325.75" not in answer["text"]


@pytest.mark.parametrize(
    ("question", "code", "label"),
    [
        ("Sakura revenue Q3 FY2024", "2024Q3", "Q3 FY2024 (Oct–Dec 2023)"),
        ("ricavi Sakura primo semestre FY2025", "2025H1", "H1 FY2025 (apr–set 2024)"),
        ("樱花2025财年上半年营收", "2025H1", "2025财年上半年（2024年4月–9月）"),
    ],
)
def test_march_year_end_labels(sakura: Path, question: str, code: str, label: str) -> None:
    answer = ask(sakura, question, SAKURA_DAY)
    assert headline(answer)[1] == code
    assert label in answer["text"]


# --------------------------------------------------------------------------- December year end


@pytest.mark.parametrize(
    ("question", "period", "value"),
    [
        ("ACME China revenue '24", "2024", "1320"),
        ("ACME China revenue ’24", "2024", "1320"),
        ("中国区24年营收", "2024", "1320"),
        ("fatturato Cina al 31 dicembre 2024", "2024", "1320"),
        ("ACME China revenue as at 31 December 2024", "2024", "1320"),
    ],
)
def test_short_years_and_days_on_a_december_year(
    acme: Path, question: str, period: str, value: str
) -> None:
    answer = ask(acme, question, "2026-06-15")
    assert headline(answer) == ("FY", period, value)


def test_december_labels_stay_as_they_were(acme: Path) -> None:
    answer = ask(acme, "ACME China revenue Q3 2025", "2026-06-15")
    assert "ACME China revenue, Q3 2025: $288M" in answer["text"]  # USD_M by its symbol
    assert "FY" not in answer["text"]


@pytest.mark.parametrize(
    ("question", "month"),
    [
        ("ACME China revenue for December", "2025-12"),
        ("ricavi Cina di dicembre", "2025-12"),
        ("What was ACME China revenue in March?", "2026-03"),
    ],
)
def test_a_month_name_is_a_month_never_an_unknown_company(
    acme: Path, question: str, month: str
) -> None:
    answer = ask(acme, question, "2026-06-15")
    assert [f for f in answer["facts"] if f["status"] == "unrecognized_param"] == []
    fact = answer["facts"][0]
    assert (fact.get("period") or fact["normalized"]["period"]) == month, answer["text"]


@pytest.mark.parametrize(
    ("question", "day"),
    [("What was ACME China revenue on Friday?", "Friday"), ("ricavi Cina di lunedì", "lunedì")],
)
def test_a_weekday_is_no_period_and_no_company(acme: Path, question: str, day: str) -> None:
    answer = ask(acme, question, "2026-06-15")
    refused = [f for f in answer["facts"] if f["status"] == "unrecognized_param"]
    assert refused == [{"status": "unrecognized_param", "param": "period", "raw": day}]
    assert not [f for f in answer["facts"] if f["status"] == "found"], answer["text"]
