"""The cost-aware cascade as `ricorda serve` builds it: what it defers must never be lost or
read stale, and what it skips must never change an answer.

Serve mode writes L1 observations and use counts from a writer thread, and observes a turn the
rules resolved only when a verdict on it comes. These tests check what a user and an admin see
through the application: a confirmed question still teaches its paraphrases, listings count
every use at once, nothing queued is lost on close, a narrative replay sees a changed document,
and the thread limits leave an operator's own setting alone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from bot.kb.ingest import ingest_paths
from bot.settings.model import load_settings
from bot.wiring.build import build_app
from core.contracts.ports import Chunk, ScoredChunk
from core.contracts.types import Request
from core.documents.narrative_channel import DocumentNarrative
from core.knowledge.glossary import load_glossary
from core.knowledge.names import NameIndex
from tests.acme import ACME

CHINA24 = "What was ACME China revenue in FY2024?"
REPO = Path(__file__).resolve().parents[1]


def serve_app(data: Path, **settings: object):  # type: ignore[no-untyped-def]
    app = build_app(
        load_settings(data_dir=data, embedder="use", reference_date="2026-06-15", **settings)
    )
    ingest_paths(app, [ACME / "glossary.toml", ACME / "facts.csv"])
    return app


def test_a_confirmed_question_still_teaches_its_paraphrases_in_serve_mode(tmp_path: Path) -> None:
    """The structured answer was not observed when given (no embedding on the answer path);
    the thumbs-up observes it, so the paraphrase is served by the autopath it promoted."""
    app = serve_app(tmp_path, l0_cosine_threshold=0.9999)  # L0b: exact matches only
    try:
        first = app.core.answering.answer(Request(CHINA24))
        assert first.served_by == "planner" and "1,320" in first.text
        assert app.core.feedback.record(first.turn_id, "u1", "positive", via="test").applied
        learnt = app.core.answering.answer(Request("Tell me the ACME China revenue for FY2024"))
        assert learnt.served_by == "L1" and "1,320" in learnt.text
        other = app.core.answering.answer(Request("Tell me the ACME China revenue for FY2025"))
        assert other.served_by == "L1" and "1,188" in other.text and "1,320" not in other.text
    finally:
        app.close()


def test_admin_listing_counts_every_use_at_once_and_close_keeps_them(tmp_path: Path) -> None:
    app = serve_app(tmp_path)
    try:
        answers = [app.core.answering.answer(Request(CHINA24)) for _ in range(3)]
        assert [a.served_by for a in answers] == ["planner", "L0a", "L0a"]
        (entry,) = app.core.admin.list_fastpaths()
        assert entry.n_uses == 2  # the writer thread's use counts are written before a listing
        for _ in range(2):
            app.core.answering.answer(Request(CHINA24))
    finally:
        app.close()  # what the writer still had queued is written first
    reopened = build_app(load_settings(data_dir=tmp_path, embedder="use"))
    try:
        (entry,) = reopened.storage.fastpaths.list()
        assert entry.n_uses == 4
    finally:
        reopened.close()


class _Documents:
    """A retriever over whatever the documents are now, counting its searches."""

    def __init__(self) -> None:
        self.text = "China revenue fell because of the new regulation."
        self.searches = 0

    def retrieve(self, queries, *, cleared, filters, k):  # type: ignore[no-untyped-def]
        self.searches += 1
        return [ScoredChunk(Chunk("c1", "review.md", "section=A", self.text), 1.0)]


def test_a_narrative_replay_reuses_its_retrieval_only_while_the_documents_are_unchanged() -> None:
    documents, version = _Documents(), ["v1"]
    narrative = DocumentNarrative(
        names=NameIndex(load_glossary(ACME / "glossary.toml")),
        build_retriever=lambda: documents,  # type: ignore[arg-type, return-value]
        fingerprint=lambda: version[0],
    )
    first = narrative.search("why did China fall", filters={}, cleared=False)
    again = narrative.search_again("why did China fall", filters={}, cleared=False)
    assert again == first and documents.searches == 1
    other = narrative.search_again("why did HK grow", filters={}, cleared=False)
    assert other and documents.searches == 2  # another question is searched
    documents.text, version[0] = "China revenue recovered in 2026.", "v2"
    (changed,) = narrative.search_again("why did China fall", filters={}, cleared=False)
    assert changed.chunk.text == "China revenue recovered in 2026." and documents.searches == 3


def test_thread_limits_apply_before_numpy_and_keep_the_operators_value() -> None:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    env.update({"OMP_NUM_THREADS": "3", "PYTHONPATH": str(REPO)})
    code = (
        "import json, os, sys; from bot.models.threads import limit_threads; limit_threads(); "
        "print(json.dumps({'numpy_loaded': 'numpy' in sys.modules, "
        "'openblas': os.environ['OPENBLAS_NUM_THREADS'], 'omp': os.environ['OMP_NUM_THREADS'], "
        "'mkl': os.environ['MKL_NUM_THREADS']}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert json.loads(out.stdout) == {
        "numpy_loaded": False,
        "openblas": "1",
        "omp": "3",
        "mkl": "1",
    }
