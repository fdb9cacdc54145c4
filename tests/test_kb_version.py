"""The knowledge-base version (storage.kb_version) moves with every change and only then, on
SQLite and PostgreSQL, and a fact store catches up from it (the one change's rows, or all)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from sqlalchemy.engine import Engine

from core.contracts.documents import DocumentRecord
from core.contracts.ports import Chunk
from core.contracts.types import Period, PeriodType
from storage.chunk_store import SqlChunkStore
from storage.fact_store import SqlFactStore
from storage.glossary_store import SqlGlossaryStore
from storage.kb_version import DOCUMENTS, FACTS, GLOSSARY, SqlKbVersions, bump_kb_version
from tests.test_storage_facts import fact

FY = PeriodType.FY
GLOSSARY_TEXT = '[scope]\ndefault_entity = "A"\n[metrics.REVENUE]\nnames = ["revenue"]\n'


def test_every_kind_of_change_moves_its_part_and_nothing_else(engine: Engine) -> None:
    versions = SqlKbVersions(engine)
    assert versions.read() == {}
    facts = SqlFactStore(engine)
    facts.upsert_facts([fact("1")])
    facts.upsert_facts([fact("1")])  # unchanged: nothing written, nothing to reload
    assert versions.read() == {FACTS: 1}
    glossaries = SqlGlossaryStore(engine)
    assert glossaries.save(GLOSSARY_TEXT, "g.toml") and not glossaries.save(GLOSSARY_TEXT, "g.toml")
    assert versions.read() == {FACTS: 1, GLOSSARY: 1}
    chunks = SqlChunkStore(engine)
    record = DocumentRecord("a.md", "x", False, dt.datetime.now(dt.UTC), 0)
    chunks.replace_document(record, [Chunk("a.md#0", "a.md", "para=1", "hello")])
    chunks.delete_document("a.md")
    assert versions.read() == {FACTS: 1, GLOSSARY: 1, DOCUMENTS: 2}


def test_a_change_rolled_back_leaves_the_version_alone(engine: Engine) -> None:
    with pytest.raises(RuntimeError), engine.begin() as conn:
        bump_kb_version(conn, FACTS)
        raise RuntimeError("the load failed half way")
    assert SqlKbVersions(engine).read() == {}


def test_a_loaded_store_catches_up_with_one_change_or_several(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer, reader = SqlFactStore(engine), SqlFactStore(engine)
    writer.upsert_facts([fact("1"), fact("2", Period(FY, "2023"))])
    key = ("REVENUE", "ORBIS_CN", Period(FY, "2024"), "TOTAL")
    assert reader.lookup(*key).value == Decimal("1")  # type: ignore[union-attr]
    writer.upsert_facts([fact("10"), fact("3", Period(FY, "2025"))])  # one change
    with monkeypatch.context() as m:  # ... is read as its rows, not as the whole table
        m.setattr(reader, "refresh", lambda: pytest.fail("whole table read for one change"))
        reader.catch_up()
    assert reader.lookup(*key).value == Decimal("10")  # type: ignore[union-attr]
    assert reader.periods("REVENUE", "ORBIS_CN", "TOTAL")[0] == Period(FY, "2025")
    assert reader.lookup("REVENUE", "ORBIS_CN", Period(FY, "2023"), "TOTAL").value == 2  # type: ignore[union-attr]
    writer.upsert_facts([fact("11")])
    writer.upsert_facts([fact("4", Period(FY, "2026"))])  # two changes: the whole table
    reader.catch_up()
    assert reader.lookup(*key).value == Decimal("11")  # type: ignore[union-attr]
    assert [p.value for p in reader.periods("REVENUE", "ORBIS_CN", "TOTAL")] == [
        "2026", "2025", "2024", "2023"
    ]
    assert len(reader.all_facts()) == 4
