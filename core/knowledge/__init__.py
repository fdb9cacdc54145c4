"""The knowledge base's vocabulary: glossary, names, units, sources, clearance.

The modules are imported by name (`from core.knowledge.clearance import ...`); none is
imported here, so importing one loads only what it needs."""

__all__ = [
    "accepted_documents",
    "clearance",
    "comparable",
    "currency_variants",
    "current_glossary",
    "disclosure",
    "document_sources",
    "examples",
    "fact_sources",
    "fiscal_slices",
    "formulas",
    "freshness",
    "fuzzy",
    "glossary",
    "glossary_rules",
    "glossary_terms",
    "glossary_validation",
    "metric_kind",
    "metric_phrase",
    "name_overlaps",
    "names",
    "period_relations",
    "unit_display",
    "unit_kinds",
    "units",
    "wide_tables",
    "withheld",
]
