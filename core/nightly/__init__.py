"""Nightly maintenance: aging, retiring and promoting plans.

The modules are imported by name (`from core.nightly.maintenance import ...`); none is
imported here, so importing one loads only what it needs."""

__all__ = [
    "maintenance",
    "maintenance_rules",
    "maintenance_schedule",
    "promotion",
]
