"""Changing the knowledge base from another process, as an operator does: the ACME glossary and
facts with one edit, ingested by `ricorda ingest` run as a subprocess on a shared database."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from tests.acme import ACME

REPO = Path(__file__).resolve().parents[1]
GLOSSARY = (ACME / "glossary.toml").read_text(encoding="utf-8")
FACTS = (ACME / "facts.csv").read_text(encoding="utf-8")

CHINA_2024 = "What was ACME China revenue in FY2024?"
HK_2024 = "What was ACME HK revenue in FY2024?"
LABS_2025 = "What was ACME Labs revenue in FY2025?"
UNCLEARED, CLEARED = "telegram:5", "telegram:9001"  # 9001 is in the ACME restricted_chats

OLD_CN, NEW_CN = "REVENUE,ACME_CN,FY,2024,TOTAL,1320,", "REVENUE,ACME_CN,FY,2024,TOTAL,1999,"
HK_RESTRICTED = GLOSSARY.replace(
    'names = ["ACME HK", "ACME Hong Kong", "Hong Kong", "香港"]',
    'names = ["ACME HK", "ACME Hong Kong", "Hong Kong", "香港"]\nrestricted = true',
)
TELEGRAM_9001_REVOKED = GLOSSARY.replace(
    'restricted_chats = ["telegram:9001", "slack:C0123"]', 'restricted_chats = ["slack:C0123"]'
)
assert NEW_CN not in FACTS and OLD_CN in FACTS
assert HK_RESTRICTED != GLOSSARY and TELEGRAM_9001_REVOKED != GLOSSARY


def ingest_process(data_dir: Path, *paths: Path, database_url: str | None = None) -> float:
    """Run `ricorda ingest PATHS` in its own process; the monotonic time it returned (its
    transactions are committed by then)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RICORDA_")}
    env.update(RICORDA_DATA_DIR=str(data_dir), RICORDA_EMBEDDER="hashing", HF_HUB_OFFLINE="1")
    if database_url:
        env["RICORDA_DATABASE_URL"] = database_url
    proc = subprocess.run(
        [sys.executable, "-m", "bot", "ingest", *map(str, paths)],
        env=env, cwd=REPO, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return time.monotonic()


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path
