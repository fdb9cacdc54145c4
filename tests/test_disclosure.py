"""Disclosure control (issues 26 and 33): a restricted unit's figures cannot be worked out from
what an uncleared chat sees, and the checker names what would disclose them. A total that would
reveal a restricted unit is withheld, never renamed; the visible units' sum is its own line,
named by them (never keyed as the group).

The attack is the one from the issue, run as an attacker would, against the demo knowledge base
(Orbis Labs is restricted): a breakdown by entity for every period Labs has a figure in, a
breakdown by channel, one-figure answers subtracted, and the shares. For each period the test
computes total - sum(shown members) from what the answer shows and compares it with Labs'
figure in facts.csv: under the default policy "protect" it never matches. Each question is
asked twice (fresh, then replayed from the plan cache), on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from bot.kb.ingest import ingest_paths
from bot.settings.model import load_settings
from bot.wiring.build import App, build_app
from core.contracts.types import Answer, Period, PeriodType, Request
from core.knowledge.disclosure import find_disclosures
from core.knowledge.glossary import load_glossary
from core.pipeline.pipeline import Pipeline
from storage.fact_files import read_fact_file

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "bot" / "demo"
REF = dt.date(2026, 3, 1)
LABS, GROUP = "ORBIS_LABS", "ORBIS_GROUP"
PUBLIC = ("ORBIS_CN", "ORBIS_IT", "ORBIS_HK")
UNCLEARED, CLEARED = "telegram:-100555", "telegram:9001"


def demo_facts() -> list[Any]:
    return read_fact_file(DEMO / "facts.csv", known_metrics=None, known_entities=None,
                          known_channels=None).facts


def labs_revenue() -> dict[Period, Decimal]:
    return {f.period: f.value for f in demo_facts()
            if f.metric == "REVENUE" and f.entity == LABS and f.channel == "TOTAL"}


def glossary_file(root: Path, policy: str | None) -> Path:
    """The demo glossary, with `disclosure = policy` in its [scope] when given."""
    text = (DEMO / "glossary.toml").read_text(encoding="utf-8")
    if policy is not None:
        text = text.replace('disclosure = "protect"', f'disclosure = "{policy}"')
    else:  # the default when the glossary says nothing
        text = text.replace('disclosure = "protect"', "")
    path = root / "glossary.toml"
    path.write_text(text, encoding="utf-8")
    (root / "docs" / "restricted").mkdir(parents=True, exist_ok=True)  # its declared sources
    return path


def open_demo(root: Path, db_url: str | None = None, policy: str | None = None) -> App:
    settings: dict[str, Any] = {"data_dir": root / "data", "embedder": "hashing"}
    if db_url:
        settings["database_url"] = db_url
    app = build_app(load_settings(**settings))
    summary = ingest_paths(app, [glossary_file(root, policy), DEMO / "facts.csv"])
    assert not summary.problems, summary.problems
    return app


def ask(app: App, text: str, chat: str = UNCLEARED) -> Answer:
    return app.core.pipeline.answer(Request(text, chat=chat, reference_date=REF))


def phrase(period: Period) -> str:
    if period.type is PeriodType.FY:
        return f"FY{period.value}"
    if period.type is PeriodType.HY:
        return f"H{period.value[-1]} {period.value[:4]}"
    return f"Q{period.value[-1]} {period.value[:4]}"


def values(ans: Answer) -> dict[tuple[str, str], Decimal]:
    """What the answer shows, by (entity, channel): its facts as `ask --json` gives them."""
    out = {}
    for f in ans.to_dict()["facts"]:
        if f["status"] == "found":
            out[(f["entity"], f["channel"])] = Decimal(f["value_exact"])
    return out


def withheld(ans: Answer, entity: str = GROUP, channel: str = "TOTAL") -> dict[str, Any]:
    """The withheld total's record in `ask --json`: no value, the reason, and the visible
    units' sum under `disclosure.visible_members` (named by their codes)."""
    (record,) = [f for f in ans.to_dict()["facts"] if f.get("normalized", {}).get("entity")
                 == entity and f["normalized"]["channel"] == channel]
    assert record["status"] == "not_found" and record["reason"] == "withheld"
    assert "value" not in record and record["disclosure"]["withheld"] is True
    return record


def shares(ans: Answer) -> list[Decimal]:
    (table,) = ans.to_dict()["tables"]
    col = table["columns"].index("Share")
    return [Decimal(r[col].rstrip("%").replace(",", ".")) for r in table["rows"][:-1]]


