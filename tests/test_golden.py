"""`ricorda test FILE`: the company's golden questions, end to end through the CLI on the demo."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from tests.test_cli import ricorda

GOLDEN = Path(__file__).resolve().parents[1] / "bot" / "demo" / "golden.yaml"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`ricorda demo --no-chat`, as the docs tell an admin to load it."""
    data = tmp_path_factory.mktemp("golden") / "data"
    ricorda(data, "demo", "--no-chat", timeout=600)
    return data


def _golden(tmp_path: Path, questions: list[dict], **top: object) -> Path:  # type: ignore[type-arg]
    path = tmp_path / "golden.yaml"
    path.write_text(yaml.safe_dump({"reference_date": "2026-03-15", **top,
                                    "questions": questions}), encoding="utf-8")
    return path


def _cases(junit: Path) -> dict[str, ET.Element]:
    """The JUnit file's testcases by name, after checking the shape CI servers read."""
    root = ET.parse(junit).getroot()
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert len(suites) == 1
    suite = suites[0]
    cases = suite.findall("testcase")
    assert suite.get("tests") == str(len(cases))
    failures = [c for c in cases if c.find("failure") is not None]
    assert suite.get("failures") == str(len(failures))
    for case in cases:
        assert case.get("name") and case.get("classname")
        for failure in case.findall("failure"):
            assert failure.get("message")
    return {c.get("name", ""): c for c in cases}


def test_the_demo_golden_file_passes_and_writes_junit(demo: Path, tmp_path: Path) -> None:
    junit = tmp_path / "golden.xml"
    proc = ricorda(demo, "test", str(GOLDEN), "--junit", str(junit), timeout=600)
    names = [q["name"] for q in yaml.safe_load(GOLDEN.read_text())["questions"]]
    assert len(names) >= 15
    assert f"{len(names)} of {len(names)} golden questions passed" in proc.stdout
    cases = _cases(junit)
    assert list(cases) == names
    assert not any(c.find("failure") is not None for c in cases.values())
    kinds = {k for q in yaml.safe_load(GOLDEN.read_text())["questions"] for k in q["expect"]}
    outcomes = {q["expect"].get("outcome") for q in yaml.safe_load(GOLDEN.read_text())
                ["questions"]}
    assert kinds == {"figure", "figures", "winner", "outcome", "cites"}
    assert {"refused", "no_figure", "asks_metric"} <= outcomes


def test_one_wrong_expectation_exits_1_and_is_named(demo: Path, tmp_path: Path) -> None:
    data = yaml.safe_load(GOLDEN.read_text())
    for q in data["questions"]:
        if q["name"] == "headcount-italy-fy2024":
            q["expect"]["figure"]["value"] = 1411
    wrong = tmp_path / "wrong.yaml"
    wrong.write_text(yaml.safe_dump(data), encoding="utf-8")
    junit = tmp_path / "wrong.xml"
    proc = ricorda(demo, "test", str(wrong), "--junit", str(junit), check=False, timeout=600)
    assert proc.returncode == 1, proc.stderr
    failed = [line for line in proc.stderr.splitlines() if line.startswith("FAILED")]
    assert failed == ["FAILED headcount-italy-fy2024: expected HEADCOUNT ORBIS_IT 2024 = 1411 FTE"]
    cases = _cases(junit)
    assert [n for n, c in cases.items() if c.find("failure") is not None] == \
        ["headcount-italy-fy2024"]
    assert "1410" in (cases["headcount-italy-fy2024"].find("failure").text or "")  # type: ignore[union-attr]


