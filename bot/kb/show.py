"""`ricorda kb`: what the loaded knowledge base holds, as the viewer is cleared to see it.

Per metric: its unit, the entities and the periods that have figures (a gap is a question the
bot will answer "no figure"); the derived metrics with their formulas; the document sources
with their classification and document counts. An uncleared viewer (the default) sees no
restricted entity, no restricted source and no count of restricted documents, as in a chat.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from core.contracts.types import Fact, Period
from core.knowledge.currency_variants import other_currency
from core.knowledge.glossary import Glossary

_ORDER = {"FY": 0, "HY": 1, "Q": 2, "M": 3}


def kb_summary(glossary: Glossary, facts: list[Fact], documents: list[Any],
               sources: list[Any], *, cleared: bool) -> dict[str, Any]:
    """The knowledge base as plain data (the `--json` output); `documents` are DocumentRecords,
    `sources` DocumentSources."""
    hidden = {code for code, t in glossary.entities.items() if t.restricted and not cleared}
    by_metric: dict[str, list[Fact]] = defaultdict(list)
    for fact in facts:
        if fact.entity not in hidden:
            by_metric[fact.metric].append(fact)
    metrics = []
    for code, term in glossary.metrics.items():
        rows = by_metric.get(code, [])
        entities = [e for e in glossary.entities if e not in hidden and
                    any(f.entity == e for f in rows)]
        missing = [e for e in glossary.entities if e not in hidden and e not in entities]
        metrics.append({
            "code": code, "name": term.label, "unit": term.unit, "rows": len(rows),
            "entities": entities, "entities_without_figures": missing,
            "periods": _periods(f.period for f in rows),
            "units_stored": sorted({f.unit for f in rows}),
            # a unit reporting in its own currency (kept as written, never converted)
            "own_currencies": sorted({f.unit for f in rows if f.unit != term.unit
                                      and other_currency(glossary, f.unit, term.unit)}),
        })
    derived = [{"code": code, "name": d.term.label, "unit": d.term.unit,
                "formula": _formula(d.formula.to_dict()), "decimals": d.decimals}
               for code, d in glossary.derived.items()]
    counts: dict[str, int] = defaultdict(int)
    for doc in documents:
        if cleared or not doc.restricted:
            counts[doc.source] += 1
    listed = []
    for source in sources:
        if source.restricted and not cleared:
            continue
        listed.append({"source": source.name, "path": str(source.root),
                       "classification": "RESTRICTED" if source.restricted else "public",
                       "declared": source.declared, "documents": counts.get(source.name, 0)})
    return {
        "viewer": "cleared" if cleared else "not cleared",
        "scope": {"default_entity": glossary.default_entity,
                  "fiscal_year_end": glossary.fiscal_year_end},
        "metrics": metrics,
        "derived": derived,
        "entities": [{"code": c, "name": t.label, "parent": t.parent,
                      **({"restricted": True} if t.restricted else {})}
                     for c, t in glossary.entities.items() if c not in hidden],
        "channels": [c for c in glossary.channels],
        "documents": listed,
    }


def kb_text(summary: dict[str, Any]) -> str:
    """The summary for a terminal."""
    lines = [f"knowledge base (viewer {summary['viewer']}); default entity "
             f"{summary['scope']['default_entity']}, fiscal year ends "
             f"{summary['scope']['fiscal_year_end']}", "", "metrics:"]
    for m in summary["metrics"]:
        periods = "; ".join(f"{kind} {span}" for kind, span in m["periods"].items()) or "none"
        lines.append(f"  {m['code']} ({m['name']}, {m['unit'] or 'no unit'}): {m['rows']} "
                     f"figures; entities {', '.join(m['entities']) or 'none'}; periods {periods}")
        own = m.get("own_currencies", [])
        others = [u for u in m["units_stored"] if u != m["unit"] and u not in own]
        if own:
            lines.append(f"    also in {', '.join(own)}: a unit's own currency, kept as written, "
                         "never converted or added to the others")
        if others:  # loaded before units were checked at ingest
            lines.append(f"    also stored in {', '.join(others)}, not {m['unit']}: ingest its "
                         "fact file again to convert them")
        if m["entities_without_figures"]:
            lines.append(f"    no figures for {', '.join(m['entities_without_figures'])}")
    if summary["derived"]:
        lines += ["", "derived metrics:"]
        lines += [f"  {d['code']} ({d['name']}, {d['unit']}) = {d['formula']}"
                  for d in summary["derived"]]
    lines += ["", "entities: " + ", ".join(
        e["code"] + (" (restricted)" if e.get("restricted") else "") for e in summary["entities"]),
        "channels: " + ", ".join(summary["channels"]), "", "documents:"]
    if not summary["documents"]:
        lines.append("  none ingested")
    lines += [f"  {d['source']} ({d['classification']}{'' if d['declared'] else ', undeclared'}):"
              f" {d['documents']} documents in {d['path']}" for d in summary["documents"]]
    return "\n".join(lines)


def _periods(periods: Any) -> dict[str, str]:
    """{"FY": "2021–2025 (5)", "Q": "2024Q1–2025Q4 (8)"}: each period type's span and count."""
    by_type: dict[str, set[str]] = defaultdict(set)
    for p in periods:
        assert isinstance(p, Period)
        by_type[p.type.value].add(p.value)
    return {kind: f"{min(v)}–{max(v)} ({len(v)})" if len(v) > 1 else min(v)
            for kind, v in sorted(by_type.items(), key=lambda kv: _ORDER.get(kv[0], 9))}


def _formula(parts: dict[str, str]) -> str:
    if parts["op"] == "ratio":
        text = f"{parts['numerator']} / {parts['denominator']}"
    else:
        text = f"({parts['minuend']} - {parts['subtrahend']})"
    return text if parts["scale"] == "1" else f"{text} x {parts['scale']}"
