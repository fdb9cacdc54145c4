"""The ACME test knowledge base (tests/fixtures/acme) and an in-memory fact store over it.

Import the fixtures into a test module with `from tests.acme import acme_glossary, ...`.
"""

from __future__ import annotations

import csv
import datetime as dt
from decimal import Decimal
from pathlib import Path

import pytest

from core.contracts.ports import TurnRecord
from core.contracts.types import Fact, Period, PeriodType, Source
from core.knowledge.glossary import Glossary, load_glossary
from core.planning.answering import Answerer

ACME = Path(__file__).parent / "fixtures" / "acme"
REF = dt.date(2026, 6, 15)


def load_acme(data_dir: Path) -> Path:
    """`data_dir` with the ACME glossary and facts ingested, as `ricorda ingest` leaves it: for
    tests that run the bot as a process on it."""
    from bot.kb.ingest import ingest_paths
    from bot.settings.model import load_settings
    from bot.wiring.build import build_app

    app = build_app(load_settings(data_dir=data_dir, embedder="hashing"))
    try:
        ingest_paths(app, [ACME / "glossary.toml", ACME / "facts.csv"])
    finally:
        app.close()
    return data_dir


class MemoryFacts:
    """A FactStore fake: the same semantics as the SQL one, in a dict."""

    def __init__(self, facts: list[Fact]) -> None:
        self.by_key = {(f.metric, f.entity, f.period, f.channel): f for f in facts}

    def lookup(self, metric: str, entity: str, period: Period, channel: str) -> Fact | None:
        return self.by_key.get((metric, entity, period, channel))

    def periods(self, metric: str, entity: str, channel: str) -> list[Period]:
        found = [k[2] for k in self.by_key if k[0] == metric and k[1] == entity and k[3] == channel]
        return sorted(found, key=lambda p: p.value, reverse=True)


class MemoryTurns:
    def __init__(self) -> None:
        self.turns: dict[str, TurnRecord] = {}

    def record_turn(self, turn: TurnRecord) -> None:
        self.turns[turn.id] = turn

    def get_turn(self, turn_id: str) -> TurnRecord | None:
        return self.turns.get(turn_id)


def read_acme_facts() -> list[Fact]:
    with (ACME / "facts.csv").open(encoding="utf-8") as fh:
        return [
            Fact(
                r["metric"],
                r["entity"],
                Period(PeriodType(r["period_type"]), r["period"]),
                r["channel"],
                Decimal(r["value"]),
                r["unit"],
                Source(r["source_doc"], r["source_locator"]),
            )
            for r in csv.DictReader(fh)
        ]


@pytest.fixture(scope="session")
def acme_glossary() -> Glossary:
    return load_glossary(ACME / "glossary.toml")


@pytest.fixture
def acme_turns() -> MemoryTurns:
    return MemoryTurns()


@pytest.fixture
def acme_answerer(acme_glossary: Glossary, acme_turns: MemoryTurns) -> Answerer:
    return Answerer(
        glossary=acme_glossary,
        facts=MemoryFacts(read_acme_facts()),
        turns=acme_turns,
        today=lambda: REF,
    )
