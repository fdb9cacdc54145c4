"""The demo knowledge base with one extra document, as the hostile-input suites need it."""

from __future__ import annotations

import shutil
from pathlib import Path

from bot.kb.ingest import ingest_paths
from bot.settings.model import load_settings
from bot.wiring.build import App, build_app

DEMO = Path(__file__).resolve().parents[1] / "bot" / "demo"


def demo_with_document(root: Path, name: str, text: str) -> App:
    """An application on `root/data` holding the demo facts, glossary and documents plus
    `docs/name`; the glossary is copied beside the folder (its [[documents]] are relative)."""
    docs = root / "docs"
    shutil.copytree(DEMO / "docs", docs)
    (docs / name).write_text(text, encoding="utf-8")
    shutil.copy(DEMO / "glossary.toml", root)
    app = build_app(load_settings(data_dir=root / "data", embedder="hashing"))
    summary = ingest_paths(app, [root / "glossary.toml", DEMO / "facts.csv", docs])
    assert not summary.problems, summary.problems
    return app
