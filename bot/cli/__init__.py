"""The `ricorda` command line (typer); a plain `ricorda ask` is answered by bot.entry without it.

The modules are imported by name; none is imported here, so importing one loads only what it
needs."""

__all__ = [
    "admin",
    "commands",
    "kb",
    "maintenance",
    "output",
    "report",
    "subscriptions",
]
