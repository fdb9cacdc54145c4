"""Numbers from the fact table: lookups, derived metrics, the clarification gate, their sentences.

The modules are imported by name (`from core.figures.clarify import ...`); none is
imported here, so importing one loads only what it needs."""

__all__ = [
    "aggregate",
    "arithmetic",
    "breakdown",
    "cells",
    "change",
    "clarify",
    "counts",
    "default_period",
    "derived",
    "disclosed",
    "levels",
    "period_coverage",
    "period_parts",
    "period_rank",
    "plotted",
    "render",
    "step_context",
    "structured",
    "table_parts",
    "tabulate",
]