# -- the attack, in process: every period, fresh and cached, SQLite and PostgreSQL ----------


@pytest.fixture
def app(tmp_path: Path, db_url: str) -> Iterator[App]:
    application = open_demo(tmp_path, db_url)
    yield application
    application.close()


def test_breakdowns_never_give_labs_by_difference(app: App) -> None:
    labs = labs_revenue()
    assert len(labs) == 9  # every year, half-year and quarter Labs has a figure in
    for period, secret in labs.items():
        for attempt in ("fresh", "cached"):
            ans = ask(app, f"revenue by entity in {phrase(period)}")
            shown = values(ans)
            members = sum((shown[(e, "TOTAL")] for e in PUBLIC), Decimal(0))
            assert (GROUP, "TOTAL") not in shown, (period, attempt, ans.text)
            visible = withheld(ans)["disclosure"]["visible_members"]
            assert Decimal(visible["sum_exact"]) == members  # named by the units it adds
            assert {m["entity"] for m in visible["members"]} == set(PUBLIC)
            assert "Labs" not in ans.text and f"€{secret}M" not in ans.text
            assert "Orbis Group's figure isn't shown in this chat" in ans.text
        assert ans.served_by != "planner"  # the second ask was a cached plan, replayed


def test_channel_breakdown_and_one_figure_differences_give_nothing(app: App) -> None:
    labs = labs_revenue()
    for year in ("2024", "2025"):
        period = Period(PeriodType.FY, year)
        for _ in ("fresh", "cached"):
            by_channel = values(ask(app, f"Orbis Group revenue by channel FY{year}"))
            assert not [key for key in by_channel if key[0] == GROUP]
            one = ask(app, f"What was Orbis Group revenue in FY{year}?")
            assert values(one) == {} and "not shown in this chat" in one.text
            units = [values(ask(app, f"What was {name} revenue in FY{year}?"))
                     for name in ("Orbis China", "Orbis Italia", "Orbis Hong Kong")]
            together = Decimal(withheld(one)["disclosure"]["visible_members"]["sum_exact"])
            assert together == sum((u[(e, "TOTAL")] for u, e in zip(units, PUBLIC, strict=True)),
                                   Decimal(0)) != labs[period] + together


def test_shares_add_up_to_what_is_shown(app: App) -> None:
    ans = ask(app, "Show me revenue by entity for FY2024")
    assert abs(sum(shares(ans)) - 100) <= Decimal("0.2")  # was 98.9%, silently
    assert "Orbis China, Orbis Italia and Orbis Hong Kong together" in ans.text


def test_a_ratio_over_a_withheld_total_is_withheld(app: App) -> None:
    ans = ask(app, "EBITDA margin of Orbis Group in FY2024")
    (fact,) = ans.to_dict()["facts"]
    assert fact["status"] == "not_found" and fact["reason"] == "withheld"
    assert fact["disclosure"] == {"policy": "protect", "withheld": True}
    assert "%" not in ans.text and "not shown in this chat" in ans.text


def test_a_cleared_chat_still_sees_the_group_and_labs(app: App) -> None:
    ans = ask(app, "Show me revenue by entity for FY2024", chat=CLEARED)
    shown = values(ans)
    assert shown[(GROUP, "TOTAL")] == Decimal("1043.8") and (LABS, "TOTAL") in shown
    assert "not shown in this chat" not in ans.text


def test_a_follow_up_stays_protected(app: App) -> None:
    ask(app, "revenue by entity FY2024")
    ans = app.core.pipeline.answer(Request("and FY2025?", chat=UNCLEARED, reference_date=REF))
    assert (GROUP, "TOTAL") not in values(ans) and withheld(ans)


def test_every_language_labels_the_protected_total(app: App) -> None:
    it = ask(app, "Fatturato per entità nel 2024").text
    zh = ask(app, "2024年按主体的营收").text
    assert "Il dato di Orbis Group non è mostrato in questa chat" in it
    assert "本对话不显示" in zh
    assert "1.043,8" not in it and "10.438亿" not in zh


# -- disclose: answered as today, said so, and named by the checker --------------------------


