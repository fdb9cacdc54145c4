"""Issue 37 point 4: what `ingest` does after its commit reads the fact table in bounded pieces.

The post-ingest disclosure report (the totals withheld from uncleared chats, the restricted
figures an uncleared chat could compute) and the public-passage check used to load every fact
into memory; a million rows took 1.4 GB, most of it there. They now stream the table one
(metric, fiscal year) slice at a time (core.knowledge.fiscal_slices). These tests hold the
store to never handing out the whole table during an ingest, on SQLite and PostgreSQL, and
check that the sliced report says exactly what the whole-table checker says, on a knowledge
base whose fiscal year ends in March (so a fiscal year's months are written in two calendar
years) and under both policies.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from bot.kb.ingest import ingest_paths
from bot.settings.model import load_settings
from bot.wiring.build import build_app
from core.contracts.types import Fact, Period, PeriodType, Source
from core.knowledge.disclosure import find_disclosures
from core.knowledge.fiscal_slices import fiscal_slices, slice_order
from core.knowledge.glossary import parse_glossary
from core.knowledge.period_relations import fiscal_year
from core.knowledge.withheld import withheld_figures
from storage.fact_files import read_fact_file
from storage.fact_store import SqlFactStore
from tests.test_withheld_totals import GLOSSARY, write_kb


@pytest.fixture
def no_whole_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """The store refuses to hand out every fact at once: what a 10-million-row table must
    never be asked for after a load."""

    def held(self: SqlFactStore) -> list[Fact]:
        raise AssertionError("the whole fact table was read into memory")

    monkeypatch.setattr(SqlFactStore, "all_facts", held)


def ingest(root: Path, db_url: str, policy: str) -> tuple[list[str], list[Fact], Any]:
    glossary_path, facts_path = write_kb(root)
    text = GLOSSARY.replace('disclosure = "protect"', f'disclosure = "{policy}"')
    glossary_path.write_text(text, encoding="utf-8")
    app = build_app(load_settings(data_dir=root / "data", embedder="hashing",
                                  database_url=db_url))
    try:
        summary = ingest_paths(app, [glossary_path, facts_path])
    finally:
        app.close()
    assert not summary.problems, summary.problems
    facts = read_fact_file(facts_path, known_metrics=None, known_entities=None,
                           known_channels=None).facts
    return summary.lines, facts, parse_glossary(text)


def test_ingest_reports_what_is_withheld_without_holding_the_table(
        tmp_path: Path, db_url: str, no_whole_table: None) -> None:
    lines, facts, glossary = ingest(tmp_path, db_url, "protect")
    withheld = withheld_figures(glossary, facts)  # the checker over the whole table at once
    # the group's revenue of every year and its twelve months (April to March) are withheld
    assert {(f.metric, f.entity) for f in withheld} >= {("REVENUE", "ACME_GROUP")}
    assert len([f for f in withheld if f.period.type is PeriodType.M]) == 12
    head = [line for line in lines if "are withheld from uncleared chats" in line]
    assert head == [f"disclosure: {len({(f.metric, f.entity, f.channel) for f in withheld})} "
                    f"total(s), {len(withheld)} figure(s), are withheld from uncleared chats "
                    "(policy \"protect\": each would reveal a restricted member)"], lines
    assert "  REVENUE ACME_GROUP FY2022–FY2026, 2025-04–2026-03 (17)" in lines, lines
    assert find_disclosures(glossary, facts) == []
    assert "disclosure: no restricted figure can be computed from what uncleared chats see" in (
        lines)


def test_ingest_names_every_disclosed_figure_without_holding_the_table(
        tmp_path: Path, db_url: str, no_whole_table: None) -> None:
    lines, facts, glossary = ingest(tmp_path, db_url, "disclose")
    found = find_disclosures(glossary, facts)
    assert {d.cell[1] for d in found} == {"ACME_LAB"} and len(found) >= 5  # one a year at least
    at = lines.index(f"disclosure: {len(found)} restricted figure(s) can be computed exactly by "
                     "a chat not cleared for restricted data (policy \"disclose\")")
    assert lines[at + 1:at + 1 + len(found)] == [f"  {d.describe()}" for d in found]


def test_a_new_glossary_unit_is_counted_by_the_database(tmp_path: Path, db_url: str,
                                                        no_whole_table: None) -> None:
    ingest(tmp_path, db_url, "protect")
    changed = GLOSSARY.replace('[metrics.EBITDA]\nnames = ["EBITDA"]\nunit = "EUR_M"',
                               '[metrics.EBITDA]\nnames = ["EBITDA"]\nunit = "EUR_K"')
    path = tmp_path / "glossary2.toml"
    path.write_text(changed, encoding="utf-8")
    app = build_app(load_settings(data_dir=tmp_path / "data", embedder="hashing",
                                  database_url=db_url))
    try:
        lines = ingest_paths(app, [path]).lines
    finally:
        app.close()
    # a scale the glossary changed (a currency changed is a unit's own currency: kept as is)
    assert "note: 9 stored figures of EBITDA are in EUR_M, not EUR_K: ingest their fact file " \
           "again to convert them" in lines


def fact(metric: str, period: Period) -> Fact:
    return Fact(metric, "E", period, "TOTAL", 1, "EUR_M", Source("f.csv", "1"))  # type: ignore[arg-type]


def test_slices_are_whole_fiscal_years_and_refuse_facts_out_of_order() -> None:
    months = [Period(PeriodType.M, f"{y}-{m:02d}") for y in (2024, 2025) for m in range(1, 13)]
    years = [Period(PeriodType.FY, str(y)) for y in (2024, 2025, 2026)]
    facts = sorted([fact(m, p) for m in ("B", "A") for p in months + years], key=slice_order)
    slices = list(fiscal_slices(facts, "03-31"))
    assert sum(len(s) for s in slices) == len(facts)
    keys = [{(f.metric, fiscal_year(f.period, "03-31")) for f in s} for s in slices]
    assert all(len(k) == 1 for k in keys)  # one metric, one fiscal year each
    assert len({next(iter(k)) for k in keys}) == len(keys)  # and each year in one slice only
    # FY2025 (April 2024 to March 2025): its year and its twelve months together
    (fy2025,) = [s for s in slices if s[0].metric == "A"
                 and fiscal_year(s[0].period, "03-31") == 2025]
    assert len(fy2025) == 13
    with pytest.raises(ValueError, match="not together"):
        list(fiscal_slices([fact("A", years[0]), fact("B", years[0]), fact("A", years[1])],
                           "12-31"))
    with pytest.raises(ValueError, match="not in period order"):
        list(fiscal_slices([fact("A", years[1]), fact("A", years[0])], "12-31"))


HEADER = "metric,entity,period_type,period,channel,value,unit,source_doc,source_locator\n"


def load(root: Path, db_url: str, *files: Path) -> Any:
    app = build_app(load_settings(data_dir=root / "data", embedder="hashing",
                                  database_url=db_url))
    try:
        summary = ingest_paths(app, list(files))
        stored = {(f.entity, f.period.value): f.value for f in app.storage.facts.ordered_facts()}
    finally:
        app.close()
    return summary, stored


def test_a_streamed_file_warns_of_repeats_keeps_the_last_and_counts_bad_rows(
        tmp_path: Path, db_url: str, no_whole_table: None) -> None:
    glossary_path, _ = write_kb(tmp_path)
    rows = [f"REVENUE,ACME_IT,FY,{2000 + i},TOTAL,{i}.5,EUR_M,a.pdf,p{i}" for i in range(5)]
    rows.append("REVENUE,ACME_IT,FY,2001,TOTAL,99.25,EUR_M,b.pdf,p9")  # line 7 repeats line 3
    rows += [f"REVENUE,NOWHERE,FY,{2000 + i},TOTAL,1,EUR_M,a.pdf,p" for i in range(1200)]
    path = tmp_path / "more.csv"
    path.write_text(HEADER + "\n".join(rows) + "\n", encoding="utf-8")
    summary, stored = load(tmp_path, db_url, glossary_path, path)
    assert "facts more.csv: 1206 rows read, 5 new, 0 updated, 0 unchanged, 1200 rejected" in (
        summary.lines), summary.lines
    assert ("  warning more.csv line 7: duplicate of line 3 (the same metric, entity, period "
            "and channel); this later row wins") in summary.lines
    assert stored[("ACME_IT", "2001")] == Decimal("99.25")  # the later row won
    listed = [p for p in summary.problems if "NOWHERE" in p or "unknown entity" in p]
    assert len(listed) == 1000  # the first ones, to fix; the rest counted
    assert summary.problems[-1] == ("more.csv: 200 more rows rejected, not listed (the first "
                                    "ones show what to fix)")


def test_a_file_broken_half_way_stores_nothing_of_it(tmp_path: Path, db_url: str) -> None:
    glossary_path, facts_path = write_kb(tmp_path)
    _, before = load(tmp_path, db_url, glossary_path, facts_path)
    good = [f"REVENUE,ACME_IT,FY,{y},TOTAL,1.5,EUR_M,new.pdf,p" for y in range(2022, 2027)]
    broken = tmp_path / "broken.csv"
    broken.write_bytes((HEADER + "\n".join(good * 400) + "\n").encode() + b"REVENUE,\xff\n")
    summary, after = load(tmp_path, db_url, broken)
    assert any("not UTF-8" in p for p in summary.problems), summary.problems
    assert after == before  # the good rows before the bad byte were not stored either


def test_the_report_counts_withheld_figures_without_holding_them_when_nothing_can_state_them(
        tmp_path: Path) -> None:
    from bot.wiring.disclosure_report import disclosure_report

    _, facts_path = write_kb(tmp_path)
    facts = sorted(read_fact_file(facts_path, known_metrics=None, known_entities=None,
                                  known_channels=None).facts, key=slice_order)
    glossary = parse_glossary(GLOSSARY)
    held = disclosure_report(glossary, facts)
    counted = disclosure_report(glossary, facts, keep=False)
    assert counted.lines == held.lines and counted.withheld == []
    assert sorted(map(str, held.withheld)) == sorted(map(str, withheld_figures(glossary, facts)))
