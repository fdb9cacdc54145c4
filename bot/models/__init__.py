"""Model providers behind core's Protocols: embedders, chat models, and the thread limits
set before their libraries load.

The modules are imported by name; none is imported here, so importing one loads only what it
needs."""

__all__ = [
    "embedders",
    "llm_providers",
    "threads",
]
