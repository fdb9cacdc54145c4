"""The knowledge-base tools: ingest, check, init, show, golden questions, backup, and the
disclosure and public-passage reports.

The modules are imported by name; none is imported here, so importing one loads only what it
needs."""

__all__ = [
    "add_name",
    "backup",
    "check",
    "golden",
    "golden_file",
    "golden_ingest",
    "ingest",
    "init",
    "init_wide",
    "public_passages",
    "show",
    "sources",
]
