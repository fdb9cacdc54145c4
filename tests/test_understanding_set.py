"""The labelled question set (bench/understanding): well-formed, every expected value traceable
to the demo fact table, the scoring rules as documented, and a few control questions scored
correct through the runner on the real `ricorda demo` knowledge base."""

from __future__ import annotations

import csv
import datetime as dt
import re
from collections import Counter
from decimal import Decimal
from pathlib import Path

import pytest

from bench.bench_understanding import InProcess, load_demo, run, select
from bench.understanding.expected import DEMO, Data, fill, load_set, period_type
from bench.understanding.score import CORRECT, MISSED, WRONG, score, score_ranking

ENTRIES = load_set()
DATA = Data()
KINDS = {
    "control", "shorthand", "typo", "word_form", "verb", "period", "sum", "average", "growth",
    "share", "growth_comparison", "ranking", "period_ranking", "multi_part", "routing",
    "not_known", "composite", "restricted",
}  # fmt: skip
ROUTES = {"narrative", "refused", "clarify", "not_known", "composite"}
DOC_NAMES = {p.name for p in (DEMO / "docs").rglob("*") if p.is_file()}


def test_the_set_is_large_mixed_and_uniquely_named() -> None:
    assert len(ENTRIES) >= 180
    ids = [e["id"] for e in ENTRIES]
    assert len(set(ids)) == len(ids)
    langs = Counter(e["lang"] for e in ENTRIES)
    assert set(langs) == {"en", "it", "zh"}
    assert 0.35 <= langs["en"] / len(ENTRIES) <= 0.45
    assert langs["it"] / len(ENTRIES) >= 0.25 and langs["zh"] / len(ENTRIES) >= 0.25
    kinds = Counter(e["kind"] for e in ENTRIES)
    assert set(kinds) == KINDS  # every kind of issue 23 is asked
    assert 0.2 <= kinds["control"] / len(ENTRIES) <= 0.3


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["id"] for e in ENTRIES])
def test_entry_is_well_formed(entry: dict) -> None:  # type: ignore[type-arg]
    assert set(entry) <= {"id", "lang", "kind", "question", "chat", "reference_date", "expect"}
    assert re.fullmatch(rf"{entry['lang']}-{entry['kind']}-\d\d", entry["id"])
    assert entry["kind"] in KINDS and entry["question"].strip()
    if "reference_date" in entry:
        dt.date.fromisoformat(entry["reference_date"])
    expect = entry["expect"]
    assert set(expect) <= {"figures", "ranking", "route", "cites_any", "subject"}
    assert "subject" not in expect or expect.get("route") == "not_known"
    assert ("figures" in expect) + ("ranking" in expect) <= 1
    route = expect.get("route")
    assert route is None or route in ROUTES
    if route == "composite":
        assert expect.get("figures") and expect.get("cites_any")
    elif route is not None:
        assert "figures" not in expect and "ranking" not in expect
    else:
        assert "figures" in expect or "ranking" in expect
    assert set(expect.get("cites_any", [])) <= DOC_NAMES
    cleared = entry.get("chat") in DATA.cleared_chats
    for f in expect.get("figures", []) + ([expect["ranking"]] if "ranking" in expect else []):
        assert f["metric"] in DATA.metrics
        named = [f.get("entity"), f.get("of"), *(f.get("entities") or []), f.get("top")]
        for code in filter(None, named):
            if code in DATA.entities:  # (a ranking's top may be a period)
                # a restricted unit's figure is expected only in a cleared chat
                assert cleared or not DATA.entities[code].get("restricted")


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["id"] for e in ENTRIES])
def test_every_expected_value_is_recomputed_from_the_fact_table(entry: dict) -> None:  # type: ignore[type-arg]
    assert fill(entry, DATA) == entry  # expected.py --write has been run; no value by hand


def test_plain_figures_are_rows_of_facts_csv_as_written() -> None:
    """Read independently of expected.py: each plain expected figure is one row, same text."""
    with (DEMO / "facts.csv").open(encoding="utf-8", newline="") as fh:
        rows = {(r["metric"], r["entity"], r["period_type"], r["period"], r["channel"]):
                r["value"] for r in csv.DictReader(fh)}
    checked = 0
    for e in ENTRIES:
        for f in e["expect"].get("figures", []):
            if "op" in f or f["metric"] in DATA.derived or f.get("withheld"):
                continue  # a withheld total has no value (test below)
            key = (f["metric"], f["entity"], period_type(f["period"]), f["period"],
                   f.get("channel", "TOTAL"))
            assert rows[key] == f["value"], (e["id"], key)
            checked += 1
    assert checked >= 100


