"""The glossary text kept in the database."""

from __future__ import annotations

from sqlalchemy.engine import Engine

from storage.db import open_database
from storage.glossary_store import SqlGlossaryStore, glossary_sha256

TEXT = '[scope]\ndefault_entity = "ORBIS_GROUP"\n[metrics.REVENUE]\nnames = ["revenue", "营收"]\n'


def test_nothing_is_stored_before_the_first_ingest(engine: Engine) -> None:
    assert SqlGlossaryStore(engine).load() is None


def test_saving_the_same_text_again_is_a_no_op(engine: Engine) -> None:
    store = SqlGlossaryStore(engine)
    assert store.save(TEXT, "kb/glossary.toml") is True
    first = store.load()
    assert store.save(TEXT, "kb/glossary.toml") is False
    assert store.load() == first


def test_a_changed_glossary_replaces_the_stored_one_for_every_replica(db_url: str) -> None:
    engines = [open_database(db_url), open_database(db_url)]  # two replicas, one database
    try:
        SqlGlossaryStore(engines[0]).save(TEXT, "kb/glossary.toml")
        changed = TEXT + '[channels.ONLINE]\nnames = ["online"]\n'
        assert SqlGlossaryStore(engines[0]).save(changed, "kb/glossary.toml") is True
        seen = SqlGlossaryStore(engines[1]).load()
    finally:
        for e in engines:
            e.dispose()
    assert seen is not None
    assert seen.text == changed
    assert seen.sha256 == glossary_sha256(changed)
    assert seen.source_path == "kb/glossary.toml"
    assert seen.loaded_at.utcoffset() is not None
