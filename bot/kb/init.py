"""`ricorda init FACTS.csv|.xlsx [DOCS/]`: a starter glossary from the codes a fact file uses.

A company starting out has a fact export and a folder of documents, not a glossary. This
writes one that loads as it is: every metric with its unit, every entity and channel with a
`names = ["TODO ..."]` placeholder (valid TOML, and a name a question can already use), the
units with their dimension, scale and display forms, the fiscal year end (guessed, with a
comment), the document folder as a declared source and, when one entity's figures are the sum
of the others' (a group total), `parent` for every unit and `disclosure = "protect"`, so a unit
marked restricted later is protected from the first ingest. `ricorda check` then lists every
TODO still to fill in. Everything is written through tomlkit (a code or a folder name is
quoted and escaped, never read as TOML syntax), and the text is parsed as a glossary before it
is returned: what `init` writes always ingests.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.items import Table

from core.contracts.errors import IngestError
from core.contracts.types import Fact, PeriodType
from core.knowledge.glossary import parse_glossary
from core.knowledge.unit_display import currency_forms, readable_code
from core.knowledge.unit_kinds import BUILT_IN, RATIO
from storage.fact_files import TOTAL_CHANNEL, read_fact_file

TODO = "TODO"
_CODE = re.compile(r"^[A-Z][A-Z0-9_]*$")  # what a glossary code may be


def starter_glossary(facts: Path, docs: Path | None = None, *, out: Path | None = None) -> str:
    """The glossary text for `facts` (and `docs`, a folder of documents); paths in it are
    relative to `out`'s folder (the current one when printed). Raises IngestError when the
    fact file cannot be read or uses a code a glossary cannot hold."""
    try:
        report = read_fact_file(facts, known_metrics=None, known_entities=None,
                                known_channels=None)
    except IngestError as exc:
        if "bad header" not in str(exc) and "no header" not in str(exc):
            raise
        from bot.kb.init_wide import wide_starter  # a report table as it is

        return wide_starter(facts, out=out)
    metric_units: dict[str, Counter[str]] = {}
    entity_rows: Counter[str] = Counter()
    channels: list[str] = []
    for fact in report.facts:
        metric_units.setdefault(fact.metric, Counter())[fact.unit] += 1
        entity_rows[fact.entity] += 1
        if fact.channel != TOTAL_CHANNEL and fact.channel not in channels:
            channels.append(fact.channel)
    if not metric_units:
        problems = "; ".join(str(e) for e in report.errors[:3])
        raise IngestError(f"{facts.name}: no valid row to start a glossary from ({problems})")
    _refuse_bad_codes(facts, [*metric_units, *entity_rows, *channels])
    group = group_total(report.facts)
    doc = tomlkit.document()
    _header(doc, facts, report.facts, entity_rows, group)
    units: list[str] = []
    doc.add(tomlkit.nl())
    doc.add(tomlkit.comment(_rule("metrics")))
    metrics = tomlkit.table(is_super_table=True)
    for metric, seen in metric_units.items():
        unit = _main_unit(seen)
        units.append(unit)
        others = sorted(u for u in seen if u and u != unit)
        body = _named(metric)
        body.add("unit", unit)
        if others:
            body["unit"].comment(f"rows also in {', '.join(others)}: converted to {unit} if of "
                                 "the same dimension, else rejected")
        metrics.add(metric, body)
        units += others
    doc.add("metrics", metrics)
    doc.add(tomlkit.nl())
    doc.add(tomlkit.comment(_rule("entities")))
    if group is not None:
        doc.add(tomlkit.comment(f"{group}'s figures are the sum of the others' in {facts.name}: "
                                "each is a unit of it (parent), so"))
        doc.add(tomlkit.comment("a unit marked restricted = true cannot be worked out as the "
                                "group minus the rest"))
    entities = tomlkit.table(is_super_table=True)
    for code in entity_rows:
        body = _named(code)
        if group is not None and code != group:
            body.add("parent", group)
        body.add("restricted", False)
        entities.add(code, body)
    doc.add("entities", entities)
    doc.add(tomlkit.nl())
    doc.add(tomlkit.comment(_rule("channels")))
    doc.add(tomlkit.comment("TOTAL is built in; rows with an empty channel are TOTAL."))
    if channels:
        table = tomlkit.table(is_super_table=True)
        for code in channels:
            table.add(code, _named(code))
        doc.add("channels", table)
    doc.add(tomlkit.nl())
    doc.add(tomlkit.comment(_rule("units")))
    for line in ("What each unit measures (dimension, scale) and how a value reads in each",
                 "language ({value} is the exact figure). A row in another unit of the same",
                 "dimension is converted on ingest; another dimension is rejected."):
        doc.add(tomlkit.comment(line))
    table = tomlkit.table(is_super_table=True)
    for unit in dict.fromkeys(u for u in units if u):
        table.add(unit, _unit_table(unit))
    doc.add("units", table)
    doc.add(tomlkit.nl())
    doc.add(tomlkit.comment(_rule("competitors")))
    doc.add(tomlkit.comment("names a question is refused for (other companies): add them"))
    competitors = tomlkit.table()
    competitors.add("names", tomlkit.array())
    doc.add("competitors", competitors)
    if docs is not None:
        doc.add(tomlkit.nl())
        doc.add(tomlkit.comment(_rule("documents")))
        _documents(doc, docs, out)
    text = tomlkit.dumps(doc).rstrip("\n") + "\n"
    parse_glossary(text, source=str(out or "glossary.toml"))  # what init writes always loads
    return text


def _refuse_bad_codes(facts: Path, codes: list[str]) -> None:
    bad = [c for c in dict.fromkeys(codes) if not _CODE.match(c)]
    if bad:
        shown = ", ".join(repr(c) for c in bad[:5]) + (" ..." if len(bad) > 5 else "")
        raise IngestError(f"{facts.name}: codes are upper-case letters, digits and _ (like "
                          f"ORBIS_CN); rename {shown} in the fact file, then run init again")


def _named(code: str) -> Table:
    body = tomlkit.table()
    body.add("names", [f"{TODO} {_readable(code)}"])
    return body


def group_total(rows: list[Fact]) -> str | None:
    """The entity whose figure equals the sum of every other entity's, in some slice (metric,
    period, channel) where all of them have one: the group total of its units."""
    entities = list(dict.fromkeys(f.entity for f in rows))
    if len(entities) < 3:
        return None
    slices: dict[tuple[str, str, str, str, str], dict[str, Decimal]] = {}
    for f in rows:
        slices.setdefault((f.metric, f.period.type.value, f.period.value, f.channel, f.unit),
                          {})[f.entity] = f.value
    for values in slices.values():
        if len(values) == len(entities):  # the total is half of everything added up
            whole = sum(values.values(), Decimal(0))
            found = [e for e, v in values.items() if v * 2 == whole and v != 0]
            if len(found) == 1:
                return found[0]
    return None


def _header(doc: Any, facts: Path, rows: list[Fact], entity_rows: Counter[str],
            group: str | None) -> None:
    default = group or next((c for c in entity_rows if "GROUP" in c),
                            entity_rows.most_common(1)[0][0])
    fy_end, why = _fiscal_year_end(rows)
    for line in (f"Starter glossary written by `ricorda init` from {facts.name}.",
                 f"Replace every \"{TODO} ...\" name with the names people use (any of en/it/zh;",
                 "the first is the display name), mark units restricted = true where only",
                 "cleared chats may see them, add [competitors], then run `ricorda check` and",
                 "`ricorda ingest`."):
        doc.add(tomlkit.comment(line))
    doc.add(tomlkit.nl())
    scope = tomlkit.table()
    scope.add("default_entity", default)
    scope["default_entity"].comment(f"{TODO}: the entity a question naming none is about")
    scope.add("fiscal_year_end", fy_end)
    scope["fiscal_year_end"].comment(why)
    scope.add("restricted_chats", tomlkit.array())
    scope["restricted_chats"].comment("chat ids cleared for restricted data, like "
                                      "\"telegram:9001\"")
    scope.add("disclosure", "protect")
    scope["disclosure"].comment("a total that would reveal a restricted unit is withheld from "
                                "other chats (docs/disclosure.md)")
    doc.add("scope", scope)


def _fiscal_year_end(rows: list[Fact]) -> tuple[str, str]:
    """The year end: from monthly rows when an FY figure equals the sum of twelve months
    ending in the same month for every such year; else December, said in the comment."""
    Key = tuple[str, str, str, str]
    months: dict[Key, dict[str, Decimal]] = {}
    years: dict[Key, tuple[Key, Decimal]] = {}
    for f in rows:
        key = (f.metric, f.entity, f.channel, f.unit)
        if f.period.type is PeriodType.M:
            months.setdefault(key, {})[f.period.value] = f.value
        elif f.period.type is PeriodType.FY:
            years[(f.metric, f.entity, f.channel, f.period.value)] = (key, f.value)
    ends: set[int] = set()
    for (_m, _e, _c, year), (key, value) in years.items():
        series = months.get(key, {})
        for end in range(1, 13):
            span = _twelve_months(int(year), end)
            if all(m in series for m in span) and sum(series[m] for m in span) == value:
                ends.add(end)
    if len(ends) == 1:
        end = ends.pop()
        import calendar

        last = calendar.monthrange(2001, end)[1]
        return (f"{end:02d}-{last:02d}", "guessed: the yearly figures are the sums of the "
                f"twelve months ending in {calendar.month_name[end]}")
    return ("12-31", f"{TODO}: guessed December; a year ending 30 June is \"06-30\"")


def _twelve_months(year: int, end: int) -> list[str]:
    """The months of fiscal `year` ending in month `end` ("FY2025" ending June: 2024-07..2025-06;
    a December year end names the calendar year)."""
    out = []
    for i in range(12):
        month = end - 11 + i
        y = year if month > 0 else year - 1
        out.append(f"{y:04d}-{(month - 1) % 12 + 1:02d}")
    return out


def _main_unit(seen: Counter[str]) -> str:
    """The unit most rows are in (a metric's unit); an empty unit only when no row gives one."""
    named = Counter({u: n for u, n in seen.items() if u})
    return named.most_common(1)[0][0] if named else ""


def _unit_table(code: str) -> Table:
    body = tomlkit.table()
    kind = BUILT_IN.get(code)
    if kind is None:
        body.add(tomlkit.comment(f"{TODO}: what does {code} measure? Units of one dimension "
                                 "convert into each other; name it in en"))
        body.add("dimension", code.lower())
        body.add("scale", "1")
        body.add("en", f"{{value}} {_readable(code).lower()}")
        return body
    body.add("dimension", kind.dimension)
    body.add("scale", _scale_text(kind.scale))
    currency = currency_forms(code)
    if currency is not None:
        for language, (form, shift) in currency.items():
            if shift:
                spec = tomlkit.inline_table()
                spec.update({"format": form, "shift": shift})
                body.add(language, spec)
            else:
                body.add(language, form)
    elif kind.dimension == RATIO and code == "PCT":
        body.add("en", "{value}%")
    elif code == "FTE":
        body.add("en", "{value} FTE")
        body.add("zh", "{value}人")
    else:
        body.add("en", f"{{value}} {readable_code(code)}")
    return body


def _scale_text(scale: Decimal) -> str:
    """1e6 for a million, 0.01 for a hundredth: as a person writes the scale."""
    normal = scale.normalize()
    _sign, digits, exponent = normal.as_tuple()
    if digits == (1,) and isinstance(exponent, int) and exponent >= 3:
        return f"1e{exponent}"
    return format(normal, "f")


def _documents(doc: Any, docs: Path, out: Path | None) -> None:
    base = (out.resolve().parent if out else Path.cwd())
    rel = Path(os.path.relpath(docs.resolve(), base)).as_posix()
    name = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in docs.resolve().name)
    for line in ("A folder of documents is a declared source; a restricted/ subfolder inside it is",
                 "RESTRICTED (only restricted_chats see it). Paths are relative to this file."):
        doc.add(tomlkit.comment(line))
    source = tomlkit.table()
    source.add("source", name.lower().strip("_-") or "docs")
    source.add("path", rel)
    source.add("restricted", False)
    sources = tomlkit.aot()
    sources.append(source)
    doc.add("documents", sources)


def _rule(name: str) -> str:
    return f"{'-' * 60} {name}"


def _readable(code: str) -> str:
    """ORBIS_CN -> "Orbis cn": a placeholder a question can already name."""
    return code.replace("_", " ").capitalize()