def test_arithmetic_is_exact() -> None:
    by_id = {e["id"]: e for e in ENTRIES}
    total = by_id["en-sum-01"]["expect"]["figures"][0]  # group EBITDA FY2023-FY2025
    # FY2023's group EBITDA is withheld (Labs has no figure for it): so is the sum
    assert total.get("withheld") is True and "value" not in total
    growth = by_id["zh-growth-02"]["expect"]["figures"][0]  # Italy revenue FY2025 vs FY2024
    assert growth["shown"] == "10.6"
    assert Decimal(growth["value"]).quantize(Decimal("1e-12")) == (
        (Decimal("352.6") / Decimal("318.9") - 1) * 100).quantize(Decimal("1e-12"))
    top = by_id["en-restricted-07"]["expect"]["ranking"]  # fewest employees, cleared chat
    assert (top["top"], top["value"]) == ("ORBIS_LABS", "140")
    assert by_id["en-ranking-01"]["expect"]["ranking"]["top"] == "ORBIS_HK"  # uncleared


def test_a_group_total_in_an_uncleared_chat_is_expected_as_docs_disclosure_says() -> None:
    """docs/disclosure.md's rule (issue 33), read from the rows: Labs has a revenue figure and
    the group revenue is the sum of all four units, so an uncleared chat is not shown it (it is
    expected withheld, with no value); the group EBITDA is not the sum of its units (group
    costs), so it is shown as stored."""
    public = sum(DATA.row("REVENUE", e, "2024") for e in ("ORBIS_CN", "ORBIS_IT", "ORBIS_HK"))
    assert DATA.row("REVENUE", "ORBIS_GROUP", "2024") == public + DATA.row(
        "REVENUE", "ORBIS_LABS", "2024")
    assert DATA.shown("REVENUE", "ORBIS_GROUP", "2024")[1] is True
    assert DATA.shown("REVENUE", "ORBIS_GROUP", "2024", chat="console:admin") == (
        DATA.row("REVENUE", "ORBIS_GROUP", "2024"), False)
    assert DATA.shown("EBITDA", "ORBIS_GROUP", "2024") == (
        DATA.row("EBITDA", "ORBIS_GROUP", "2024"), False)
    by_id = {e["id"]: e for e in ENTRIES}
    group = by_id["it-multi_part-01"]["expect"]["figures"][0]  # Ricavi del Gruppo 2024
    assert group.get("withheld") is True and "value" not in group


# ------------------------------------------------------------------ the scoring rules
def _fact(metric: str, entity: str, period: str, value: str, **extra: object) -> dict:  # type: ignore[type-arg]
    return {"status": "found", "metric_code": metric, "entity": entity,
            "period_type": period_type(period), "period": period, "channel": "TOTAL",
            "value_exact": value, **extra}


def _answer(route: str = "structured", **parts: object) -> dict:  # type: ignore[type-arg]
    return {"route": route, "facts": [], "citations": [], "tables": [], "passages": [],
            **parts}


ITALY_2024 = {"id": "t", "expect": {"figures": [
    {"metric": "REVENUE", "entity": "ORBIS_IT", "period": "2024", "value": "318.9"}]}}
GROWTH = {"id": "t", "expect": {"figures": [
    {"metric": "REVENUE", "op": "growth", "entity": "ORBIS_IT", "period": "2025",
     "value": "10.56757604264659767952336155534650", "shown": "10.6"}]}}


def test_a_ranking_headed_by_a_year_in_chinese_names_that_year() -> None:
    answer = {"tables": [{"kind": "ranking", "series": [{"label": "2024财年", "value": "137.6"}]}]}
    spec = {"metric": "EBITDA", "top": "2024", "value": "137.6"}
    assert score_ranking(spec, answer, DATA).verdict == CORRECT
    wrong = {"tables": [{"kind": "ranking", "series": [{"label": "2023财年", "value": "137.6"}]}]}
    assert score_ranking(spec, wrong, DATA).verdict == WRONG


def test_a_figure_is_correct_missed_or_wrong() -> None:
    right = _answer(facts=[_fact("REVENUE", "ORBIS_IT", "2024", "318.9")])
    assert score(ITALY_2024, right, DATA).verdict == CORRECT
    group = _answer(facts=[_fact("REVENUE", "ORBIS_GROUP", "2024", "1043.8")])
    assert score(ITALY_2024, group, DATA).verdict == WRONG  # the default entity's figure
    menu = _answer("clarify", options=[{"slot": "metric"}])
    assert score(ITALY_2024, menu, DATA).verdict == MISSED


def test_arithmetic_matches_on_the_shown_rounding_and_inputs_alone_are_missed() -> None:
    derived = {"derived": True, "formula": {"op": "growth"}}
    shown = _fact("REVENUE", "ORBIS_IT", "2025", "10.6", value_shown="10.6", **derived)
    assert score(GROWTH, _answer(facts=[shown]), DATA).verdict == CORRECT
    other = _fact("REVENUE", "ORBIS_IT", "2025", "9.1", value_shown="9.1", **derived)
    assert score(GROWTH, _answer(facts=[other]), DATA).verdict == WRONG
    inputs = [_fact("REVENUE", "ORBIS_IT", "2025", "352.6"),
              _fact("REVENUE", "ORBIS_IT", "2024", "318.9")]
    assert score(GROWTH, _answer(facts=inputs), DATA).verdict == MISSED
    group = [_fact("REVENUE", "ORBIS_GROUP", "2025", "1008.4")]
    assert score(GROWTH, _answer(facts=group), DATA).verdict == WRONG  # not the unit asked


