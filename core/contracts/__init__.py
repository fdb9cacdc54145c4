"""The ground floor: the values, records, ports and errors that storage, adapters and the rest
of core share.

Nothing here imports any other core module (only the standard library, and numpy for type
hints), so every layer can depend on it and it depends on nothing: a record is data, and what
is computed from it lives beside the logic that uses it (docs/architecture.md, "The floor").
The modules are imported by name (`from core.contracts.ports import ...`); none is imported
here."""

__all__ = [
    "autopaths",
    "composites",
    "context",
    "deferred",
    "documents",
    "errors",
    "fact_sources",
    "fastpath",
    "learning_ports",
    "maintenance",
    "ports",
    "promotion",
    "subscriptions",
    "thinking",
    "types",
]
