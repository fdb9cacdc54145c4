"""The embedders for real: USE from its shipped weights, BGE-M3 code path on a tiny local model."""

from __future__ import annotations

import importlib.util
import logging
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

from bot.models.embedders import (
    BGE_M3_REPO,
    BgeM3Embedder,
    HashingEmbedder,
    UseEmbedder,
    choose_embedder,
    find_bge_m3,
)
from core.contracts.errors import ConfigError, ModelError
from core.contracts.ports import Embedder
from core.fastpath.thresholds import BGE_M3_THRESHOLDS, CosineThresholds
from tests.tiny_bge import TINY_HIDDEN, build_tiny_bge

TEXTS = [
    "What was revenue in China in 2024?",
    "Perché i ricavi sono calati?",
    "中国区营收下降的原因",
]


def _unit_rows(v: np.ndarray) -> bool:
    return bool(np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5))


# --- the offline default -----------------------------------------------------------------


@pytest.fixture(scope="module")
def use() -> UseEmbedder:
    return UseEmbedder(threads=1)


def test_use_embeds_three_languages_as_unit_float32_rows(use: UseEmbedder) -> None:
    vectors = use.embed(TEXTS)
    assert isinstance(use, Embedder)
    assert vectors.shape == (3, use.dimension) == (3, 512)
    assert vectors.dtype == np.float32
    assert _unit_rows(vectors)
    assert use.embed([]).shape == (0, 512)


def test_use_is_deterministic_and_ranks_a_translation_above_an_unrelated_text(
    use: UseEmbedder,
) -> None:
    a = use.embed(["Why did revenue in China fall?"])[0]
    again = use.embed(["Why did revenue in China fall?"])[0]
    assert float(a @ again) == pytest.approx(1.0, abs=1e-5)
    italian, unrelated = use.embed(["Perché il fatturato in Cina è calato?", "The cat sleeps."])
    assert float(a @ italian) > float(a @ unrelated) + 0.2


def test_use_loads_its_weights_only_when_first_used() -> None:
    fresh = UseEmbedder()
    assert fresh._model is None
    fresh.embed(["hello"])
    assert fresh._model is not None


def test_use_thresholds_are_its_own_not_bge_m3s(use: UseEmbedder) -> None:
    assert isinstance(use.thresholds, CosineThresholds)
    assert use.thresholds != BGE_M3_THRESHOLDS


# --- hashing (for other modules' unit tests) ---------------------------------------------


def test_hashing_embedder_is_stable_normalised_and_similarity_aware() -> None:
    emb = HashingEmbedder(dimension=128)
    v = emb.embed(["revenue in China", "revenue in China 2024", "the cat sleeps", ""])
    assert v.shape == (4, 128) and v.dtype == np.float32 and _unit_rows(v)
    assert np.array_equal(
        v,
        HashingEmbedder(dimension=128).embed(
            ["revenue in China", "revenue in China 2024", "the cat sleeps", ""]
        ),
    )
    assert float(v[0] @ v[1]) > 0.7 > float(v[0] @ v[2])
    assert emb.name == "hashing-128" and isinstance(emb, Embedder)


# --- BGE-M3 through FlagEmbedding, on a tiny model --------------------------------------


