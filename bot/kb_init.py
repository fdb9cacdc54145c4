"""`ricorda init FACTS.csv|.xlsx [DOCS/]`: a starter glossary from the codes a fact file uses.

A company starting out has a fact export and a folder of documents, not a glossary. This
writes one that loads as it is: every metric with its unit, every entity and channel with a
`names = ["TODO ..."]` placeholder (valid TOML, and a name a question can already use), the
units with their dimension, scale and display forms, the fiscal year end (guessed, with a
comment) and the document folder as a declared source. `ricorda check` then lists every TODO
still to fill in. The text is parsed as a glossary before it is returned: what `init` writes
always ingests.
"""

from __future__ import annotations

import os
from collections import Counter
from decimal import Decimal
from pathlib import Path

from core.contracts.types import Fact, PeriodType
from core.knowledge.glossary import parse_glossary
from core.knowledge.unit_kinds import BUILT_IN, RATIO
from storage.fact_files import TOTAL_CHANNEL, read_fact_file

TODO = "TODO"
# currency code -> (en symbol, it symbol, zh name)
_CURRENCIES = {
    "EUR": ("€", "€", "欧元"), "USD": ("$", "$", "美元"), "GBP": ("£", "£", "英镑"),
    "CHF": ("CHF ", "CHF", "瑞士法郎"), "CNY": ("CN¥", "CN¥", "人民币"),
    "JPY": ("¥", "¥", "日元"), "HKD": ("HK$", "HK$", "港元"),
}
# scale suffix -> (en, it, zh) words
_STEPS = {
    "": ("", "", ""), "_K": ("K", "mila", "千"), "_M": ("M", "Mln", "百万"),
    "_B": ("B", "Mld", "十亿"), "_BN": ("B", "Mld", "十亿"),
}


def starter_glossary(facts: Path, docs: Path | None = None, *, out: Path | None = None) -> str:
    """The glossary text for `facts` (and `docs`, a folder of documents); paths in it are
    relative to `out`'s folder (the current one when printed). Raises IngestError when the
    fact file cannot be read."""
    report = read_fact_file(facts, known_metrics=None, known_entities=None, known_channels=None)
    metric_units: dict[str, Counter[str]] = {}
    entity_rows: Counter[str] = Counter()
    channels: list[str] = []
    for fact in report.facts:
        metric_units.setdefault(fact.metric, Counter())[fact.unit] += 1
        entity_rows[fact.entity] += 1
        if fact.channel != TOTAL_CHANNEL and fact.channel not in channels:
            channels.append(fact.channel)
    if not metric_units:
        from core.contracts.errors import IngestError

        problems = "; ".join(str(e) for e in report.errors[:3])
        raise IngestError(f"{facts.name}: no valid row to start a glossary from ({problems})")
    parts = [_header(facts, report.facts, entity_rows)]
    units: list[str] = []
    parts.append(_section("metrics"))
    for metric, seen in metric_units.items():
        unit = _main_unit(seen)
        units.append(unit)
        others = sorted(u for u in seen if u and u != unit)
        note = (f"  # rows also in {', '.join(others)}: converted to {unit} if of the same "
                "dimension, else rejected" if others else "")
        parts.append(f"[metrics.{metric}]\nnames = [\"{TODO} {_readable(metric)}\"]\n"
                     f"unit = \"{unit}\"{note}\n")
        units += others
    parts.append(_section("entities"))
    parts += [f"[entities.{code}]\nnames = [\"{TODO} {_readable(code)}\"]\n"
              "restricted = false\n" for code in entity_rows]
    parts.append(_section("channels"))
    parts.append("# TOTAL is built in; rows with an empty channel are TOTAL.\n")
    parts += [f"[channels.{code}]\nnames = [\"{TODO} {_readable(code)}\"]\n" for code in channels]
    parts.append(_section("units"))
    parts.append("# What each unit measures (dimension, scale) and how a value reads in each\n"
                 "# language ({value} is the exact figure). A row in another unit of the same\n"
                 "# dimension is converted on ingest; another dimension is rejected.\n")
    parts += [_unit_table(u) for u in dict.fromkeys(u for u in units if u)]
    if docs is not None:
        parts.append(_section("documents"))
        parts.append(_documents(docs, out))
    text = "\n".join(parts)
    parse_glossary(text, source=str(out or "glossary.toml"))  # what init writes always loads
    return text


