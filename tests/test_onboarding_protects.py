"""Onboarding that protects (issue 33, points 5 and 6), through the CLI on a small company of
its own: Mira, a fiscal year ending in March (FY2025 = Apr 2024-Mar 2025), monthly group
revenue, two public units and a restricted lab with yearly figures only, an EBITDA after
central costs (the group's is not the units' sum), and public documents that state the group's
revenue in each language's number form."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from tests.test_cli import ricorda as _ricorda

REF = "2025-09-15"


def ricorda(*args: object, **kwargs: object):  # type: ignore[no-untyped-def]
    """tests.test_cli.ricorda with room for a busy machine (a first ingest builds indexes)."""
    kwargs.setdefault("timeout", 900)
    return _ricorda(*args, **kwargs)  # type: ignore[arg-type]
MONTHS_FY2025 = [f"2024-{m:02d}" for m in range(4, 13)] + [f"2025-{m:02d}" for m in range(1, 4)]
MONTHLY = ["85.1", "86.2", "84.9", "88.0", "90.3", "87.4", "86.6", "85.0", "91.2", "84.7",
           "86.1", "88.3"]
GROUP_FY2025 = sum(Decimal(v) for v in MONTHLY)  # 1043.8 = 500.5 + 400.2 + 143.1
UNITS = {"MIRA_IT": ("500.5", "480.0"), "MIRA_DE": ("400.2", "450.0"),
         "MIRA_LAB": ("143.1", "150.0")}


def mira_facts(path: Path) -> Path:
    rows = ["metric,entity,period_type,period,channel,value,unit,source_doc,source_locator"]
    for code, (fy25, fy24) in UNITS.items():
        rows.append(f"REVENUE,{code},FY,2025,,{fy25},EUR_M,mira_ar_2025.xlsx,"
                    f"\"sheet=PnL;row={code};col=FY2025\"")
        rows.append(f"REVENUE,{code},FY,2024,,{fy24},EUR_M,mira_ar_2024.pdf,\"page=11,table=2\"")
    rows.append(f"REVENUE,MIRA_GROUP,FY,2025,,{GROUP_FY2025},EUR_M,mira_ar_2025.xlsx,"
                "\"sheet=PnL;row=GROUP_REVENUE;col=FY2025\"")
    rows.append("REVENUE,MIRA_GROUP,FY,2024,,1080.0,EUR_M,mira_ar_2024.pdf,\"page=11,table=2\"")
    rows += [f"REVENUE,MIRA_GROUP,M,{m},,{v},EUR_M,mira_mgmt.xlsx,sheet=monthly"
             for m, v in zip(MONTHS_FY2025, MONTHLY, strict=True)]
    for code, value in (("MIRA_GROUP", "90.0"), ("MIRA_IT", "50.0"), ("MIRA_DE", "40.0"),
                        ("MIRA_LAB", "10.0")):  # after central costs: the group's is not a sum
        rows.append(f"EBITDA,{code},FY,2025,,{value},EUR_M,mira_ar_2025.xlsx,"
                    f"\"sheet=PnL;row=EBITDA;col=FY2025\"")
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


GLOSSARY = """
[scope]
default_entity = "MIRA_GROUP"
fiscal_year_end = "03-31"
restricted_chats = ["console:cfo"]
disclosure = "protect"

[metrics.REVENUE]
names = ["Revenue", "sales", "fatturato", "ricavi", "营收"]
unit = "EUR_M"

[metrics.EBITDA]
names = ["EBITDA"]
unit = "EUR_M"

[entities.MIRA_GROUP]
names = ["Mira Group", "Gruppo Mira", "Mira集团", "group", "gruppo", "集团"]

[entities.MIRA_IT]
names = ["Mira Italy", "Mira Italia", "Mira意大利"]
parent = "MIRA_GROUP"

[entities.MIRA_DE]
names = ["Mira Germany", "Mira Germania", "Mira德国"]
parent = "MIRA_GROUP"

[entities.MIRA_LAB]
names = ["Mira Lab", "Mira实验室"]
parent = "MIRA_GROUP"
restricted = true

[units.EUR_M]
en = "€{value}M"
it = "{value} Mln €"
zh = { format = "{value}亿欧元", shift = -2 }

[[documents]]
source = "mira"
path = "library"
restricted = false
"""

LETTER = """# Letter to shareholders, FY2025

## The year

Group revenue fell to EUR 1,043.8 million in FY2025, from EUR 1,080.0 million, because the
German market slowed and the price war in Germany cut volumes.

## Italy

Italy grew thanks to the new stores.
"""
LETTERA = """# Lettera agli azionisti

## Il gruppo

Il fatturato del gruppo è sceso a 1.043,8 milioni di euro nell'esercizio 2025.
"""
LETTER_ZH = """# 致股东信

## 集团

2025财年集团营收为10.438亿欧元，因德国市场放缓而下降。
"""
GERMANY = """# Germany review FY2025

## Market

