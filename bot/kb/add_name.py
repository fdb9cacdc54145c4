"""`ricorda glossary add-name METRIC NAME`: a name people use, added to a metric's names in the
glossary file itself, edited in place with tomlkit so its comments, order and layout stay.

The edited text must still load as a glossary (core.knowledge.glossary) and the name must not
already name another code, or nothing is written. The change reaches the bot at the next
`ricorda ingest` of the glossary, like any edit of the file.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import tomlkit
from tomlkit.items import Array, Table

from core.contracts.errors import ConfigError
from core.knowledge.glossary import parse_glossary


def _squash(name: str) -> str:
    return " ".join(name.casefold().split())


def add_metric_name(path: Path, metric: str, name: str) -> str:
    """Append `name` to `[metrics.METRIC] names` in the file at `path`; what was done, in
    one line. ConfigError (nothing written) for an unknown metric, a name another code has,
    or a file that would not load afterwards."""
    name = " ".join(name.split())
    if not name:
        raise ConfigError("the name to add is empty")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read the glossary {path}: {exc.strerror}") from exc
    before = parse_glossary(text, source=str(path))
    document = tomlkit.parse(text)
    metrics = document.get("metrics")
    code = next((c for c in (metrics or {}) if c.upper() == metric.strip().upper()), None)
    if not isinstance(metrics, Table) or code is None:
        known = ", ".join(sorted(metrics or {})) or "none"
        raise ConfigError(f"no metric {metric!r} in {path} (metrics: {known})")
    term = metrics[code]
    own = [str(n) for n in (*term.get("names", []), *term.get("forms", []))]
    if _squash(name) in {_squash(n) for n in own}:
        return f"{name!r} is already a name of {code}: nothing changed"
    for kind, table in (("metric", before.metrics), ("entity", before.entities),
                        ("channel", before.channels)):
        for other, t in table.items():
            if other != code and _squash(name) in {
                    _squash(n) for n in (*t.names, *getattr(t, "forms", ()))}:
                raise ConfigError(f"{name!r} already names the {kind} {other}")
    names = term.get("names")
    if not isinstance(names, Array):
        raise ConfigError(f"[metrics.{code}] has no names list in {path}")
    names.append(name)
    edited = tomlkit.dumps(document)
    parse_glossary(edited, source=str(path))  # still a glossary, or nothing is written
    _replace(path, edited)
    return f"added {name!r} to metrics.{code}.names in {path}; run `ricorda ingest {path}`"


def _replace(path: Path, text: str) -> None:
    """Write beside the file and rename over it: a crash leaves the old file or the new one,
    with the old one's mode."""
    mode = path.stat().st_mode & 0o777
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