def test_disclose_says_a_member_is_not_shown_and_states_the_remainder(tmp_path: Path) -> None:
    app = open_demo(tmp_path, policy="disclose")
    try:
        ans = ask(app, "Show me revenue by entity for FY2024")
    finally:
        app.close()
    assert values(ans)[(GROUP, "TOTAL")] == Decimal("1043.8")
    assert "One member of Orbis Group is not shown in this chat" in ans.text
    shown = values(ans)
    rest = shown[(GROUP, "TOTAL")] - sum((shown[(e, "TOTAL")] for e in PUBLIC), Decimal(0))
    remainder = (rest * 100 / shown[(GROUP, "TOTAL")]).quantize(Decimal("0.1"))
    assert sum(shares(ans)) < 100  # shares of the total: the unshown part is stated
    assert f"remaining {remainder}%" in ans.text  # 1.2%: never a silent 98.9%


def test_the_checker_names_every_disclosed_cell_under_disclose_and_none_under_protect() -> None:
    glossary, facts = load_glossary(DEMO / "glossary.toml"), demo_facts()
    found = find_disclosures(glossary, facts, "disclose")
    assert {d.cell[2]: d.value for d in found} == labs_revenue()
    for d in found:
        assert {c[1] for c in d.disclosing} == {GROUP, *PUBLIC}
    assert find_disclosures(glossary, facts) == []  # the demo's policy: protect (default)


def test_a_region_between_the_group_and_labs_is_protected_at_both_levels() -> None:
    """Group = Asia + Italia, Asia = China + Hong Kong + Labs: Asia minus its public units is
    Labs, and the group minus Italia is Asia. Under protect neither total is shown as stored."""
    from core.figures.disclosed import withheld_total
    from core.knowledge.glossary import parse_glossary
    from tests.acme import MemoryFacts

    text = (DEMO / "glossary.toml").read_text(encoding="utf-8")
    text = text.replace('[entities.ORBIS_CN]', '[entities.ORBIS_ASIA]\nnames = ["Orbis Asia"]\n'
                        'parent = "ORBIS_GROUP"\n\n[entities.ORBIS_CN]')
    for code in ("ORBIS_CN", "ORBIS_HK", "ORBIS_LABS"):
        head = f"[entities.{code}]"
        at = text.index(head)
        text = text[:at] + text[at:].replace('parent = "ORBIS_GROUP"', 'parent = "ORBIS_ASIA"', 1)
    glossary = parse_glossary(text)
    facts = [f for f in demo_facts() if f.period.value == "2024" and f.metric == "REVENUE"]
    parts = [f for f in facts if f.entity in ("ORBIS_CN", "ORBIS_HK", LABS) and f.channel ==
             "TOTAL"]
    asia = type(parts[0])("REVENUE", "ORBIS_ASIA", parts[0].period, "TOTAL",
                          sum((f.value for f in parts), Decimal(0)), "EUR_M", parts[0].source)
    facts.append(asia)
    found = find_disclosures(glossary, facts, "disclose")
    assert [(d.cell[1], d.value) for d in found] == [(LABS, Decimal("12.4"))]
    assert find_disclosures(glossary, facts, "protect") == []
    memory = MemoryFacts(facts)
    for entity in ("ORBIS_ASIA", GROUP):
        held = withheld_total(glossary, memory, "REVENUE", entity, asia.period, "TOTAL")
        assert held is not None and held.fact is None
        assert LABS not in {f.entity for f in held.members}
    group = withheld_total(glossary, memory, "REVENUE", GROUP, asia.period, "TOTAL")
    assert group is not None and group.together == Decimal("1043.8") - Decimal("12.4")


# -- the CLI: `ricorda check` and `ask --json` -----------------------------------------------


def ricorda(data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "RICORDA_DATA_DIR": str(data), "RICORDA_EMBEDDER": "hashing",
           "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "bot", *args], env=env, cwd=REPO,
                          capture_output=True, text=True, timeout=120)


def test_cli_check_and_ingest_name_the_disclosing_cells(tmp_path: Path) -> None:
    data = tmp_path / "data"
    ingest = ricorda(data, "ingest", str(glossary_file(tmp_path, "disclose")),
                     str(DEMO / "facts.csv"))
    assert ingest.returncode == 0, ingest.stderr
    assert "disclosure: 9 restricted figure(s)" in ingest.stdout
    check = ricorda(data, "check", str(glossary_file(tmp_path, "disclose")),
                    str(DEMO / "facts.csv"))
    assert check.returncode == 0  # "disclose": published on purpose, listed as warnings
    assert ("warning: disclosure: REVENUE ORBIS_LABS FY2024 = 12.4 can be computed by an "
            "uncleared chat from REVENUE ORBIS_GROUP FY2024, REVENUE ORBIS_CN FY2024"
            ) in check.stdout
    protected = ricorda(data, "check", str(glossary_file(tmp_path, None)),
                        str(DEMO / "facts.csv"))
    assert protected.returncode == 0 and "can be computed" not in protected.stdout
    # what "protect" withholds is said, not listed as a problem
    assert "are withheld from uncleared chats" in protected.stdout
    assert "REVENUE ORBIS_GROUP FY2021–FY2025" in protected.stdout


