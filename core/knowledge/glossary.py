"""The glossary: controlled codes for metrics, entities and channels, their names in every
language, the scope (default entity, fiscal year end, cleared chats) and the competitors.

Loading validates everything up front and names file, line and key on any mistake, because a
silently wrong glossary would make the bot answer about the wrong thing.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.contracts.documents import DocumentSource
from core.contracts.errors import ConfigError
from core.knowledge.accepted_documents import AcceptedDocuments, parse_accepted
from core.knowledge.glossary_rules import glossary_problems
from core.knowledge.glossary_terms import DerivedMetric, Term
from core.knowledge.glossary_validation import GlossaryReader
from core.knowledge.unit_kinds import MetricUnits, UnitKind, parse_unit_kinds
from core.knowledge.units import UnitForm, parse_units, show_value

if TYPE_CHECKING:  # [[facts]] sources: read only by a glossary that declares some
    from core.contracts.fact_sources import FactSource

_MMDD = re.compile(r"^(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$")


@dataclass(frozen=True)
class Glossary:
    default_entity: str
    fiscal_year_end: str = "12-31"
    restricted_chats: frozenset[str] = frozenset()
    metrics: dict[str, Term] = field(default_factory=dict)
    entities: dict[str, Term] = field(default_factory=dict)
    channels: dict[str, Term] = field(default_factory=dict)
    competitors: tuple[str, ...] = ()
    documents: tuple[DocumentSource, ...] = ()  # declared document sources ([[documents]])
    units: dict[str, dict[str, UnitForm]] = field(default_factory=dict)  # core.knowledge.units
    titles: dict[str, str] = field(default_factory=dict)  # document -> readable title
    derived: dict[str, DerivedMetric] = field(default_factory=dict)  # [derived.CODE]
    # every unit's dimension and scale, built-in and declared (core.knowledge.unit_kinds)
    unit_kinds: dict[str, UnitKind] = field(default_factory=dict)
    # disclosure control (core.knowledge.disclosure): [scope] disclosure, [relations]
    disclosure: str = "protect"
    channel_totals: dict[str, tuple[str, ...]] = field(default_factory=dict)  # TOTAL -> members
    non_additive: frozenset[str] = frozenset()  # metrics no total is the sum of (rates)
    # the hierarchy's levels by code ([levels.REGION] names = [...]), core.figures.levels
    levels: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # public documents allowed to state a withheld figure (core.knowledge.accepted_documents)
    accepted: AcceptedDocuments = field(default_factory=AcceptedDocuments)
    # declared fact sources ([[facts]]): wide tables in files, SQL queries
    facts: tuple[FactSource, ...] = ()

    def show_value(self, value: Decimal, unit: str, language: str) -> str:
        """"€560.4M" / "560,4 M€": the value in its unit as a reader of `language` writes it."""
        from core.catalog.formats import number

        return show_value(value, unit, language, self.units, lambda v: number(v, language))

    def metric_units(self) -> MetricUnits:
        """Each stored metric's unit and every unit's kind: what a fact row is settled by."""
        return MetricUnits({c: t.unit for c, t in self.metrics.items()}, self.unit_kinds)

    def is_cleared(self, chat: str) -> bool:
        """Whether this chat may see RESTRICTED entities and documents."""
        return chat in self.restricted_chats

    def visible_entities(self, cleared: bool) -> list[Term]:
        return [t for t in self.entities.values() if cleared or not t.restricted]

    def label(self, kind: str, code: str, language: str = "en") -> str:
        """Display name of a metric/entity/channel code in the reader's language."""
        table = {"metric": self.metrics, "entity": self.entities, "channel": self.channels}[kind]
        term = table.get(code)
        if term is None and kind == "metric" and code in self.derived:
            term = self.derived[code].term
        return term.label_for(language) if term else code


def load_glossary(path: Path) -> Glossary:
    """Read and validate a glossary file; raises ConfigError naming file, line and key."""
    return read_glossary(path)[1]


def read_glossary(path: Path) -> tuple[str, Glossary]:
    """The file's text and its validated glossary (read once: what is stored is what was
    checked)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the glossary ({exc})") from exc
    return text, parse_glossary(text, source=str(path))


def parse_glossary(text: str, *, source: str = "glossary.toml") -> Glossary:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: {exc}") from exc
    return _build(GlossaryReader(text, source), data)


def fact_sources(data: dict[str, Any], reader: GlossaryReader,
                 default_entity: str) -> tuple[FactSource, ...]:
    """The `[[facts]]` sources; their parser (and the wide-table reader it checks layouts
    with) is imported only for a glossary that declares some: a one-shot `ask` on any other
    glossary pays nothing for them."""
    raw = data.get("facts")
    if raw is None:
        return ()
    from core.knowledge.fact_sources import parse_fact_sources

    return parse_fact_sources(raw, base_dir=reader.base_dir(), default_entity=default_entity,
                              fail=reader.fail_in("facts"))


def _build(reader: GlossaryReader, data: dict[str, Any]) -> Glossary:
    """The Glossary of a parsed file: every part read and checked, then the rules on the whole."""
    scope = data.get("scope")
    if not isinstance(scope, dict):
        raise reader.fail("scope", "a [scope] table is required")
    metrics = reader.terms(data, "metrics", with_unit=True)
    entities = reader.terms(data, "entities")
    channels = reader.terms(data, "channels")
    channels.setdefault("TOTAL", Term(code="TOTAL", names=("total",)))
    default_entity = scope.get("default_entity")
    if not isinstance(default_entity, str) or default_entity not in entities:
        raise reader.fail(
            "scope.default_entity", f"must name one of the entities {sorted(entities)}"
        )
    fy_end = scope.get("fiscal_year_end", "12-31")
    if not isinstance(fy_end, str) or not _MMDD.match(fy_end):
        raise reader.fail("scope.fiscal_year_end", 'must be a month-day like "12-31"')
    chats = scope.get("restricted_chats", [])
    if not isinstance(chats, list) or not all(isinstance(c, str) for c in chats):
        raise reader.fail(
            "scope.restricted_chats", 'must be a list of chat ids like "telegram:9001"'
        )
    for code, term in entities.items():
        if term.parent is not None and term.parent not in entities:
            raise reader.fail(f"entities.{code}.parent", f"unknown entity '{term.parent}'")
    competitors = data.get("competitors", {}).get("names", [])
    if not isinstance(competitors, list) or not all(isinstance(c, str) for c in competitors):
        raise reader.fail("competitors.names", "must be a list of names")
    unit_kinds = parse_unit_kinds(data.get("units"), reader.fail)
    glossary = Glossary(
        default_entity=default_entity,
        fiscal_year_end=fy_end,
        restricted_chats=frozenset(chats),
        metrics=metrics,
        entities=entities,
        channels=channels,
        competitors=tuple(c for c in competitors if c.strip()),
        documents=reader.document_sources(data),
        facts=fact_sources(data, reader, default_entity),
        units=parse_units(data.get("units"), reader.fail),
        titles=reader.titles(data),
        derived=reader.derived(data, metrics),
        unit_kinds=unit_kinds,
        levels=reader.levels(data, entities),
        **reader.relations(data, scope, metrics, channels),
        accepted=parse_accepted(data.get("disclosure"),
                                Path(reader.source).parent if reader.source else Path("."),
                                reader.fail),
    )
    problems = glossary_problems(glossary)  # the rules on the whole
    if problems:
        raise ConfigError("\n".join(reader.where(key, why) for key, why in problems))
    return glossary
