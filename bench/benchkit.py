"""What several benchmarks share: percentiles, the ACME questions the adapter benchmarks ask,
and a fake platform server started in its own process (so it does not share the GIL)."""

from __future__ import annotations

import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]

ACME_QUESTIONS = [
    "What was ACME China revenue in FY2024?",
    "What was ACME HK revenue in FY2025?",
    "What was ACME Italia revenue in FY2025?",
    "What was ACME Group revenue in FY2023?",
    "What was ACME China revenue in H1 2025?",
]


def acme_question(i: int) -> str:
    """The i-th benchmark question, cycling through the five."""
    return ACME_QUESTIONS[i % len(ACME_QUESTIONS)]


def nearest_rank(values: list[float], q: float) -> float:
    """The value at fraction `q` of the sorted samples (q=0.99: the p99)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def quantile(values: list[float], q: int) -> float:
    """The q-th percentile, interpolated between samples, never beyond the largest (the
    default 'exclusive' method extrapolates: a p99 above the maximum on small runs)."""
    if len(values) < 2:
        return (values or [0.0])[0]
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def start_fake(module: str) -> tuple[subprocess.Popen[str], str]:
    """`python -m <module>` (tests.fake_slack, tests.fake_telegram) and the URL it prints."""
    proc = subprocess.Popen([sys.executable, "-m", module], cwd=REPO,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


def warm_acme(app: Any, chat: str) -> None:
    """Load the ACME knowledge base and ask every question once: from then on, L0a hits."""
    from bot.kb.ingest import ingest_paths
    from core.contracts.types import Request
    from tests.acme import ACME

    ingest_paths(app, [ACME / "glossary.toml", ACME / "facts.csv"])
    for q in ACME_QUESTIONS:
        app.core.pipeline.answer(Request(text=q, chat=chat, user=chat))