def test_cli_json_breakdown_from_an_uncleared_chat(tmp_path: Path) -> None:
    data = tmp_path / "data"
    ricorda(data, "ingest", str(glossary_file(tmp_path, None)), str(DEMO / "facts.csv"))
    for _ in ("fresh", "cached"):
        out = json.loads(ricorda(data, "ask", "revenue by entity 2022-2025", "--json",
                                 "--reference-date", REF.isoformat()).stdout)
        found = [f for f in out["facts"] if f["status"] == "found"]
        assert {f["entity"] for f in found} == set(PUBLIC)  # nothing keyed as the group
        assert "1,043.8" not in out["text"] and "Labs" not in out["text"]
        held = [f for f in out["facts"] if f["status"] != "found"]
        assert held and all(f["normalized"]["entity"] == GROUP and f["reason"] == "withheld"
                            for f in held)
        assert all(GROUP not in str(f["disclosure"]["visible_members"]) for f in held)



def test_a_restricted_channel_is_protected_like_a_restricted_unit() -> None:
    """TOTAL = online + retail + B2B, B2B restricted: an uncleared chat's channel breakdown
    neither names B2B nor shows a total it could be worked out from."""
    from core.knowledge.glossary import parse_glossary
    from core.planning.answering import Answerer
    from tests.acme import MemoryFacts

    text = (DEMO / "glossary.toml").read_text(encoding="utf-8").replace(
        "# ---------------------------------------------------------------- units",
        '[channels.B2B]\nnames = ["B2B", "wholesale"]\nrestricted = true\n\n'
        "# ---------------------------------------------------------------- units")
    glossary = parse_glossary(text)
    facts = [f for f in demo_facts() if f.entity == "ORBIS_CN" and f.metric == "REVENUE"
             and f.period.value == "2024"]
    total = next(f for f in facts if f.channel == "TOTAL")
    b2b = type(total)("REVENUE", "ORBIS_CN", total.period, "B2B", Decimal("7.7"), "EUR_M",
                      total.source)
    facts = [f for f in facts if f is not total] + [
        b2b, type(total)("REVENUE", "ORBIS_CN", total.period, "TOTAL",
                         total.value + b2b.value, "EUR_M", total.source)]
    answerer = Answerer(glossary=glossary, facts=MemoryFacts(facts), today=lambda: REF)
    ans = Pipeline(answerer).answer(Request("Orbis China revenue by channel FY2024", chat=UNCLEARED,
                                  reference_date=REF))
    shown = values(ans)
    assert ("ORBIS_CN", "TOTAL") not in shown and ("ORBIS_CN", "ONLINE") in shown
    assert "B2B" not in ans.text and "wholesale" not in ans.text
    assert "Online and Retail together" in ans.text
    assert "The total isn't shown in this chat" in ans.text
    cleared = Pipeline(answerer).answer(
        Request("Orbis China revenue by channel FY2024", chat=CLEARED, reference_date=REF))
    assert values(cleared)[("ORBIS_CN", "B2B")] == Decimal("7.7")


def test_the_checker_is_the_safety_net_for_what_the_policy_does_not_cover() -> None:
    """A restricted region whose units are public: the region is their sum, so protect cannot
    hide it by showing less; the checker names it, and `ricorda check` would exit 1."""
    from core.contracts.types import Fact, Source
    from core.knowledge.glossary import parse_glossary

    glossary = parse_glossary("""
[scope]
default_entity = "GROUP"
[metrics.REVENUE]
names = ["Revenue"]
unit = "EUR_M"
[entities.GROUP]
names = ["Group"]
[entities.REGION]
names = ["Region"]
parent = "GROUP"
restricted = true
[entities.NORTH]
names = ["North"]
parent = "REGION"
[entities.SOUTH]
names = ["South"]
parent = "REGION"
""")
    year, src = Period(PeriodType.FY, "2024"), Source("r.pdf")
    facts = [Fact("REVENUE", e, year, "TOTAL", Decimal(v), "EUR_M", src)
             for e, v in (("REGION", "30"), ("NORTH", "10"), ("SOUTH", "20"), ("GROUP", "30"))]
    (found,) = find_disclosures(glossary, facts)
    assert found.cell[1] == "REGION" and found.value == Decimal("30")
