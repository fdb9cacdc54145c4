"""The glossary: controlled codes for metrics, entities and channels, their names in every
language, the scope (default entity, fiscal year end, cleared chats) and the competitors.

Loading validates everything up front and names file, line and key on any mistake, because a
silently wrong glossary would make the bot answer about the wrong thing.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.contracts.documents import DocumentSource
from core.contracts.errors import ConfigError
from core.contracts.types import Source
from core.documents.source_titles import source_title
from core.figures.formulas import Formula, parse_formula, rounded
from core.knowledge.accepted_documents import AcceptedDocuments, parse_accepted
from core.knowledge.document_sources import parse_document_sources
from core.knowledge.glossary_rules import glossary_problems
from core.knowledge.unit_kinds import MetricUnits, UnitKind, parse_unit_kinds
from core.knowledge.units import LANGUAGES, UnitForm, parse_units, show_value

if TYPE_CHECKING:  # [[facts]] sources: read only by a glossary that declares some
    from core.contracts.fact_sources import FactSource

_MMDD = re.compile(r"^(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$")
_CODE = re.compile(r"^[A-Z][A-Z0-9_]*$")
_CJK = re.compile(r"[\u3400-\u9fff]")


@dataclass(frozen=True)
class Term:
    """A code with its names in every language (first name is the display name)."""

    code: str
    names: tuple[str, ...]
    unit: str = ""
    parent: str | None = None
    restricted: bool = False
    # display name per language ("Ricavi" for it): names are matched in every language, so the
    # first name cannot also be the right one to show an Italian or Chinese reader
    labels: tuple[tuple[str, str], ...] = ()
    # a metric's `additive = true|false`: whether it sums over periods (None: the unit
    # decides, core.figures.arithmetic.default_additive)
    additive: bool | None = None
    # other ways people write it, matched like names but never shown: adjectives and demonyms
    # ("Chinese", "italiani"), plurals, verbs of a metric ("sold", "venduto", "卖"), shorthand
    forms: tuple[str, ...] = ()
    # an entity's level of the hierarchy (`level = "region"`, one of [levels]; "": none named)
    level: str = ""
    # a metric's `kind = "flow" | "stock" | "rate"` (None: `additive`, else the unit decides,
    # core.knowledge.metric_kind)
    kind: str | None = None

    @property
    def label(self) -> str:
        return self.names[0] if self.names else self.code

    def label_for(self, language: str) -> str:
        """Display name for a reader: the glossary's label for the language when it gives one,
        else the first Chinese name for zh, else the first name."""
        for lang, text in self.labels:
            if lang == language:
                return text
        if language == "zh":
            for name in self.names:
                if _CJK.search(name):
                    return name
        return self.label


@dataclass(frozen=True)
class DerivedMetric:
    """A metric computed from two stored ones (`[derived.CODE]`): its names and unit, the
    formula, and how many decimals an answer shows."""

    term: Term
    formula: Formula
    decimals: int

    def rounded(self, value: Decimal) -> Decimal:
        return rounded(value, self.decimals)


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

    def source_title(self, source: Source, language: str) -> str:
        """"Orbis FY2024 Annual Report, p. 11": a source as a reader looks it up."""
        return source_title(source, language, self.titles)

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
    return _Validator(text, source).build(data)


class _Validator:
    def __init__(self, text: str, source: str) -> None:
        self.lines = text.splitlines()
        self.source = source

    def fail(self, key: str, problem: str) -> ConfigError:
        return ConfigError(self.where(key, problem))

    def where(self, key: str, problem: str) -> str:
        return f"{self.source}, line {self._line_of(key)}, key '{key}': {problem}"

    def _line_of(self, key: str) -> int:
        """Best line for a dotted key: its own line inside its table, else the table header
        (the key's own header when the key is a table: "derived.EBITDA_MARGIN")."""
        for i, line in enumerate(self.lines):
            if line.strip().replace(" ", "") == f"[{key}]":
                return i + 1
        *tables, last = key.split(".")
        header = "[" + ".".join(tables) + "]" if tables else None
        start = 0
        if header:
            for i, line in enumerate(self.lines):
                if line.strip().replace(" ", "") == header.replace(" ", ""):
                    start = i
                    break
            else:
                return 1
        for i in range(start, len(self.lines)):
            stripped = self.lines[i].strip()
            if i > start and header and stripped.startswith("["):
                break
            if re.match(rf"^\"?{re.escape(last)}\"?\s*=", stripped):
                return i + 1
        return start + 1

    def build(self, data: dict[str, Any]) -> Glossary:
        scope = data.get("scope")
        if not isinstance(scope, dict):
            raise self.fail("scope", "a [scope] table is required")
        metrics = self.terms(data, "metrics", with_unit=True)
        entities = self.terms(data, "entities")
        channels = self.terms(data, "channels")
        channels.setdefault("TOTAL", Term(code="TOTAL", names=("total",)))
        default_entity = scope.get("default_entity")
        if not isinstance(default_entity, str) or default_entity not in entities:
            raise self.fail(
                "scope.default_entity", f"must name one of the entities {sorted(entities)}"
            )
        fy_end = scope.get("fiscal_year_end", "12-31")
        if not isinstance(fy_end, str) or not _MMDD.match(fy_end):
            raise self.fail("scope.fiscal_year_end", 'must be a month-day like "12-31"')
        chats = scope.get("restricted_chats", [])
        if not isinstance(chats, list) or not all(isinstance(c, str) for c in chats):
            raise self.fail(
                "scope.restricted_chats", 'must be a list of chat ids like "telegram:9001"'
            )
        for code, term in entities.items():
            if term.parent is not None and term.parent not in entities:
                raise self.fail(f"entities.{code}.parent", f"unknown entity '{term.parent}'")
        competitors = data.get("competitors", {}).get("names", [])
        if not isinstance(competitors, list) or not all(isinstance(c, str) for c in competitors):
            raise self.fail("competitors.names", "must be a list of names")
        unit_kinds = parse_unit_kinds(data.get("units"), self.fail)
        glossary = Glossary(
            default_entity=default_entity,
            fiscal_year_end=fy_end,
            restricted_chats=frozenset(chats),
            metrics=metrics,
            entities=entities,
            channels=channels,
            competitors=tuple(c for c in competitors if c.strip()),
            documents=self.document_sources(data),
            facts=self.fact_sources(data, default_entity),
            units=parse_units(data.get("units"), self.fail),
            titles=self.titles(data),
            derived=self.derived(data, metrics),
            unit_kinds=unit_kinds,
            levels=self.levels(data, entities),
            **self.relations(data, scope, metrics, channels),
            accepted=parse_accepted(data.get("disclosure"),
                                    Path(self.source).parent if self.source else Path("."),
                                    self.fail),
        )
        problems = glossary_problems(glossary)  # the rules on the whole
        if problems:
            raise ConfigError("\n".join(self.where(key, why) for key, why in problems))
        return glossary

    def levels(self, data: dict[str, Any], entities: dict[str, Term]) -> dict[str, tuple[str, ...]]:
        """[levels.CODE] names = [...]: the hierarchy's levels, which entities name with
        `level = "CODE"` (docs/formats.md)."""
        raw = data.get("levels", {})
        if not isinstance(raw, dict):
            raise self.fail("levels", 'must be a table of levels like [levels.region]')
        out: dict[str, tuple[str, ...]] = {}
        for code, body in raw.items():
            names = body.get("names") if isinstance(body, dict) else None
            if not isinstance(names, list) or not names or not all(
                isinstance(n, str) and n.strip() for n in names
            ):
                raise self.fail(f"levels.{code}.names", "must be a list of non-empty names")
            out[code] = tuple(n.strip() for n in names)
        for code, term in entities.items():
            if term.level and term.level not in out:
                raise self.fail(
                    f"entities.{code}.level", f"must name one of the [levels] {sorted(out)}"
                )
        return out

    def relations(self, data: dict[str, Any], scope: dict[str, Any], metrics: dict[str, Term],
                  channels: dict[str, Term]) -> dict[str, Any]:
        """[scope] disclosure and [relations]: how totals relate to members, as data. Entities
        add up to their `parent`; a channel total is the sum of the channels listed for it
        (default: TOTAL is the sum of every other channel); a metric in PCT, or listed in
        `non_additive`, is a rate that no total is the sum of."""
        policy = scope.get("disclosure", "protect")
        if policy not in ("protect", "disclose"):
            raise self.fail("scope.disclosure", 'must be "protect" or "disclose"')
        raw = data.get("relations", {})
        if not isinstance(raw, dict):
            raise self.fail("relations", "must be a table")
        declared = raw.get("channels")
        if declared is None:
            others = tuple(c for c in channels if c != "TOTAL")
            totals = {"TOTAL": others} if others else {}
        elif isinstance(declared, dict):
            totals = {}
            for total, members in declared.items():
                if total not in channels or not isinstance(members, list) or not all(
                    m in channels and m != total for m in members
                ):
                    raise self.fail("relations.channels",
                                    f"must map a channel to a list of other channels "
                                    f"{sorted(channels)}, like TOTAL = [\"ONLINE\", \"RETAIL\"]")
                totals[total] = tuple(members)
        else:
            raise self.fail("relations.channels", 'must be a table like { TOTAL = ["ONLINE"] }')
        listed = raw.get("non_additive", [])
        if not isinstance(listed, list) or not all(m in metrics for m in listed):
            raise self.fail("relations.non_additive", f"must list metrics of {sorted(metrics)}")
        rates = {code for code, term in metrics.items() if term.unit == "PCT"}
        return {"disclosure": policy, "channel_totals": totals,
                "non_additive": frozenset(rates | set(listed))}

    def titles(self, data: dict[str, Any]) -> dict[str, str]:
        """[titles]: a readable title per document (its file name or source/path key)."""
        table = data.get("titles", {})
        if not isinstance(table, dict):
            raise self.fail("titles", 'must be a table like "Orbis_FY2024.pdf" = "Annual Report"')
        for doc, title in table.items():
            if not isinstance(title, str) or not title.strip():
                raise self.fail(f"titles.{doc}", "must be a non-empty title")
        return {doc: " ".join(title.split()) for doc, title in table.items()}

    def derived(self, data: dict[str, Any], metrics: dict[str, Term]) -> dict[str, DerivedMetric]:
        """[derived.CODE]: names, unit and labels as a metric's, plus the formula
        (core.figures.formulas) over stored metrics and the decimals shown (its units are a
        whole-glossary rule: core.knowledge.glossary_rules)."""
        terms = self.terms(data, "derived", with_unit=True)
        units = {code: term.unit for code, term in metrics.items()}
        out: dict[str, DerivedMetric] = {}
        for code, term in terms.items():
            key = f"derived.{code}"
            if not term.names:
                raise self.fail(f"{key}.names", "a derived metric needs names to be asked by")
            if not term.unit:
                raise self.fail(f"{key}.unit", 'must name the result\'s unit, like "PCT"')
            formula, decimals = parse_formula(data["derived"][code], key, units, self.fail)
            out[code] = DerivedMetric(term, formula, decimals)
        return out

    # -- [[documents]]: declared document sources (core.knowledge.document_sources)
    # ------------------

    def fact_sources(self, data: dict[str, Any], default_entity: str) -> tuple[FactSource, ...]:
        """The `[[facts]]` sources; their parser (and the wide-table reader it checks layouts
        with) is imported only for a glossary that declares some: a one-shot `ask` on any
        other glossary pays nothing for them."""
        raw = data.get("facts")
        if raw is None:
            return ()
        from core.knowledge.fact_sources import parse_fact_sources

        return parse_fact_sources(raw, base_dir=self.base_dir(), default_entity=default_entity,
                                  fail=self._fail_in("facts"))

    def document_sources(self, data: dict[str, Any]) -> tuple[DocumentSource, ...]:
        base = Path(self.source).parent if self.source else Path(".")
        return parse_document_sources(data.get("documents"), base_dir=base, fail=self._fail_doc)

    def base_dir(self) -> Path:
        return Path(self.source).parent if self.source else Path(".")

    def _fail_doc(self, index: int, key: str, problem: str) -> ConfigError:
        return self._fail_in("documents")(index, key, problem)

    def _fail_in(self, array: str) -> Callable[[int, str, str], ConfigError]:
        def fail(index: int, key: str, problem: str) -> ConfigError:
            line = self._line_of_document(index, key, array)
            return ConfigError(f"{self.source}, line {line}, key '{array}[{index}].{key}': "
                               f"{problem}")
        return fail

    def _line_of_document(self, index: int, key: str, array: str = "documents") -> int:
        """The line of `key` inside the index-th [[array]] table, else its header."""
        headers = [i for i, line in enumerate(self.lines) if line.strip() == f"[[{array}]]"]
        if index >= len(headers):
            return 1
        start = headers[index]
        for i in range(start + 1, len(self.lines)):
            stripped = self.lines[i].strip()
            if stripped.startswith("["):
                break
            if re.match(rf"^\"?{re.escape(key)}\"?\s*=", stripped):
                return i + 1
        return start + 1

    def terms(
        self, data: dict[str, Any], table: str, *, with_unit: bool = False
    ) -> dict[str, Term]:
        raw = data.get(table, {})
        if not isinstance(raw, dict):
            raise self.fail(table, "must be a table of codes")
        if table == "metrics" and not raw:
            raise self.fail(table, "at least one metric is required")
        out: dict[str, Term] = {}
        for code, body in raw.items():
            key = f"{table}.{code}"
            if not _CODE.match(code):
                raise self.fail(key, "codes are upper-case letters, digits and _ (like ORBIS_CN)")
            if not isinstance(body, dict):
                raise self.fail(key, "must be a table with names = [...]")
            names = body.get("names", [])
            if not isinstance(names, list) or not all(
                isinstance(n, str) and n.strip() for n in names
            ):
                raise self.fail(f"{key}.names", "must be a list of non-empty names")
            unit = body.get("unit", "")
            if with_unit and not isinstance(unit, str):
                raise self.fail(f"{key}.unit", 'must be a string like "EUR_M"')
            parent = body.get("parent")
            if parent is not None and not isinstance(parent, str):
                raise self.fail(f"{key}.parent", "must be an entity code")
            restricted = body.get("restricted", False)
            if not isinstance(restricted, bool):
                raise self.fail(f"{key}.restricted", "must be true or false")
            additive = body.get("additive")
            if additive is not None and (not with_unit or not isinstance(additive, bool)):
                raise self.fail(
                    f"{key}.additive",
                    "must be true or false, on a metric: whether its figures add up over "
                    "periods (revenue does; headcount and margins do not)",
                )
            kind = body.get("kind")
            if kind is not None and (not with_unit or kind not in ("flow", "stock", "rate")):
                raise self.fail(
                    f"{key}.kind",
                    'must be "flow", "stock" or "rate", on a metric: a flow (revenue) adds up '
                    "over periods and members, a stock (headcount) over members only, a rate "
                    "(a margin) over neither",
                )
            labels = body.get("labels", {})
            if not isinstance(labels, dict) or not all(
                lang in LANGUAGES and isinstance(text, str) and text.strip()
                for lang, text in labels.items()
            ):
                raise self.fail(
                    f"{key}.labels",
                    f'must name a display name per language ({", ".join(LANGUAGES)}), like '
                    'labels = { it = "Ricavi", zh = "营收" }',
                )
            forms = body.get("forms", [])
            if not isinstance(forms, list) or not all(
                isinstance(n, str) and n.strip() for n in forms
            ):
                raise self.fail(f"{key}.forms", "must be a list of non-empty word forms")
            level = body.get("level", "")
            if not isinstance(level, str) or (level and table != "entities"):
                raise self.fail(f"{key}.level", 'must be a level code on an entity, like "region"')
            out[code] = Term(
                code,
                tuple(n.strip() for n in names),
                unit,
                parent,
                restricted,
                tuple((lang, text.strip()) for lang, text in labels.items()),
                additive,
                tuple(n.strip() for n in forms),
                level,
                kind,
            )
        return out