def test_every_kind_of_expectation_can_fail(demo: Path, tmp_path: Path) -> None:
    """Each expectation is checked, not assumed: a wrong one of every kind fails, a right one
    with a tolerance passes, and a restricted figure asked from an uncleared chat fails."""
    it = {"metric": "REVENUE", "entity": "ORBIS_IT", "period": 2024, "unit": "EUR_M"}
    labs = {"metric": "REVENUE", "entity": "ORBIS_LABS", "period": 2024, "value": 12.4,
            "unit": "EUR_M"}
    questions = [
        {"name": "within-tolerance", "ask": "Revenue of Orbis Italy in FY2024",
         "expect": {"figure": {**it, "value": 318.85, "tolerance": 0.1}}},
        {"name": "outside-tolerance", "ask": "Revenue of Orbis Italy in FY2024",
         "expect": {"figure": {**it, "value": 318.85, "tolerance": 0.01}}},
        {"name": "wrong-unit", "ask": "Revenue of Orbis Italy in FY2024",
         "expect": {"figure": {**it, "value": 318.9, "unit": "EUR"}}},
        {"name": "one-of-two-missing", "ask": "Revenue of Orbis Italy in FY2024",
         "expect": {"figures": [{**it, "value": 318.9},
                                {**it, "metric": "EBITDA", "value": 49.8}]}},
        {"name": "wrong-winner", "ask": "Which subsidiary had the highest revenue in 2024?",
         "expect": {"winner": "ORBIS_IT"}},
        {"name": "not-refused", "ask": "Revenue of Orbis Italy in FY2024",
         "expect": {"outcome": "refused"}},
        {"name": "a-figure-given", "ask": "Revenue of Orbis Italy in FY2024",
         "expect": {"outcome": "no_figure"}},
        {"name": "not-asked-back", "ask": "Revenue of Orbis Italy in FY2024",
         "expect": {"outcome": "asks_metric"}},
        {"name": "other-document", "ask": "Why did China revenue fall in 2025?",
         "expect": {"cites": "italia_crescita_2025.md"}},
        {"name": "restricted-uncleared", "ask": "Revenue of Orbis Labs in 2024",
         "expect": {"figure": labs}},
        {"name": "restricted-cleared", "ask": "Revenue of Orbis Labs in 2024",
         "chat": "telegram:9001", "expect": {"figure": labs}},
    ]
    proc = ricorda(demo, "test", str(_golden(tmp_path, questions)), check=False, timeout=600)
    assert proc.returncode == 1
    failed = {line.split()[1].rstrip(":") for line in proc.stderr.splitlines()
              if line.startswith("FAILED")}
    assert failed == {q["name"] for q in questions} - {"within-tolerance", "restricted-cleared"}
    assert "2 of 11 golden questions passed" in proc.stdout


@pytest.mark.parametrize(("questions", "message"), [
    ([{"name": "x", "ask": "Revenue", "expect": {"figure": {"metric": "REVENUE"}}}],
     "question 1 (x): expect.figure: missing entity, period, value, unit"),
    ([{"ask": "Revenue", "expect": {"outcome": "maybe"}}],
     "question 1 (q1): expect.outcome 'maybe' is not one of refused, no_figure, asks_metric"),
    ([{"name": "y", "ask": "Revenue", "expect": {"answer": 3}}],
     "question 1 (y): unknown expectation 'answer'"),
    ([{"name": "z", "expect": {"outcome": "refused"}}], "question 1 (z): `ask:` must be"),
])
def test_a_mistake_in_the_file_is_named_with_exit_2(tmp_path: Path, questions: list[dict],  # type: ignore[type-arg]
                                                     message: str) -> None:
    path = _golden(tmp_path, questions)
    proc = ricorda(tmp_path / "data", "test", str(path), check=False)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_not_yaml_is_named_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "g.yaml"
    path.write_text("questions:\n  - ask: [unclosed\n", encoding="utf-8")
    proc = ricorda(tmp_path / "data", "test", str(path), check=False)
    assert proc.returncode == 2
    assert "not valid YAML" in proc.stderr and "line" in proc.stderr


def test_help_names_the_command() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RICORDA_")}
    out = subprocess.run([sys.executable, "-m", "bot", "test", "--help"], capture_output=True,
                         text=True, env=env, timeout=120).stdout
    assert "--junit" in out