@pytest.fixture(scope="module")
def tiny_bge(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # skip only when the extra is absent: an installed FlagEmbedding that fails to import (a
    # transformers version clash) must fail here, not hide behind a skip
    if importlib.util.find_spec("FlagEmbedding") is None:
        pytest.skip("FlagEmbedding (extra bge) is not installed")
    return build_tiny_bge(tmp_path_factory.mktemp("tiny-bge"))


@pytest.mark.slow  # builds and runs a BGE model with torch (extra models)
def test_bge_m3_embedder_runs_flagembedding_on_the_tiny_model(tiny_bge: Path) -> None:
    emb = BgeM3Embedder(tiny_bge)
    assert emb.dimension == TINY_HIDDEN  # read from config.json, before any load
    assert emb._model is None
    vectors = emb.embed([*TEXTS, TEXTS[0]])
    assert vectors.shape == (4, TINY_HIDDEN) and vectors.dtype == np.float32
    assert _unit_rows(vectors)
    assert float(vectors[0] @ vectors[3]) == pytest.approx(1.0, abs=1e-6)
    assert not np.allclose(vectors[0], vectors[1])
    assert np.allclose(emb.embed([TEXTS[1]])[0], vectors[1], atol=1e-6)  # batch-independent
    assert emb.thresholds == BGE_M3_THRESHOLDS
    assert emb.embed([]).shape == (0, TINY_HIDDEN)


@pytest.mark.slow  # builds and runs a BGE model with torch (extra models)
def test_bge_m3_embeds_more_texts_than_one_batch(tiny_bge: Path) -> None:
    emb = BgeM3Embedder(tiny_bge, batch_size=2)
    texts = [f"document number {i}" for i in range(5)]
    vectors = emb.embed(texts)
    assert vectors.shape == (5, TINY_HIDDEN) and _unit_rows(vectors)
    assert np.allclose(vectors[4], emb.embed([texts[4]])[0], atol=1e-6)


@pytest.mark.slow  # builds and runs a BGE model with torch (extra models)
def test_bge_m3_refuses_an_incomplete_model_folder(tiny_bge: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(tiny_bge, broken)
    (broken / "sparse_linear.pt").unlink()
    with pytest.raises(ModelError, match=r"sparse_linear\.pt"):
        BgeM3Embedder(broken)


# --- choosing at start-up ----------------------------------------------------------------


def _fake_hf_cache(cache: Path, model: Path) -> Path:
    """Lay `model` out as the Hugging Face cache does for BAAI/bge-m3."""
    repo = cache / ("models--" + BGE_M3_REPO.replace("/", "--"))
    revision = "0123456789abcdef0123456789abcdef01234567"
    shutil.copytree(model, repo / "snapshots" / revision)
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(revision)
    return repo / "snapshots" / revision


def test_auto_without_a_local_bge_model_says_why_and_uses_the_offline_default(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO):
        emb = choose_embedder("auto", bge_model_path=None, hf_cache_dir=tmp_path)
    assert isinstance(emb, UseEmbedder)
    assert "offline USE" in caplog.text and "not in the Hugging Face cache" in caplog.text


@pytest.mark.slow  # builds and runs a BGE model with torch (extra models)
def test_auto_finds_bge_m3_in_the_hugging_face_cache(
    tiny_bge: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    snapshot = _fake_hf_cache(tmp_path / "hub", tiny_bge)
    with caplog.at_level(logging.INFO):
        emb = choose_embedder("auto", bge_model_path=None, hf_cache_dir=tmp_path / "hub")
    assert isinstance(emb, BgeM3Embedder) and emb.model_path == snapshot
    assert "Hugging Face cache" in caplog.text
    assert emb.embed(["ciao"]).shape == (1, TINY_HIDDEN)


@pytest.mark.slow  # builds and runs a BGE model with torch (extra models)
def test_an_explicit_model_path_wins(tiny_bge: Path, tmp_path: Path) -> None:
    emb = choose_embedder("bge-m3", bge_model_path=str(tiny_bge), hf_cache_dir=tmp_path)
    assert isinstance(emb, BgeM3Embedder) and emb.model_path == tiny_bge


def test_forcing_bge_m3_when_it_is_unavailable_is_a_clear_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="RICORDA_BGE_MODEL_PATH"):
        choose_embedder("bge-m3", bge_model_path=str(tmp_path / "nope"), hf_cache_dir=tmp_path)


@pytest.mark.slow  # builds and runs a BGE model with torch (extra models)
def test_auto_falls_back_when_flagembedding_cannot_be_imported(
    tiny_bge: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(
        "bot.models.embedders.flagembedding_problem",
        lambda: "FlagEmbedding cannot be imported (test)",
    )
    with caplog.at_level(logging.INFO):
        emb = choose_embedder("auto", bge_model_path=str(tiny_bge))
    assert isinstance(emb, UseEmbedder)
    assert "FlagEmbedding cannot be imported" in caplog.text


def test_use_and_hashing_forced_and_unknown_settings(tmp_path: Path) -> None:
    assert isinstance(choose_embedder("use", bge_model_path=None), UseEmbedder)
    assert isinstance(choose_embedder("hashing", bge_model_path=None), HashingEmbedder)
    with pytest.raises(ConfigError, match="auto, use, bge-m3 or hashing"):
        choose_embedder("word2vec", bge_model_path=None)


def test_find_bge_m3_reads_only_the_filesystem(tmp_path: Path) -> None:
    path, why = find_bge_m3(None, hf_cache_dir=tmp_path)
    assert path is None and BGE_M3_REPO in why


# --- figures -----------------------------------------------------------------------------


@pytest.mark.slow  # builds and runs a BGE model with torch (extra models)
def test_query_embedding_latency(use: UseEmbedder, tiny_bge: Path) -> None:
    """Not a benchmark (bench/bench_retrieval.py measures it): a guard against a query that
    reloads or rebuilds the model (seconds), loose enough for a machine shared with other work
    (a 200 ms bound failed at 233 ms beside a ten-million-row ingest)."""
    use.embed(["warm up"])
    bge = BgeM3Embedder(tiny_bge)
    bge.embed(["warm up"])
    for emb in (use, bge):
        started = time.perf_counter()
        for _ in range(20):
            emb.embed(["Why did revenue in China fall in 2025?"])
        per_query_ms = (time.perf_counter() - started) / 20 * 1000
        print(f"{emb.name}: {per_query_ms:.2f} ms per query")
        assert per_query_ms < 2000
