"""Names that belong to two kinds of thing: "stores" the sales channel and a word of "number
of stores" the metric; an entity named like a metric's word. Questions still read them (a
question naming no metric reads the word as the metric, core.knowledge.metric_phrase; beside
a metric it is the channel or entity), but the company should know which reading wins, so
`ricorda check` says so for each one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.knowledge.comparable import comparable
from core.knowledge.metric_phrase import content_stems

if TYPE_CHECKING:
    from core.knowledge.glossary import Glossary

_KINDS = (("channels", "channel"), ("entities", "entity"))


def shared_name_warnings(glossary: Glossary) -> list[str]:
    """One sentence per name of a channel or entity that is also a metric name's word(s)."""
    metrics = {**glossary.metrics, **{c: d.term for c, d in glossary.derived.items()}}
    metric_names = [(code, name, _stems(name)) for code, term in metrics.items()
                    for name in term.names]
    out: list[str] = []
    for table, _ in _KINDS:
        for code, term in getattr(glossary, table).items():
            for name in term.names:
                hit = _shared(name, metric_names)
                if hit is None:
                    continue
                metric, metric_name = hit
                out.append(
                    f"{table}.{code}: the name {name!r} is also in the metric "
                    f"{metric_name!r} (metrics.{metric}); a question naming no metric "
                    f"(\"how many {name} …\") reads it as {metrics[metric].names[0]}, one "
                    f"naming a metric (\"… in {name}\") as {table}.{code}: add a clearer "
                    "name to one of them if that is not what people mean")
                break  # one warning per code is enough to act on
    return out


def _stems(name: str) -> frozenset[str]:
    return content_stems(comparable(name)[0].replace(",", " ").split())


def _shared(name: str, metric_names: list[tuple[str, str, frozenset[str]]]
            ) -> tuple[str, str] | None:
    """The first metric name holding `name`'s words (Latin) or characters (Chinese)."""
    stems = _stems(name) if name.isascii() else frozenset()
    for code, metric_name, metric_stems in metric_names:
        if name.isascii():
            if stems and stems <= metric_stems and stems != metric_stems:
                return code, metric_name
        elif name in metric_name and name != metric_name:
            return code, metric_name
    return None
