"""Checking a glossary file part by part: codes, names and units of the terms, levels,
relations, titles, derived metrics and document sources, each mistake named by file, line and
key, because a silently wrong glossary would make the bot answer about the wrong thing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.contracts.documents import DocumentSource
from core.contracts.errors import ConfigError
from core.knowledge.document_sources import parse_document_sources
from core.knowledge.formulas import parse_formula
from core.knowledge.glossary_terms import DerivedMetric, Term
from core.knowledge.units import LANGUAGES

__all__ = ["GlossaryReader"]

_CODE = re.compile(r"^[A-Z][A-Z0-9_]*$")


class GlossaryReader:
    """Reads the parts of a parsed glossary file, each checked, and names file, line and key
    on any mistake (core.knowledge.glossary assembles them into the Glossary)."""

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
        (core.knowledge.formulas) over stored metrics and the decimals shown (its units are a
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

    def document_sources(self, data: dict[str, Any]) -> tuple[DocumentSource, ...]:
        base = Path(self.source).parent if self.source else Path(".")
        return parse_document_sources(data.get("documents"), base_dir=base, fail=self._fail_doc)

    def base_dir(self) -> Path:
        return Path(self.source).parent if self.source else Path(".")

    def _fail_doc(self, index: int, key: str, problem: str) -> ConfigError:
        return self.fail_in("documents")(index, key, problem)

    def fail_in(self, array: str) -> Callable[[int, str, str], ConfigError]:
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
