"""`ricorda serve`: the runner of each chat platform, and what runs beside them (health,
warm-up, the nightly timer, the core worker).

The modules are imported by name; none is imported here, so importing one loads only what it
needs."""

__all__ = [
    "core_worker",
    "extras",
    "health",
    "maintenance_schedule",
    "mattermost",
    "refresh",
    "run",
    "runner",
    "scheduler",
    "slack",
    "teams",
    "teams_cloud",
    "teams_package",
    "telegram",
    "warmup",
]
