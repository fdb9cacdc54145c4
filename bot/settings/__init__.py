"""Settings: the model read from the environment, .env and TOML, every check with its fix,
the fixed choices, how a problem is told, and the help line of each setting.

The modules are imported by name; none is imported here, so importing one loads only what it
needs."""

__all__ = [
    "checks",
    "choices",
    "errors",
    "help",
    "model",
]
