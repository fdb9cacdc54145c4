"""The test companies of bench/companies (issue 40) loaded through the CLI for end-to-end tests:
`ricorda ingest glossary.toml facts.csv` in a fresh data dir, as a newcomer runs it, and the
fact table read back so a test computes what it expects from the data, never from the bot."""

from __future__ import annotations

import csv
import io
from decimal import Decimal
from pathlib import Path

import pytest

from bench.bench_companies import COMPANIES
from tests.test_cli import ricorda


def company_files(name: str) -> tuple[str, str]:
    """The company's glossary and fact file as text."""
    folder = COMPANIES / name
    return ((folder / "glossary.toml").read_text(encoding="utf-8"),
            (folder / "facts.csv").read_text(encoding="utf-8"))


def load_company(tmp_path_factory: pytest.TempPathFactory, name: str, *,
                 glossary: str | None = None, facts: str | None = None,
                 tag: str = "") -> tuple[Path, str]:
    """`ricorda ingest` of the company (or of its files as given) into a fresh data dir; the
    data dir and what ingest printed."""
    own_glossary, own_facts = company_files(name)
    source = tmp_path_factory.mktemp(f"{name}{tag}-src")
    (source / "glossary.toml").write_text(glossary or own_glossary, encoding="utf-8")
    (source / "facts.csv").write_text(facts or own_facts, encoding="utf-8")
    data = source.parent / f"{source.name}-data"
    out = ricorda(data, "ingest", str(source / "glossary.toml"), str(source / "facts.csv"),
                  timeout=600)
    return data, out.stdout


def rows(facts: str) -> dict[tuple[str, str, str, str], tuple[Decimal, str]]:
    """(metric, entity, period, channel) -> (value, unit) of a fact file's text."""
    out = {}
    for r in csv.DictReader(io.StringIO(facts)):
        key = (r["metric"], r["entity"], r["period"], r["channel"] or "TOTAL")
        out[key] = (Decimal(r["value"]), r["unit"])
    return out


def found(answer: dict) -> list[dict]:
    """The answer's found facts (top level)."""
    return [f for f in answer.get("facts") or [] if f.get("status") == "found"]


def notice_kinds(answer: dict) -> list[str]:
    return [n.get("kind") for n in answer.get("notices") or []]