Revenue in Germany fell because the German market slowed and a price war cut volumes.
"""


@pytest.fixture()
def mira(tmp_path: Path) -> Path:
    root = tmp_path / "mira"
    (root / "library" / "restricted").mkdir(parents=True)
    (root / "library" / "letter.md").write_text(LETTER, encoding="utf-8")
    (root / "library" / "lettera.md").write_text(LETTERA, encoding="utf-8")
    (root / "library" / "lettera_zh.md").write_text(LETTER_ZH, encoding="utf-8")
    (root / "library" / "germany.md").write_text(GERMANY, encoding="utf-8")
    (root / "library" / "restricted" / "board.md").write_text(
        "# Board\n\nMira Lab revenue was EUR 143.1 million; group EUR 1,043.8 million.\n",
        encoding="utf-8")
    mira_facts(root / "facts.csv")
    (root / "glossary.toml").write_text(GLOSSARY, encoding="utf-8")
    return root


def _kb(root: Path) -> list[str]:
    return [str(root / "glossary.toml"), str(root / "facts.csv"), str(root / "library")]


def test_check_lists_public_passages_stating_a_withheld_total(mira: Path, tmp_path: Path) -> None:
    checked = ricorda(tmp_path / "data", "check", *_kb(mira), check=False)
    out = checked.stdout
    assert checked.returncode == 1, out
    for doc, written in (("library/letter.md", "1,043.8 million"),
                         ("library/lettera.md", "1.043,8 milioni"),
                         ("library/lettera_zh.md", "10.438亿")):
        line = next((x for x in out.splitlines() if x.startswith(f"{doc}:")), "")
        assert "REVENUE MIRA_GROUP FY2025" in line and written in line, out
        assert "section=" in line and "restricted/" in line and "[disclosure] accept" in line
    assert "germany.md" not in out and "board.md" not in out  # no figure; restricted
    assert "withheld from uncleared chats" in out and "REVENUE MIRA_GROUP" in out


def test_accepted_documents_are_not_listed(mira: Path, tmp_path: Path) -> None:
    glossary = mira / "glossary.toml"
    glossary.write_text(GLOSSARY + '\n[disclosure]\naccept = ["library/letter.md", '
                        '"library/lettera.md", "mira/lettera_zh.md"]\n', encoding="utf-8")
    checked = ricorda(tmp_path / "data", "check", *_kb(mira), "--json")
    result = json.loads(checked.stdout)
    assert result["ok"] and not [e for e in result["errors"] if "passage" in e["message"]]


def test_ingest_says_what_is_withheld_and_which_passages_state_it(
        mira: Path, tmp_path: Path) -> None:
    out = ricorda(tmp_path / "data", "ingest", *_kb(mira)).stdout
    assert "are withheld from uncleared chats" in out, out
    assert "REVENUE MIRA_GROUP FY2024–FY2025" in out, out
    assert "mira/letter.md (section=The year) states a withheld figure" in out, out
    assert "mira/lettera_zh.md" in out and "restricted/board.md" not in out


def test_an_uncleared_answer_never_quotes_a_passage_stating_the_withheld_total(
        mira: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    ricorda(data, "ingest", *_kb(mira))
    question = "Why did group revenue fall in FY2025?"
    answer = json.loads(ricorda(data, "ask", question, "--json", "--reference-date", REF).stdout)
    cited = {s["doc"] for s in answer["sources"]}
    assert not cited & {"mira/letter.md", "mira/lettera.md", "mira/lettera_zh.md"}, answer["text"]
    for form in ("1,043.8", "1.043,8", "10.438"):
        assert form not in answer["text"], answer["text"]
    cleared = json.loads(ricorda(data, "ask", question, "--json", "--reference-date", REF,
                                 "--chat", "console:cfo").stdout)
    assert "1,043.8" in cleared["text"]  # the cleared chat sees the group's figure


def test_init_proposes_parents_and_protect_and_check_warns_without_them(tmp_path: Path) -> None:
    data = tmp_path / "data"
    facts = mira_facts(tmp_path / "facts.csv")
    glossary = tmp_path / "glossary.toml"
    ricorda(data, "init", str(facts), "--out", str(glossary))
    text = glossary.read_text(encoding="utf-8")
    assert 'disclosure = "protect" # ' in text  # with its one-line comment
    assert 'fiscal_year_end = "03-31"' in text
    for unit in UNITS:
        assert f'[entities.{unit}]\nnames = ["TODO ' in text
    assert text.count('parent = "MIRA_GROUP"') == 3 and "[competitors]" in text
    restricted = text.replace('[entities.MIRA_LAB]\nnames = ["TODO Mira lab"]\n'
                              'parent = "MIRA_GROUP"\nrestricted = false',
                              '[entities.MIRA_LAB]\nnames = ["Mira Lab"]\nrestricted = true')
    assert restricted != text
    glossary.write_text(restricted, encoding="utf-8")
    out = ricorda(data, "check", str(glossary), str(facts)).stdout
    assert "entities.MIRA_LAB is restricted but has no parent" in out, out
    orphan = text.replace('parent = "MIRA_GROUP"\n', "")
    glossary.write_text(orphan, encoding="utf-8")
    out = ricorda(data, "check", str(glossary), str(facts)).stdout
    assert "entities.MIRA_GROUP's figures are the sum of MIRA_IT, MIRA_DE, MIRA_LAB" in out, out


def test_init_quotes_what_it_writes(tmp_path: Path) -> None:
    data = tmp_path / "data"
    odd = tmp_path / "docs\\u002f..\\u002f.."  # a folder literally named so
    odd.mkdir()
    facts = mira_facts(tmp_path / "facts.csv")
    glossary = tmp_path / "glossary.toml"
    ricorda(data, "init", str(facts), str(odd), "--out", str(glossary))
    import tomllib

    declared = tomllib.loads(glossary.read_text(encoding="utf-8"))["documents"][0]["path"]
    assert (tmp_path / declared).resolve() == odd.resolve()  # not the parent folder
    dotted = tmp_path / "dotted.csv"
    dotted.write_text(facts.read_text(encoding="utf-8").replace("MIRA_IT", "ACME_IT.NAMES"),
                      encoding="utf-8")
    refused = ricorda(data, "init", str(dotted), "--out", str(tmp_path / "g2.toml"), check=False)
    assert refused.returncode != 0 and "'ACME_IT.NAMES'" in refused.stdout + refused.stderr
    assert not (tmp_path / "g2.toml").exists()


def test_units_and_locators_read_as_words_without_a_units_table(
        mira: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    bare = GLOSSARY[:GLOSSARY.index("[units.EUR_M]")] + GLOSSARY[GLOSSARY.index("[[documents]]"):]
    bare = bare.replace('[entities.MIRA_GROUP]', '[metrics.ORDERS]\nnames = ["Orders", "ordini", '
                        '"订单"]\nunit = "K_ORDERS"\n\n[entities.MIRA_GROUP]')
    (mira / "glossary.toml").write_text(bare, encoding="utf-8")
    facts = mira / "facts.csv"
    facts.write_text(facts.read_text(encoding="utf-8")
                     + "ORDERS,MIRA_IT,FY,2025,,37.5,K_ORDERS,mira_ops.xlsx,\"Ops!B7\"\n",
                     encoding="utf-8")
    checked = ricorda(data, "check", str(mira / "glossary.toml"), str(facts), check=False).stdout
    assert "unit K_ORDERS has no display form" in checked, checked
    assert "unit EUR_M has no display form" not in checked  # a currency reads by its symbol
    ricorda(data, "ingest", str(mira / "glossary.toml"), str(facts))
    for question, value, place in [
        ("What was Mira Italy revenue in FY2025?", "€500.5M",
         "sheet PnL, row MIRA_IT, column FY2025"),
        ("Qual è stato il fatturato di Mira Italia nel FY2025?", "500,5 Mln €",
         "foglio PnL, riga MIRA_IT, colonna FY2025"),
        ("Mira意大利FY2025营收是多少？", "5.005亿欧元", "工作表PnL，行 MIRA_IT，列 FY2025"),
        ("Mira Italy orders in FY2025", "37.5 k orders", "sheet Ops, cell B7"),
    ]:
        answer = json.loads(ricorda(data, "ask", question, "--json", "--reference-date", REF)
                            .stdout)
        assert value in answer["text"] and place in answer["text"], (question, answer["text"])
        assert "EUR_M" not in answer["text"] and "K_ORDERS" not in answer["text"]


def test_check_on_a_file_of_bad_rows_prints_a_summary_and_the_first_problems(
        mira: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    rows = 200_000
    with bad.open("w", encoding="utf-8") as out:
        out.write("metric,entity,period_type,period,channel,value,unit,source_doc,"
                  "source_locator\n")
        out.writelines(f"REVENUE,MIRA_IT,FY,2025,,not-a-number-{i},EUR_M,x.pdf,page=1\n"
                       for i in range(rows))
    checked = ricorda(tmp_path / "data", "check", str(mira / "glossary.toml"), str(bad),
                      check=False, timeout=600)
    lines = checked.stdout.splitlines()
    assert checked.returncode == 1 and len(lines) < 60, len(lines)
    assert sum(f"{bad}:" in x and "error" in x for x in lines) == 21  # 20 rows and the count
    assert f"{rows - 20:,} more rows rejected ({rows:,} of {rows:,})" in checked.stdout


def test_the_demo_check_is_clean_under_protect_and_says_what_is_withheld(tmp_path: Path) -> None:
    demo = Path(__file__).resolve().parents[1] / "bot" / "demo"
    checked = ricorda(tmp_path / "data", "check", str(demo / "glossary.toml"),
                      str(demo / "facts.csv"), str(demo / "docs"))
    assert "0 errors, 0 warnings" in checked.stdout and "public passage" not in checked.stdout
    assert "are withheld from uncleared chats" in checked.stdout
    assert "REVENUE ORBIS_GROUP FY2021–FY2025" in checked.stdout