def _header(facts: Path, rows: list[Fact], entity_rows: Counter[str]) -> str:
    default = next((c for c in entity_rows if "GROUP" in c), entity_rows.most_common(1)[0][0])
    fy_end, why = _fiscal_year_end(rows)
    return (
        f"# Starter glossary written by `ricorda init` from {facts.name}.\n"
        f"# Replace every \"{TODO} ...\" name with the names people use (any of en/it/zh; the\n"
        "# first is the display name), then run `ricorda check` and `ricorda ingest`.\n\n"
        "[scope]\n"
        f"default_entity = \"{default}\"  # {TODO}: the entity a question naming none is "
        "about\n"
        f"fiscal_year_end = \"{fy_end}\"  # {why}\n"
        "restricted_chats = []  # chat ids cleared for restricted data, like "
        "\"telegram:9001\"\n"
    )


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


def _unit_table(code: str) -> str:
    kind = BUILT_IN.get(code)
    if kind is None:
        return (f"[units.{code}]  # {TODO}: what does {code} measure? Units of one dimension "
                f"convert into each other\ndimension = \"{code.lower()}\"\nscale = \"1\"\n"
                f"en = \"{{value}} {code}\"\n")
    scale = _scale_text(kind.scale)
    head = f"[units.{code}]\ndimension = \"{kind.dimension}\"\nscale = \"{scale}\"\n"
    currency = kind.dimension.removeprefix("currency:")
    if currency in _CURRENCIES and code.startswith(currency) and "/" not in kind.dimension:
        en_symbol, it_symbol, zh_name = _CURRENCIES[currency]
        en, it, zh = _STEPS[code.removeprefix(currency)]
        return head + (f"en = \"{en_symbol}{{value}}{en}\"\n"
                       f"it = \"{{value}} {(it + ' ') if it else ''}{it_symbol}\"\n"
                       f"zh = \"{{value}}{zh}{zh_name}\"\n")
    if kind.dimension == RATIO and code == "PCT":
        return head + "en = \"{value}%\"\n"
    if code == "FTE":
        return head + "en = \"{value} FTE\"\nzh = \"{value}人\"\n"
    return head + f"en = \"{{value}} {code}\"\n"


def _scale_text(scale: Decimal) -> str:
    """1e6 for a million, 0.01 for a hundredth: as a person writes the scale."""
    normal = scale.normalize()
    _sign, digits, exponent = normal.as_tuple()
    if digits == (1,) and isinstance(exponent, int) and exponent >= 3:
        return f"1e{exponent}"
    return format(normal, "f")


def _documents(docs: Path, out: Path | None) -> str:
    base = (out.resolve().parent if out else Path.cwd())
    rel = Path(os.path.relpath(docs.resolve(), base)).as_posix()
    name = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in docs.resolve().name)
    return (
        "# A folder of documents is a declared source; a restricted/ subfolder inside it is\n"
        "# RESTRICTED (only restricted_chats see it). Paths are relative to this file.\n"
        f"[[documents]]\nsource = \"{name.lower() or 'docs'}\"\npath = \"{rel}\"\n"
        "restricted = false\n"
    )


def _section(name: str) -> str:
    return f"# {'-' * 60} {name}"


def _readable(code: str) -> str:
    """ORBIS_CN -> "Orbis cn": a placeholder a question can already name."""
    return code.replace("_", " ").capitalize()
