"""The BM25 index on disk, so a restarted process maps it instead of re-tokenising every chunk.

Why: tokenising is most of building the index (segmenting Chinese with jieba: ~100 s per
100,000 chunks on a busy two-core machine, bench/bench_scale.py), so at a million chunks a
replica would need many minutes before its first "why" answer. The snapshot is a folder of
.npy arrays (all postings in two flat arrays, cut per term by offsets) plus a JSON header with
the glossary words the tokens were made with and the document list they cover; `load` maps the
arrays read-only, so the postings stay in the page cache, shared by every process on the host,
and only pages a query touches become resident. A snapshot for other words or another format is
ignored. Writes go to a new folder renamed into place: a crash never leaves half a snapshot.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from core.contracts.documents import Signature
from core.documents.lexical import Bm25Index, Tokenizer

log = logging.getLogger("ricorda.lexical")
FORMAT = 1
_ARRAYS = ("rows", "tf", "offsets", "doc_len", "restricted", "alive")


class LexicalSnapshots:
    """`core.documents.lexical_sync.Snapshots` in one folder (the data dir's `lexical/`)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def save(
        self, index: Bm25Index, words: tuple[str, ...], seen: Mapping[str, Signature]
    ) -> None:
        """Write `index` (built with `words`, covering the documents `seen`)."""
        folder = self.folder
        tmp = folder.with_name(folder.name + f".tmp{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        arrays, header = index.state()
        for name in _ARRAYS:
            np.save(tmp / f"{name}.npy", arrays[name])
        header = {
            **header,
            "format": FORMAT,
            "words": list(words),
            "seen": {p: [s[0], s[1], s[2].isoformat(), s[3]] for p, s in seen.items()},
        }
        (tmp / "header.json").write_text(json.dumps(header), encoding="utf-8")
        old = folder.with_name(folder.name + ".old")
        shutil.rmtree(old, ignore_errors=True)
        if folder.exists():
            folder.rename(old)
        tmp.rename(folder)
        shutil.rmtree(old, ignore_errors=True)

    def load(self, words: tuple[str, ...]) -> tuple[Bm25Index, dict[str, Signature]] | None:
        """The saved index and the document list it covers; None when there is none usable
        (missing, another format, other glossary words, unreadable)."""
        folder = self.folder
        if not (folder / "header.json").is_file():
            return None  # never saved here: the first build
        try:
            header: dict[str, Any] = json.loads((folder / "header.json").read_text("utf-8"))
            if header.get("format") != FORMAT or tuple(header["words"]) != words:
                return None
            arrays = {n: np.load(folder / f"{n}.npy", mmap_mode="r") for n in _ARRAYS}
            index = Bm25Index.from_state(arrays, header, Tokenizer(words))
            seen = {
                p: (s[0], bool(s[1]), dt.datetime.fromisoformat(s[2]), int(s[3]))
                for p, s in header["seen"].items()
            }
        except (OSError, ValueError, KeyError, TypeError, IndexError) as exc:
            log.warning("lexical snapshot in %s not used: %s", folder, exc)
            return None
        return index, seen