WITHHELD = {"id": "t", "expect": {"figures": [
    {"metric": "REVENUE", "entity": "ORBIS_GROUP", "period": "2024", "withheld": True}]}}


def _withheld(metric: str, entity: str, period: str) -> dict:  # type: ignore[type-arg]
    return {"status": "not_found", "reason": "withheld",
            "normalized": {"metric_code": metric, "entity": entity,
                           "period_type": period_type(period), "period": period,
                           "channel": "TOTAL"},
            "disclosure": {"policy": "protect", "withheld": True}}


def test_a_withheld_total_must_be_said_withheld_and_never_stated_under_its_name() -> None:
    said = _withheld("REVENUE", "ORBIS_GROUP", "2024")
    assert score(WITHHELD, _answer(facts=[said]), DATA).verdict == CORRECT
    renamed = _fact("REVENUE", "ORBIS_GROUP", "2024", "1031.4",
                    disclosure={"policy": "protect", "excludes": "undisclosed units"})
    assert score(WITHHELD, _answer(facts=[renamed]), DATA).verdict == WRONG  # the old answer
    stored = _fact("REVENUE", "ORBIS_GROUP", "2024", "1043.8")
    assert score(WITHHELD, _answer(facts=[stored, said]), DATA).verdict == WRONG
    assert score(WITHHELD, _answer(), DATA).verdict == MISSED
    growth = {"id": "t", "expect": {"figures": [
        {"metric": "REVENUE", "op": "growth", "entity": "ORBIS_GROUP", "period": "2025",
         "withheld": True}]}}
    held = {**_withheld("REVENUE", "ORBIS_GROUP", "2025"), "derived": True,
            "formula": {"op": "growth"}}
    assert score(growth, _answer(facts=[held]), DATA).verdict == CORRECT


def test_restricted_data_in_an_uncleared_chat_is_wrong_whatever_was_expected() -> None:
    refused = {"id": "t", "expect": {"route": "refused"}}
    assert score(refused, _answer("refused"), DATA).verdict == CORRECT
    labs = _answer(facts=[_fact("REVENUE", "ORBIS_LABS", "2024", "12.4")])
    assert score(refused, labs, DATA).verdict == WRONG
    board = _answer("narrative", citations=[{"doc": "board/project_heron_briefing.md"}],
                    passages=[{"text": "..."}])
    assert score(refused, board, DATA).verdict == WRONG
    cleared = {**refused, "chat": "console:admin"}
    assert score(cleared, board, DATA).verdict != WRONG


def test_not_known_is_a_plain_no_without_figures_or_citations() -> None:
    nps = {"id": "t", "expect": {"route": "not_known"}}
    assert score(nps, _answer("narrative"), DATA).verdict == CORRECT
    padded = _answer("narrative", citations=[{"doc": "orbis/supplier_portal_faq.txt"}])
    assert score(nps, padded, DATA).verdict == MISSED
    assert score(nps, _answer("clarify"), DATA).verdict == MISSED
    figure = _answer(facts=[_fact("REVENUE", "ORBIS_GROUP", "2025", "1008.4")])
    assert score(nps, figure, DATA).verdict == WRONG


def test_not_known_may_ask_for_a_metric_after_naming_what_it_has_no_figure_for() -> None:
    churn = {"id": "t", "expect": {"route": "not_known", "subject": "churn"}}
    named = _answer("clarify", options=[{"slot": "metric"}], notices=[
        {"kind": "no_figure", "text": "I have no figure for customer churn rate."}])
    assert score(churn, named, DATA).verdict == CORRECT
    assert score(churn, _answer("clarify", options=[{"slot": "metric"}]), DATA).verdict == MISSED
    other = _answer("clarify", notices=[{"kind": "no_figure", "text": "I have no figure for our."}])
    assert score(churn, other, DATA).verdict == MISSED  # not the missing subject
    with_figure = {**named, "facts": [_fact("REVENUE", "ORBIS_GROUP", "2025", "1008.4")]}
    assert score(churn, with_figure, DATA).verdict == WRONG


# ------------------------------------------------------------------ through the runner
@pytest.fixture(scope="module")
def demo_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("understanding") / "data"
    load_demo(data)
    return data


CONTROLS = ["en-control-01", "en-control-10", "en-control-14", "en-restricted-01",
            "it-control-04", "it-control-11", "zh-control-07", "zh-control-09",
            "en-composite-01", "en-routing-03"]


def test_control_questions_score_correct_through_the_runner(demo_dir: Path) -> None:
    entries = select(ENTRIES, None, None, ",".join(CONTROLS))
    assert len(entries) == len(CONTROLS)
    ask = InProcess(demo_dir)
    try:
        results = run(entries, ask, DATA)
    finally:
        ask.close()
    failed = [(r["id"], r["verdict"], r["reason"]) for r in results if r["verdict"] != CORRECT]
    assert not failed
