"""Two small companies that are not the demo, for the period tests (tests/test_period_*.py).

- **Alpina**: fiscal year to 31 March, EUR; monthly revenue (EUR_M) and orders (K_ORDERS) of
  the group and per unit from April 2021 to March 2026, with the yearly totals as reported; an
  EBITDA margin (PCT, a rate) and a headcount (FTE, a stock) per year.
- **Boreal**: fiscal year to 30 September, USD; quarterly and half-year shipments (COUNT),
  operating cash flow (USD_M) and revenue (USD_K) per unit, FY2022-FY2025, with the years.

Every figure is a simple formula of its period and unit, so a test can compute the expected
answer on its own (`alpina_month`, `boreal_quarter`).
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

ALPINA_GLOSSARY = """
[scope]
default_entity = "ALPINA_GROUP"
fiscal_year_end = "03-31"

[metrics.REVENUE]
names = ["revenue", "sales", "ricavi", "vendite", "fatturato", "营收", "收入", "销售额"]
unit = "EUR_M"

[metrics.ORDERS]
names = ["orders", "ordini", "订单"]
unit = "K_ORDERS"

[metrics.EBITDA_MARGIN]
names = ["ebitda margin", "margine ebitda", "margin", "margine", "EBITDA利润率", "利润率"]
unit = "PCT"

[metrics.HEADCOUNT]
names = ["headcount", "employees", "dipendenti", "员工人数"]
unit = "FTE"

[entities.ALPINA_GROUP]
names = ["Alpina", "Alpina Group", "Gruppo Alpina", "阿尔皮纳集团"]

[entities.ALPINA_IT]
names = ["Alpina Italia", "Italy", "Italia", "意大利"]
parent = "ALPINA_GROUP"

[entities.ALPINA_DE]
names = ["Alpina Germany", "Germany", "Germania", "德国"]
parent = "ALPINA_GROUP"

[entities.ALPINA_CN]
names = ["Alpina China", "China", "Cina", "中国"]
parent = "ALPINA_GROUP"
"""

ALPINA_UNITS = {"ALPINA_IT": 10, "ALPINA_DE": 7, "ALPINA_CN": 4}
ALPINA_FIRST_FY, ALPINA_LAST_FY = 2022, 2026  # months 2021-04 .. 2026-03


def alpina_month(unit: str, fy: int, k: int) -> Decimal:
    """Revenue (EUR_M) of `unit` in the k-th month (1..12) of fiscal year `fy`."""
    return Decimal(ALPINA_UNITS[unit]) + Decimal(fy - 2022) + Decimal(k) / 10


def alpina_orders(unit: str, fy: int, k: int) -> Decimal:
    """Orders (thousands) of `unit` in the k-th month of `fy`: peaks in the 9th month."""
    return Decimal(ALPINA_UNITS[unit] * 2 + (5 if k == 9 else 0) + (fy - 2022))


def _month_code(fy: int, k: int) -> str:
    month = (3 + k - 1) % 12 + 1
    year = fy - 1 if month >= 4 else fy
    return f"{year}-{month:02d}"


def alpina_facts() -> str:
    rows = ["metric,entity,period_type,period,channel,value,unit,source_doc,source_locator"]
    margins = {2022: "11.5", 2023: "12.0", 2024: "11.2", 2025: "10.8", 2026: "12.4"}
    heads = {2022: 900, 2023: 950, 2024: 1010, 2025: 1040, 2026: 1100}
    for fy in range(ALPINA_FIRST_FY, ALPINA_LAST_FY + 1):
        group_rev = Decimal(0)
        group_ord = Decimal(0)
        for k in range(1, 13):
            code = _month_code(fy, k)
            rev = sum(alpina_month(u, fy, k) for u in ALPINA_UNITS)
            orders = sum(alpina_orders(u, fy, k) for u in ALPINA_UNITS)
            rows.append(f"REVENUE,ALPINA_GROUP,M,{code},TOTAL,{rev},EUR_M,MR{code}.pdf,page=1")
            rows.append(f"ORDERS,ALPINA_GROUP,M,{code},TOTAL,{orders},K_ORDERS,MR{code}.pdf,page=2")
        for unit in ALPINA_UNITS:
            year_rev = Decimal(0)
            year_ord = Decimal(0)
            for k in range(1, 13):
                rev, orders = alpina_month(unit, fy, k), alpina_orders(unit, fy, k)
                year_rev += rev
                year_ord += orders
                code = _month_code(fy, k)
                rows.append(f"REVENUE,{unit},M,{code},TOTAL,{rev},EUR_M,MR{code}.pdf,page=1")
                rows.append(f"ORDERS,{unit},M,{code},TOTAL,{orders},K_ORDERS,MR{code}.pdf,page=2")
            rows.append(f"REVENUE,{unit},FY,{fy},TOTAL,{year_rev},EUR_M,AR{fy}.pdf,page=4")
            rows.append(f"ORDERS,{unit},FY,{fy},TOTAL,{year_ord},K_ORDERS,AR{fy}.pdf,page=5")
            group_rev += year_rev
            group_ord += year_ord
        rows.append(f"REVENUE,ALPINA_GROUP,FY,{fy},TOTAL,{group_rev},EUR_M,AR{fy}.pdf,page=3")
        rows.append(f"ORDERS,ALPINA_GROUP,FY,{fy},TOTAL,{group_ord},K_ORDERS,AR{fy}.pdf,page=5")
        rows.append(f"EBITDA_MARGIN,ALPINA_GROUP,FY,{fy},TOTAL,{margins[fy]},PCT,AR{fy}.pdf,page=6")
        rows.append(f"HEADCOUNT,ALPINA_GROUP,FY,{fy},TOTAL,{heads[fy]},FTE,AR{fy}.pdf,page=7")
    return "\n".join(rows) + "\n"


BOREAL_GLOSSARY = """
[scope]
default_entity = "BOREAL_GROUP"
fiscal_year_end = "09-30"

