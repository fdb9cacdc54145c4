"""Levels of a hierarchy (issue 40, point 8): in Lumen's group > region > unit hierarchy
(tests.why_companies), rankings and breakdowns run over the level the question names, or over
the leaves with the reading stated; never over the two regions for "which unit". Through the
CLI: `ricorda ingest`, then `ricorda ask --json`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_cli import ricorda
from tests.why_companies import write_lumen

UNITS = {"LUMEN_MILANO", "LUMEN_TORINO", "LUMEN_NAPOLI", "LUMEN_BARI"}
REGIONS = {"LUMEN_NORTH", "LUMEN_SOUTH"}


@pytest.fixture(scope="module")
def lumen(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("levels")
    kb = write_lumen(root / "kb", levels=True)
    data = root / "data"
    ricorda(data, "ingest", str(kb / "glossary.toml"), str(kb / "facts.csv"))
    return data


def ask(data: Path, question: str) -> dict:  # type: ignore[type-arg]
    return json.loads(ricorda(data, "ask", question, "--json").stdout)


@pytest.mark.parametrize(
    "question",
    [
        "Which unit had the highest margin in FY2025?",
        "Quale stabilimento ha avuto il margine più alto nel 2025?",
        "哪个工厂2025财年利润率最高？",
    ],
)
def test_a_ranking_of_units_ranks_the_units(lumen: Path, question: str) -> None:
    answer = ask(lumen, question)
    assert {f["entity"] for f in answer["facts"]} == UNITS
    assert "12.4" in answer["lines"][0]["text"] or "12,4" in answer["lines"][0]["text"]


@pytest.mark.parametrize(
    ("question", "first"),
    [
        ("Which region had the highest margin in FY2025?", "10.1"),
        ("Quale regione ha avuto il margine più basso nel 2025?", "7,8"),
        ("哪个区域2025财年利润率最高？", "10.1"),
    ],
)
def test_a_ranking_of_regions_ranks_the_regions(lumen: Path, question: str, first: str) -> None:
    answer = ask(lumen, question)
    assert {f["entity"] for f in answer["facts"]} == REGIONS
    assert first in answer["lines"][0]["text"]


def test_no_level_named_runs_over_the_leaves_and_says_so(lumen: Path) -> None:
    answer = ask(lumen, "Revenue by entity in FY2025")
    entities = {f["entity"] for f in answer["facts"]}
    assert entities >= UNITS and not entities & REGIONS
    assert "Assumed: the lowest level of the hierarchy (Lumen Milano" in answer["text"]
    assert {a["slot"] for a in answer["assumptions"]} >= {"members"}


def test_a_level_no_entity_has_is_refused_with_its_key(tmp_path: Path) -> None:
    kb = write_lumen(tmp_path / "kb", levels=True)
    glossary = kb / "glossary.toml"
    glossary.write_text(glossary.read_text(encoding="utf-8").replace(
        'level = "region"', 'level = "cluster"', 1), encoding="utf-8")
    out = ricorda(tmp_path / "data", "check", str(glossary), check=False)
    assert out.returncode != 0
    assert "entities.LUMEN_NORTH.level" in out.stdout + out.stderr
