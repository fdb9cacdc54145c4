"""Bytes that are not text: a lone surrogate or a byte that is not UTF-8 in a question (Python
decodes a command line's bytes into lone surrogates), and a file name that is not UTF-8 among
the documents. Each is answered or ingested like anything else; nothing after it is lost."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine

from bot.models.embedders import HashingEmbedder
from bot.settings.model import load_settings
from bot.wiring.build import build_app
from core.contracts.types import FactStatus, Request, Route
from core.documents.document_ingest import ingest_documents
from core.fastpath.canonical import cache_key, canonical_hash
from storage.chunk_store import SqlChunkStore
from storage.document_readers import read_document
from tests.acme import REF, load_acme
from tests.retrieval_fakes import InMemoryVectorIndex


@pytest.mark.parametrize("bad", ["\ud800", "\udfff", "\udcff", "a\udc80b"])
def test_canonical_hash_takes_lone_surrogates(bad: str) -> None:
    assert len(canonical_hash(bad)) == 16
    assert canonical_hash(bad) != canonical_hash(bad + "x")
    canonical, key = cache_key(f"revenue China {bad}", "en")
    assert key == canonical_hash(canonical)


@pytest.fixture(scope="module")
def acme_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return load_acme(tmp_path_factory.mktemp("bytes") / "data")


@pytest.mark.parametrize(
    "question",
    [
        "ACME China revenue FY2025 \udcff",
        "ACME China\ud800 revenue FY2025",
        "\udce9ACME China revenue FY2025",
    ],
)
def test_a_question_with_bad_bytes_is_answered_and_recorded(acme_dir: Path, question: str) -> None:
    app = build_app(load_settings(data_dir=acme_dir, embedder="hashing"))
    try:
        ans = app.core.pipeline.answer(Request(question, chat="console:local", reference_date=REF))
        assert ans.route is Route.STRUCTURED
        assert ans.facts[0].status is FactStatus.FOUND
        turn = app.storage.turns.get_turn(ans.turn_id)
        assert turn is not None and "ACME China" in turn.question
        again = app.core.pipeline.answer(
            Request(question, chat="console:local", reference_date=REF))
        assert again.served_by == "L0a"  # the cache key was computed and stored
    finally:
        app.close()


def test_ricorda_ask_with_a_byte_that_is_not_utf8(acme_dir: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RICORDA_")}
    env.update(RICORDA_DATA_DIR=str(acme_dir), LC_ALL="C.UTF-8")
    proc = subprocess.run(
        [sys.executable, "-m", "bot", "ask", b"ACME China revenue FY2025 \xff\xfe", "--json",
         "--reference-date", REF.isoformat()],
        capture_output=True, env=env, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    answer = json.loads(proc.stdout)
    assert answer["route"] == "structured" and answer["facts"][0]["status"] == "found"


def test_a_file_name_that_is_not_utf8_does_not_stop_the_ingest(
    tmp_path: Path, engine: Engine
) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "a_first.md").write_text("# China\n\nRevenue fell in China.\n", encoding="utf-8")
    bad = os.fsdecode(os.fsencode(root) + b"/b_caf\xe9_report.md")
    try:
        Path(bad).write_text("# Italy\n\nItaly grew.\n", encoding="utf-8")
    except (OSError, UnicodeEncodeError):  # pragma: no cover - file systems that refuse it
        pytest.skip("this file system does not store names that are not UTF-8")
    (root / "c_last.md").write_text("# Hong Kong\n\nHong Kong was flat.\n", encoding="utf-8")
    store = SqlChunkStore(engine)
    report = ingest_documents(
        root, chunk_store=store, vector_index=InMemoryVectorIndex(), embedder=HashingEmbedder(),
        reader=read_document,
    )
    assert report.added == ["a_first.md", "b_caf\\xe9_report.md", "c_last.md"]
    assert not report.failed
    docs = {d.path for d in store.documents()}
    assert "b_caf\\xe9_report.md" in docs and "c_last.md" in docs
    # the next run recognises every file as unchanged (the escaped name is its stable key)
    again = ingest_documents(
        root, chunk_store=store, vector_index=InMemoryVectorIndex(), embedder=HashingEmbedder(),
        reader=read_document,
    )
    assert sorted(again.unchanged) == sorted(report.added) and not again.missing