[metrics.SHIPMENTS]
names = ["shipments", "units shipped", "spedizioni", "出货量"]
unit = "COUNT"

[metrics.OPERATING_CASH_FLOW]
names = ["operating cash flow", "flusso di cassa operativo", "经营现金流"]
unit = "USD_M"

[metrics.REVENUE]
names = ["revenue", "sales", "ricavi", "vendite", "fatturato", "营收", "收入"]
unit = "USD_K"

[entities.BOREAL_GROUP]
names = ["Boreal", "Boreal Group", "Gruppo Boreal", "北方集团"]

[entities.BOREAL_US]
names = ["Boreal US", "United States", "Stati Uniti", "美国"]
parent = "BOREAL_GROUP"

[entities.BOREAL_MX]
names = ["Boreal Mexico", "Mexico", "Messico", "墨西哥"]
parent = "BOREAL_GROUP"

[entities.BOREAL_CA]
names = ["Boreal Canada", "Canada", "加拿大"]
parent = "BOREAL_GROUP"
"""

BOREAL_UNITS = {"BOREAL_US": 300, "BOREAL_MX": 120, "BOREAL_CA": 80}
BOREAL_FIRST_FY, BOREAL_LAST_FY = 2022, 2025
BOREAL_CASH = {2022: "41.5", 2023: "38.2", 2024: "52.9", 2025: "47.1"}  # group, per year


def boreal_quarter(unit: str, fy: int, q: int) -> int:
    """Shipments of `unit` in quarter q (1..4) of fiscal year `fy`: Q3 is the peak season."""
    return BOREAL_UNITS[unit] + 10 * (fy - 2022) + (50 if q == 3 else 5 * q)


def boreal_revenue(unit: str, fy: int, q: int) -> int:
    """Revenue (USD thousands) of `unit` in quarter q of `fy`."""
    return boreal_quarter(unit, fy, q) * 25


def boreal_facts() -> str:
    rows = ["metric,entity,period_type,period,channel,value,unit,source_doc,source_locator"]
    for fy in range(BOREAL_FIRST_FY, BOREAL_LAST_FY + 1):
        group = {q: 0 for q in range(1, 5)}
        for unit in BOREAL_UNITS:
            qs = {q: boreal_quarter(unit, fy, q) for q in range(1, 5)}
            for q, n in qs.items():
                group[q] += n
                rows.append(f"SHIPMENTS,{unit},Q,{fy}Q{q},TOTAL,{n},COUNT,Q{q}FY{fy}.pdf,page=2")
                rows.append(
                    f"REVENUE,{unit},Q,{fy}Q{q},TOTAL,{n * 25},USD_K,Q{q}FY{fy}.pdf,page=1")
            for h, (a, b) in ((1, (1, 2)), (2, (3, 4))):
                rows.append(f"SHIPMENTS,{unit},HY,{fy}H{h},TOTAL,{qs[a] + qs[b]},COUNT,"
                            f"HY{fy}.pdf,page=2")
            rows.append(f"SHIPMENTS,{unit},FY,{fy},TOTAL,{sum(qs.values())},COUNT,"
                        f"AR{fy}.pdf,page=8")
            rows.append(f"REVENUE,{unit},FY,{fy},TOTAL,{sum(qs.values()) * 25},USD_K,"
                        f"AR{fy}.pdf,page=3")
        for q, n in group.items():
            rows.append(f"SHIPMENTS,BOREAL_GROUP,Q,{fy}Q{q},TOTAL,{n},COUNT,Q{q}FY{fy}.pdf,page=2")
        rows.append(f"SHIPMENTS,BOREAL_GROUP,HY,{fy}H1,TOTAL,{group[1] + group[2]},COUNT,"
                    f"HY{fy}.pdf,page=2")
        rows.append(f"SHIPMENTS,BOREAL_GROUP,HY,{fy}H2,TOTAL,{group[3] + group[4]},COUNT,"
                    f"AR{fy}.pdf,page=8")
        rows.append(f"SHIPMENTS,BOREAL_GROUP,FY,{fy},TOTAL,{sum(group.values())},COUNT,"
                    f"AR{fy}.pdf,page=8")
        rows.append(f"OPERATING_CASH_FLOW,BOREAL_GROUP,FY,{fy},TOTAL,{BOREAL_CASH[fy]},USD_M,"
                    f"AR{fy}.pdf,page=12")
    return "\n".join(rows) + "\n"


def write_company(folder: Path, name: str, glossary: str, facts: str) -> tuple[Path, Path]:
    """The glossary and fact files of a company in `folder`, for `ricorda ingest`."""
    folder.mkdir(parents=True, exist_ok=True)
    toml, csv = folder / f"{name}.toml", folder / f"{name}.csv"
    toml.write_text(glossary, encoding="utf-8")
    csv.write_text(facts, encoding="utf-8")
    return toml, csv


def ingest_company(data_dir: Path, name: str, glossary: str, facts: str) -> Path:
    """`ricorda ingest` of the company into `data_dir`, as a user would run it."""
    from tests.test_cli import ricorda

    toml, csv = write_company(data_dir.parent / f"{name}-src", name, glossary, facts)
    ricorda(data_dir, "ingest", str(toml), str(csv))
    return data_dir


def ask_json(data_dir: Path, question: str, day: str) -> dict:
    """`ricorda ask --json --reference-date DAY QUESTION`, parsed."""
    import json

    from tests.test_cli import ricorda

    out = ricorda(data_dir, "ask", "--json", "--reference-date", day, question)
    return json.loads(out.stdout)


def headline(answer: dict) -> dict:
    """The first fact of an answer (the derived one, for a sum or an average)."""
    return answer["facts"][0] if answer.get("facts") else {}


def make_alpina(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Alpina ingested in a fresh data dir (a test module's fixture calls this once)."""
    data = tmp_path_factory.mktemp("alpina") / "data"
    return ingest_company(data, "alpina", ALPINA_GLOSSARY, alpina_facts())


def make_boreal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Boreal ingested in a fresh data dir."""
    data = tmp_path_factory.mktemp("boreal") / "data"
    return ingest_company(data, "boreal", BOREAL_GLOSSARY, boreal_facts())


def alpina_value(entity: str, month: str, metric: str = "REVENUE") -> Decimal:
    """Alpina's figure for a month code ("2026-01"), for the group or a unit."""
    year, mon = (int(x) for x in month.split("-"))
    fy = year + 1 if mon >= 4 else year
    k = (mon - 4) % 12 + 1
    figure = alpina_month if metric == "REVENUE" else alpina_orders
    units = list(ALPINA_UNITS) if entity == "ALPINA_GROUP" else [entity]
    return sum((figure(u, fy, k) for u in units), Decimal(0))


def boreal_group(fy: int, q: int) -> int:
    """Boreal's group shipments in quarter q of `fy`."""
    return sum(boreal_quarter(u, fy, q) for u in BOREAL_UNITS)
